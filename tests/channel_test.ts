/** The fast exec channel against a real container: framing, shells, caps, timeouts, fallback and recovery. */
import assert from "node:assert/strict";
import { ExecChannel, type ExecResult, text } from "../lib/runtime/channel.ts";
import type { Docker } from "../lib/runtime/docker/mod.ts";
import { bytes, dockerTest, startContainer } from "./docker_helpers.ts";
import { channelHelper } from "../lib/runtime/channel_helper/helper.ts";

/** Runs `fn` with a fresh container and a channel into it (working directory `/`), then removes both. */
async function withChannel(
  docker: Docker,
  fn: (ch: ExecChannel, id: string) => Promise<void>,
  opts: { forceFallback?: boolean; helper?: Uint8Array } = {},
): Promise<void> {
  const c = await startContainer(docker);
  const ch = new ExecChannel(docker.box(c.id), {
    workdir: "/",
    forceFallback: opts.forceFallback,
    helper: opts.helper,
  });
  try {
    await fn(ch, c.id);
  } finally {
    await ch.close();
    await c.remove();
  }
}

/** Lines of `ps -eo args` in the container, read through a separate `docker exec`. */
async function processArgs(docker: Docker, id: string): Promise<string[]> {
  const r = await docker.call(["exec", id, "ps", "-eo", "args"]);
  assert.equal(r.code, 0, r.stderr);
  return text(r.stdout).split("\n").map((l) => l.trim()).filter(Boolean);
}

function summary(r: ExecResult) {
  return { exitCode: r.exitCode, stdout: text(r.stdout), stderr: text(r.stderr), timedOut: r.timedOut };
}

/** How the channel runs commands: on the image's `setsid` and `head`, or on pgs' static helper (x86-64 images). */
interface Variant {
  /** Added to the test names (empty for the image's tools). */
  label: string;
  /** The helper the channel uploads (`channelHelper`); none: `setsid` and `head`. */
  helper?: Uint8Array;
}

/** Registers every channel test for one variant; each test reads only the variant it is given. */
function channelSuite(variant: Variant): void {
  const name = (what: string) => `channel${variant.label}: ${what}`;
  /** `withChannel` on this variant's helper. */
  const withVariant = (
    docker: Docker,
    fn: (ch: ExecChannel, id: string) => Promise<void>,
    opts: { forceFallback?: boolean } = {},
  ) => withChannel(docker, fn, { ...opts, helper: variant.helper });

  dockerTest(name("exit code and separate stdout/stderr"), async (docker) => {
    await withVariant(docker, async (ch) => {
      const r = await ch.exec("echo out; echo err >&2; echo out2; exit 7");
      assert.equal(ch.usingFallback, false);
      assert.equal(ch.helperRunning, variant.helper !== undefined);
      assert.equal(ch.processGroups, true);
      assert.equal(r.exitCode, 7);
      assert.equal(text(r.stdout), "out\nout2\n");
      assert.equal(text(r.stderr), "err\n");
      assert.equal(r.stdoutBytes, 9);
      assert.equal(r.stderrBytes, 4);
      assert.equal(r.timedOut, false);
      assert.equal((await ch.exec("true")).exitCode, 0);
      assert.equal((await ch.exec("kill -9 $$")).exitCode, 137);
    });
  });

  dockerTest(name("output is binary-safe (NUL and 0xff bytes)"), async (docker) => {
    await withVariant(docker, async (ch) => {
      const r = await ch.exec(String.raw`printf 'a\000b\377c\n\000'; printf '\377\000' >&2`);
      assert.equal(r.exitCode, 0);
      assert.deepEqual([...r.stdout], [0x61, 0, 0x62, 0xff, 0x63, 0x0a, 0]);
      assert.deepEqual([...r.stderr], [0xff, 0]);
      // A reply framed right is followed by a good one.
      assert.equal(text((await ch.exec("echo next")).stdout), "next\n");
    });
  });

  dockerTest(name("output past the cap is counted, not sent"), async (docker) => {
    await withVariant(docker, async (ch) => {
      const r = await ch.exec("head -c 3000000 /dev/zero; head -c 5000 /dev/zero | tr '\\0' e >&2", {
        maxOutputBytes: 1000,
      });
      assert.equal(r.exitCode, 0);
      assert.equal(r.stdout.length, 1000);
      assert.equal(r.stdoutBytes, 3_000_000);
      assert.equal(r.stderr.length, 1000);
      assert.equal(r.stderrBytes, 5000);
      assert.equal(text(r.stderr), "e".repeat(1000));
      // The default cap is 1 MiB.
      const big = await ch.exec("head -c 1048600 /dev/zero");
      assert.equal(big.stdout.length, 1 << 20);
      assert.equal(big.stdoutBytes, 1048600);
      assert.equal(text((await ch.exec("echo after")).stdout), "after\n");
    });
  });

  dockerTest(name("output exactly at the cap is whole; protocol-like output is framed as data"), async (docker) => {
    await withVariant(docker, async (ch) => {
      const r = await ch.exec("head -c 1000 /dev/zero | tr '\\0' x; printf 'x' >&2", { maxOutputBytes: 1000 });
      assert.deepEqual([r.stdout.length, r.stdoutBytes, r.stderr.length, r.stderrBytes], [1000, 1000, 1, 1]);
      // One byte over: counted (a size request), and the next reply is framed right.
      const over = await ch.exec("head -c 1001 /dev/zero", { maxOutputBytes: 1000 });
      assert.deepEqual([over.stdout.length, over.stdoutBytes], [1000, 1001]);
      const fake = "PGS-END 99 0\nPGS3f2a\nPGS-SIZE 1 2 3\n";
      const r2 = await ch.exec(`printf '%s' '${fake}'; printf '%s' '${fake}' >&2; exit 3`);
      assert.deepEqual([r2.exitCode, text(r2.stdout), text(r2.stderr)], [3, fake, fake]);
      assert.equal(text((await ch.exec("echo after")).stdout), "after\n");
    });
  });

  dockerTest(name("a script with quotes, backslashes, newlines and unicode round-trips"), async (docker) => {
    const payload = [
      `single ' double " back \` dollar $HOME $(id) \${x}`,
      String.raw`backslashes \ \\ \n \t \0 \101 \x41 %s %b %%`,
      "tab\there, carriage\rreturn, bell\x07, del\x7f",
      "unicode: héllo wörld ✓ 日本語 🚀",
      "",
      "  leading and trailing spaces  ",
    ].join("\n");
    await withVariant(docker, async (ch) => {
      const r = await ch.exec(`cat <<'PGS_EOF'\n${payload}\nPGS_EOF\nprintf '%s' ${"'it'\\''s'"}`);
      assert.equal(r.exitCode, 0, text(r.stderr));
      assert.equal(text(r.stdout), `${payload}\nit's`);
      // The same through the shell's own quoting: an argument arrives byte for byte.
      const arg = `a'b"c\\d\ne ✓`;
      const r2 = await ch.exec(`printf '%s' "$(cat <<'X'\n${arg}\nX\n)"`);
      assert.equal(text(r2.stdout), arg);
      // A script without a trailing newline, and an empty one.
      assert.equal(text((await ch.exec("echo -n last")).stdout), "last");
      assert.equal((await ch.exec("")).exitCode, 0);
    });
  });

  dockerTest(name("shell sh runs /bin/sh, the default runs bash"), async (docker) => {
    await withVariant(docker, async (ch) => {
      const probe = `readlink /proc/$$/exe; echo "bash=\${BASH_VERSION:-none}"`;
      const sh = await ch.exec(probe, { shell: "sh" });
      assert.match(text(sh.stdout), /dash\nbash=none\n$/);
      const bash = await ch.exec(probe);
      assert.match(text(bash.stdout), /bash\nbash=5\./);
      assert.equal((await ch.exec("[[ 1 == 1 ]]")).exitCode, 0);
      assert.notEqual((await ch.exec("[[ 1 == 1 ]]", { shell: "sh" })).exitCode, 0);
      // bash -l: a login shell.
      assert.equal(text((await ch.exec("shopt -q login_shell && echo login")).stdout), "login\n");
      // $0 and error wording as `bash -lc` gives them, helper or not.
      const r = await ch.exec("echo $0; nosuchcmd");
      assert.deepEqual([text(r.stdout), text(r.stderr)], ["bash\n", "bash: line 1: nosuchcmd: command not found\n"]);
    });
  });

  dockerTest(name("mergeStderr interleaves stderr into stdout"), async (docker) => {
    await withVariant(docker, async (ch) => {
      for (const shell of ["sh", "bash"] as const) {
        const r = await ch.exec("echo a; echo b >&2; echo c; echo d >&2; exit 3", { mergeStderr: true, shell });
        assert.equal(r.exitCode, 3);
        assert.equal(text(r.stdout), "a\nb\nc\nd\n");
        assert.equal(r.stderr.length, 0);
        assert.equal(r.stderrBytes, 0);
        assert.equal(r.stdoutBytes, 8);
      }
    });
  });

  dockerTest(name("every call is a fresh process (no env, cwd or shell state kept)"), async (docker) => {
    await withVariant(docker, async (ch) => {
      const first = await ch.exec("export PGS_T=1; PLAIN=2; cd /tmp; alias ll=ls; echo $$");
      assert.equal(first.exitCode, 0);
      const second = await ch.exec(
        'echo "${PGS_T:-unset} ${PLAIN:-unset}"; pwd; alias ll 2>/dev/null || echo noalias; echo $$',
      );
      const [vars, cwd, alias, pid] = text(second.stdout).trim().split("\n");
      assert.equal(vars, "unset unset");
      assert.equal(cwd, "/");
      assert.equal(alias, "noalias");
      assert.notEqual(pid, text(first.stdout).trim());
      // cwd applies to one call only.
      assert.equal(text((await ch.exec("pwd", { cwd: "/etc" })).stdout), "/etc\n");
      assert.equal(text((await ch.exec("pwd")).stdout), "/\n");
    });
  });

  dockerTest(name(`a timeout kills the command's whole process group`), async (docker) => {
    await withVariant(docker, async (ch, id) => {
      const r = await ch.exec("sleep 300 & sleep 300", { timeoutSec: 1 });
      // The call ended by its timeout, and by the time it returned the whole group was gone.
      assert.equal(r.timedOut, true);
      assert.equal(r.exitCode, 137);
      const left = (await processArgs(docker, id)).filter((a) => a === "sleep 300");
      assert.deepEqual(left, []);
      // The channel goes on.
      const next = await ch.exec("echo alive");
      assert.deepEqual(summary(next), { exitCode: 0, stdout: "alive\n", stderr: "", timedOut: false });
    });
  });

  dockerTest(
    name("a background job sent elsewhere does not block the call; one holding the output does"),
    async (docker) => {
      await withVariant(docker, async (ch, id) => {
        // As for a harness reading pipes: the call is over once no process holds its output open.
        // Returned with no timeout while the job still runs: the call did not wait for it (a timeout would kill it).
        const r = await ch.exec("nohup sleep 302 >/dev/null 2>&1 & echo $!");
        assert.match(text(r.stdout), /^\d+\n$/);
        assert.equal(r.timedOut, false, "the call waited for a job that let go of its output");
        assert.ok((await processArgs(docker, id)).includes("sleep 302"), "the job survives the call");
        // Nor one that keeps starting short-lived processes (they come and go while the server looks).
        const churn = await ch.exec("nohup sh -c 'while :; do /bin/true; done' >/dev/null 2>&1 & sleep 0.5; echo $!", {
          timeoutSec: 20,
        });
        assert.equal(churn.timedOut, false, "the call waited for a busy job that let go of its output");
        const loop = await ch.exec(`kill -0 ${text(churn.stdout).trim()} && echo running`);
        assert.equal(text(loop.stdout), "running\n", "the busy job outlived the call that started it");
        await ch.exec(`kill -9 -${text(churn.stdout).trim()} 2>/dev/null; kill -9 ${text(churn.stdout).trim()}`);
        const late = await ch.exec("(sleep 1; echo late) & echo early");
        assert.deepEqual(summary(late), { exitCode: 0, stdout: "early\nlate\n", stderr: "", timedOut: false });
        // A job that keeps the output runs into the call's timeout, and goes with it; the earlier one stays.
        const held = await ch.exec("sleep 301 & echo started", { timeoutSec: 2 });
        assert.equal(held.timedOut, true);
        assert.equal(held.exitCode, 137);
        assert.equal(text(held.stdout), "started\n");
        const left = await processArgs(docker, id);
        assert.ok(!left.includes("sleep 301"), "the job that held the output was killed with the call");
        assert.ok(left.includes("sleep 302"));
      });
    },
  );

  dockerTest(name("the fallback (one docker exec per call) gives the same results"), async (docker) => {
    const script = "echo out; echo err >&2; printf 'x\\000y'; exit 5";
    const results: ReturnType<typeof summary>[] = [];
    const merged: string[] = [];
    for (const forceFallback of [false, true]) {
      await withVariant(docker, async (ch) => {
        assert.equal(ch.usingFallback, forceFallback);
        const r = await ch.exec(script);
        results.push(summary(r));
        assert.deepEqual([r.stdoutBytes, r.stderrBytes], [7, 4]);
        assert.deepEqual([...r.stdout], [...bytes("out\nx\0y")]);
        merged.push(text((await ch.exec("echo a; echo b >&2", { mergeStderr: true })).stdout));
        assert.equal(text((await ch.exec("pwd", { cwd: "/etc", shell: "sh" })).stdout), "/etc\n");
        const capped = await ch.exec("head -c 5000 /dev/zero", { maxOutputBytes: 10 });
        assert.deepEqual([capped.stdout.length, capped.stdoutBytes], [10, 5000]);
      }, { forceFallback });
    }
    assert.deepEqual(results[1], results[0]);
    assert.deepEqual(merged, ["a\nb\n", "a\nb\n"]);
  });

  dockerTest(name("recovers on the next call after the agent kills its server"), async (docker) => {
    await withVariant(docker, async (ch) => {
      const before = await ch.exec("echo $PPID");
      const serverPid = text(before.stdout).trim();
      assert.match(serverPid, /^\d+$/);
      for (const kill of ["pkill -9 -f pgs-ch", "kill -9 $PPID"]) {
        // The killing call itself may fail or not; the one after it must work.
        await ch.exec(kill, { timeoutSec: 20 }).catch(() => {});
        const r = await ch.exec("echo ok; echo $PPID");
        assert.equal(r.exitCode, 0, `after ${kill}`);
        const [ok, ppid] = text(r.stdout).trim().split("\n");
        assert.equal(ok, "ok");
        assert.notEqual(ppid, serverPid, `after ${kill}: the same server`);
        assert.equal(ch.usingFallback, false);
      }
    });
  });

  dockerTest(name("a command that kills the server is not run a second time"), async (docker) => {
    await withVariant(docker, async (ch) => {
      const r = await ch.exec("echo x >> /tmp/runs; kill -9 $PPID; sleep 1", { shell: "sh" });
      assert.equal(r.exitCode, 255);
      const count = await ch.exec("wc -l < /tmp/runs", { shell: "sh" });
      assert.equal(text(count.stdout).trim(), "1");
    });
  });

  dockerTest(name("a command lost with its server is killed with what it started"), async (docker) => {
    await withVariant(docker, async (ch, id) => {
      // Left running, it would go on into the next command (a fork bomb would hold the pids limit against it).
      const r = await ch.exec("sleep 303 & kill -9 $PPID; wait", { shell: "sh" });
      assert.equal(r.exitCode, 255);
      assert.ok(!(await processArgs(docker, id)).includes("sleep 303"), "the lost command's job still runs");
      assert.equal(text((await ch.exec("echo next")).stdout), "next\n");
    });
  });

  dockerTest(
    name("commands run as `/bin/sh -c` would (its $0 and error wording), long scripts too"),
    async (docker) => {
      await withVariant(docker, async (ch) => {
        const r = await ch.exec("echo $0; nosuchcmd", { shell: "sh", cwd: "/tmp" });
        assert.equal(text(r.stdout), "/bin/sh\n");
        assert.equal(text(r.stderr), "/bin/sh: 1: nosuchcmd: not found\n");
        const long = `x='${"y".repeat(150_000)}'; echo \${#x}; pwd`;
        const l = await ch.exec(long, { shell: "sh", cwd: "/tmp" });
        assert.equal(text(l.stdout), "150000\n/tmp\n");
        const spaced = await ch.exec("pwd", { shell: "sh", cwd: "/tmp/a dir" });
        assert.equal(spaced.exitCode, 1, "a missing directory fails the command");
      });
    },
  );
}

/** Every channel test runs once per variant: the image's `setsid` and `head`, then pgs' helper where it exists. */
channelSuite({ label: "" });
const helper = channelHelper("amd64");
if (helper) channelSuite({ label: " [helper]", helper });

dockerTest(
  "channel: where the helper cannot run (a noexec /tmp), setsid and head take over",
  async (docker) => {
    const c = await startContainer(docker, { extra: ["--tmpfs", "/tmp:rw,noexec"] });
    const ch = new ExecChannel(docker.box(c.id), { workdir: "/", helper: channelHelper("amd64") });
    try {
      const r = await ch.exec("echo out; echo err >&2; exit 3");
      assert.deepEqual(summary(r), { exitCode: 3, stdout: "out\n", stderr: "err\n", timedOut: false });
      assert.equal(ch.helperRunning, false);
      assert.equal(ch.processGroups, true, "setsid");
    } finally {
      await ch.close();
      await c.remove();
    }
  },
);

dockerTest("channel: after the agent deletes the helper, setsid and head take over", async (docker) => {
  const c = await startContainer(docker);
  const ch = new ExecChannel(docker.box(c.id), { workdir: "/", helper: channelHelper("amd64") });
  try {
    assert.equal((await ch.exec("rm -rf /tmp/.pgs-ch.*", { shell: "sh" })).exitCode, 0);
    assert.equal(ch.helperRunning, true);
    const r = await ch.exec("echo out; echo err >&2; exit 3");
    assert.deepEqual(summary(r), { exitCode: 3, stdout: "out\n", stderr: "err\n", timedOut: false });
    const t = await ch.exec("sleep 300 & sleep 300", { timeoutSec: 1 });
    assert.equal(t.timedOut, true);
    assert.deepEqual((await processArgs(docker, c.id)).filter((a) => a === "sleep 300"), [], "the group was killed");
  } finally {
    await ch.close();
    await c.remove();
  }
});
