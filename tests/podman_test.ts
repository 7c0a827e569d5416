/**
 * What lib/runtime/podman/ changes from Docker's driver, against a real podman (engine tier): working directories the
 * image lacks, copies that keep owners both ways (and stay inside the copied tree when the box's tar lies), the
 * fallback to `podman cp`, failed starts and orphans leaving nothing, and the examples valid under podman. Ignored
 * with the reason in their names when podman does not answer or lacks pgs-base:1, unless PGS_REQUIRE_RUNTIMES names
 * podman (as runtime_helpers.ts reads it).
 */
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { Podman } from "../lib/runtime/podman/mod.ts";
import type { Box, BoxSpec } from "../lib/runtime/runtime.ts";
import { BoxStartError } from "../lib/runtime/runtime.ts";
import { copyFromAgent } from "../lib/verify/container_copy.ts";
import { tarArchive } from "../lib/base/tar.ts";
import { checkTasks } from "../lib/harbor/check.ts";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { scriptPolicy } from "../lib/policies/policy.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { makeTask, removeTask, uniqueName } from "./docker_helpers.ts";
import { ciTest, TIER } from "./tier.ts";
import { RUNTIMES } from "./runtime_helpers.ts";
import { pgs } from "./eval_helpers.ts";

/** podman as this machine has it (`runtime_helpers.ts`: answers, with pgs-base:1 made or said why not). */
const probed = RUNTIMES.find((r) => r.name === "podman");

/**
 * An engine test of podman (`ci` tier, whether or not Docker answers): ignored with the reason in its name where podman
 * does not answer or lacks pgs-base:1, unless PGS_REQUIRE_RUNTIMES names it (then it fails with the reason).
 */
function podmanTest(name: string, fn: (podman: Podman) => Promise<void>): void {
  if (TIER !== "ci" || !probed) return;
  if (probed.absent) {
    ciTest({ name: `podman (skipped: ${probed.absent}): ${name}`, ignore: true, fn: () => {} });
    return;
  }
  ciTest({ name: `podman: ${name}` }, async () => {
    if (probed.problem) throw new Error(probed.problem);
    const podman = new Podman(Deno.env.get("CONTAINER_HOST") || undefined);
    try {
      await fn(podman);
    } finally {
      await podman.removeOwn();
    }
  });
}

const dec = new TextDecoder();
const enc = new TextEncoder();
const out = (r: { stdout: Uint8Array }) => dec.decode(r.stdout).trim();

function spec(over: Partial<BoxSpec> = {}): BoxSpec {
  return {
    image: "pgs-base:1",
    limits: { cpus: 1, memoryMb: 256, pidsLimit: 128 },
    role: "test",
    task: uniqueName("podman"),
    workdir: "/",
    command: ["sleep", "infinity"],
    ...over,
  };
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Each member's name and owner (`uid:gid`) in a plain ustar/GNU archive. */
function owners(tar: Uint8Array): Record<string, string> {
  const found: Record<string, string> = {};
  for (let off = 0; off + 512 <= tar.length;) {
    const h = tar.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    const str = (a: number, n: number) => dec.decode(h.subarray(a, a + n)).replace(/\0.*$/s, "").trim();
    const size = parseInt(str(124, 12) || "0", 8);
    found[str(0, 100).replace(/\/$/, "")] = `${parseInt(str(108, 8), 8)}:${parseInt(str(116, 8), 8)}`;
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return found;
}

async function run(box: Box, script: string): Promise<string> {
  const r = await box.exec(["sh", "-c", script], { user: "0" });
  assert.equal(r.code, 0, `${script}: ${r.stderr}`);
  return out(r);
}

podmanTest("a box starts in a working directory its image lacks, made as Docker makes it", async (podman) => {
  const modes: Record<string, string> = { "/no/such/dir": "0:0:755", "/tmp": "0:0:1777", "/": "0:0:555" };
  for (const [workdir, mode] of Object.entries(modes)) {
    const box = await podman.start(spec({ workdir }));
    assert.equal(await run(box, "pwd; stat -c %u:%g:%a ."), `${workdir}\n${mode}`);
    await box.remove();
  }
});

podmanTest(
  "a box of an image whose WORKDIR is the folder runs that image itself (podman refuses -w there)",
  async (podman) => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_podman_wd_" });
    const tag = `pgs-podman-wd:${crypto.randomUUID().slice(0, 8)}`;
    try {
      await Deno.writeTextFile(`${dir}/Dockerfile`, "FROM pgs-base:1\nWORKDIR /srv/project\n");
      assert.deepEqual(await podman.buildImage(dir, tag, 120_000), { ok: true });
      const box = await podman.start(spec({ image: tag, workdir: "/srv/project/" }));
      assert.equal(await run(box, "pwd"), "/srv/project");
      const image = out(await podman.call(["inspect", "--format", "{{.ImageName}}", box.id]));
      assert.equal(image, `localhost/${tag}`);
      await box.remove();
    } finally {
      await podman.removeImage(tag);
      await Deno.remove(dir, { recursive: true });
    }
  },
);

podmanTest("copies keep the archive's owners into a box and the box's owners out of it", async (podman) => {
  const box = await podman.start(spec());
  const tar = tarArchive([
    { name: "tree", type: "dir", mode: 0o755, uid: 1234, gid: 999 },
    { name: "tree/f", type: "file", mode: 0o640, uid: 1234, gid: 999, data: enc.encode("hi\n") },
  ]);
  assert.deepEqual(await box.putArchive("/tmp", tar), { ok: true });
  assert.equal(await run(box, "stat -c %u:%g:%a /tmp/tree /tmp/tree/f"), "1234:999:755\n1234:999:640");
  await run(box, "mkdir -p /srv/w && echo x > /srv/w/g && chown -R 4321:77 /srv/w");
  const read = box.getArchive("/srv/w");
  const bytes = await bytesOf(read.stream);
  assert.deepEqual(await read.done, { ok: true });
  assert.deepEqual(owners(bytes), { "w": "4321:77", "w/g": "4321:77" });
  const missing = box.getArchive("/srv/none");
  await bytesOf(missing.stream);
  const done = await missing.done;
  assert.equal(done.ok, false);
  assert.equal(done.ok === false && done.missing, true);
});

podmanTest(
  "a read whose reader gives up still says what the box gave (the reader's failure is not the box's)",
  async (podman) => {
    const box = await podman.start(spec());
    await run(box, "mkdir -p /srv/w && seq 1 20000 > /srv/w/big");
    const read = box.getArchive("/srv/w");
    const reader = read.stream.getReader();
    await reader.read();
    await reader.cancel();
    assert.deepEqual(await read.done, { ok: true });
  },
);

podmanTest("a box that cannot run tar (stopped) is still read, through podman cp", async (podman) => {
  const box = await podman.start(spec());
  await run(box, "mkdir -p /srv/w && echo kept > /srv/w/g");
  await box.exec(["sh", "-c", "kill -9 -1"], { user: "0" });
  for (let i = 0; i < 50 && (await box.state()).status === "running"; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal((await box.state()).status, "stopped");
  const read = box.getArchive("/srv/w");
  const bytes = await bytesOf(read.stream);
  assert.deepEqual(await read.done, { ok: true });
  assert.ok(Object.keys(owners(bytes)).includes("w/g"));
});

podmanTest("a box whose tar was replaced cannot plant files outside the tree copied from it", async (podman) => {
  const agent = await podman.start(spec());
  const verifier = await podman.start(spec());
  // The agent's `tar` archives a `.pgs-tests/test.sh` of its own instead of the working directory.
  await run(
    agent,
    `mkdir -p /work /evil/.pgs-tests && echo 'echo 1 > /logs/verifier/reward.txt' > /evil/.pgs-tests/test.sh
     printf '#!/bin/sh\\ncd /evil && exec /bin/tar -cf - .pgs-tests\\n' > /usr/local/bin/tar && chmod +x /usr/local/bin/tar`,
  );
  await run(verifier, "mkdir -p /stage");
  const failed = await copyFromAgent(agent, "/work", verifier, "/stage");
  assert.equal(failed?.side, "agent");
  assert.match(failed!.error, /outside work/);
  assert.equal(await run(verifier, "ls -A /stage | wc -l"), "0");
});

podmanTest("a box that fails to start leaves no container behind", async (podman) => {
  const s = spec({ user: "no-such-user-p28" });
  await assert.rejects(() => podman.start(s), BoxStartError);
  const r = await podman.call(["ps", "-aq", "--filter", `label=pgs.task=${s.task}`]);
  assert.equal(out(r), "");
});

podmanTest("the sweep removes boxes of pgs processes that are gone, and boxes stop at once", async (podman) => {
  const task = uniqueName("orphan");
  const labels = { "pgs": "1", "pgs.host": hostname(), "pgs.pid": "999999999", "pgs.pid-start": "1", "pgs.task": task };
  const made = await podman.call([
    "run",
    "-d",
    "--stop-timeout=0", // as every box pgs starts on podman
    ...Object.entries(labels).flatMap(([k, v]) => ["--label", `${k}=${v}`]),
    "pgs-base:1",
    "sleep",
    "infinity",
  ]);
  const orphan = out(made);
  assert.equal(made.code, 0, made.stderr);
  try {
    const swept = await podman.sweepOrphans();
    assert.ok(swept.some((id) => orphan.startsWith(id)), `${orphan} not in ${swept}`);
    assert.equal(out(await podman.call(["ps", "-aq", "--filter", `label=pgs.task=${task}`])), "");
  } finally {
    await podman.call(["rm", "-f", "-t", "0", orphan]);
  }
  const box = await podman.start(spec());
  assert.equal(out(await podman.call(["inspect", "--format", "{{.Config.StopTimeout}}", box.id])), "0");
});

podmanTest(
  "shared verifier: a box that stopped unseen after the last command is started again and judged",
  async (podman) => {
    registerBuiltins();
    // Harbor's layout (no environment/workdir/): the shared verifier, in the agent's own box.
    const dir = await makeTask({
      "task.toml": `[environment]\ndocker_image = "pgs-base:1"\n`,
      "tests/test.sh": `#!/bin/bash\n[ "$(cat /workdir/answer.txt)" = 42 ] && echo 1 > /logs/verifier/reward.txt\n`,
    });
    try {
      const name = (await Deno.readTextFile(`${dir}/task.toml`)).match(/name = "([^"]+)"/)![1];
      const bash = (command: string) => ({ tool_calls: [{ name: "bash", arguments: { command } }] });
      const policy = scriptPolicy([bash("mkdir -p /workdir && echo 42 > /workdir/answer.txt"), {
        tool_calls: [{ name: "submit", arguments: {} }],
      }]);
      const killer = {
        ...policy,
        async turn(req: Parameters<typeof policy.turn>[0]) {
          // The box stops between the last command and the verifier, where no exec of the episode sees it.
          if (req.turn === 1) {
            const ids = out(await podman.call(["ps", "-q", "--filter", `label=pgs.task=${name}`])).split("\n");
            for (const id of ids.filter(Boolean)) await podman.call(["kill", id]);
          }
          return await policy.turn(req);
        },
      };
      const [[t]] = await runEpisodes(killer, [{ task_dir: dir }], {}, { hosts: [{ runtime: podman }] });
      assert.equal(t.verifier_mode, "shared");
      assert.deepEqual([t.reward, t.metrics["metric/container_dead"]], [1, 1], t.error);
    } finally {
      await removeTask(dir);
    }
  },
);

podmanTest("harbor check: the example tasks are valid under podman, and nothing is left", async (podman) => {
  registerBuiltins();
  const base = new URL("../examples/tasks/", import.meta.url).pathname;
  const dirs = [...Deno.readDirSync(base)].filter((e) => e.isDirectory).map((e) => base + e.name).sort();
  const results = await checkTasks(dirs, { runtime: podman, workers: 2 });
  assert.deepEqual(results.filter((r) => !r.valid).map((r) => `${r.name}: ${r.error}`), []);
  assert.equal(results.length, 4);
  assert.deepEqual(podman.tracked(), []);
});

/** Copies of the example tasks named `pgs-test/podman-cli-<unique>-NAME`, so that their boxes can be told from other tests' ones. */
async function examplesCopy(): Promise<{ dir: string; names: string[] }> {
  const dir = await Deno.makeTempDir({ prefix: "pgs_podman_examples_" });
  const stem = uniqueName("podman-cli");
  const base = new URL("../examples/tasks/", import.meta.url).pathname;
  const names: string[] = [];
  for (const e of [...Deno.readDirSync(base)].filter((e) => e.isDirectory)) {
    await new Deno.Command("cp", { args: ["-r", base + e.name, `${dir}/${e.name}`] }).output();
    const toml = `${dir}/${e.name}/task.toml`;
    const name = `${stem}-${e.name}`;
    await Deno.writeTextFile(toml, (await Deno.readTextFile(toml)).replace(/^name = ".*"$/m, `name = "${name}"`));
    names.push(name);
  }
  return { dir, names };
}

podmanTest("the CLI's --runtime podman: harbor check finds 4/4, eval scores, and no box is left", async (podman) => {
  const { dir, names } = await examplesCopy();
  try {
    const check = await pgs(["harbor", "check", dir, "--runtime", "podman", "--json"]);
    assert.equal(check.code, 0, check.stderr);
    assert.deepEqual(JSON.parse(check.stdout).map((r: { valid: boolean }) => r.valid), [true, true, true, true]);
    const run = await pgs([
      "eval",
      "--tasks",
      `${dir}/count-error-lines`,
      "--policy",
      "oracle",
      "--profiles",
      "opencode=1,pi=1",
      "--cross",
      "--runtime",
      "podman",
      "--out",
      `${dir}/run`,
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.deepEqual([summary.overall.episodes, summary.overall["pass@1"]], [2, 1]);
    // Other tests run podman boxes at the same time: these runs' boxes are told apart by their tasks' names.
    for (const name of names) {
      assert.equal(out(await podman.call(["ps", "-aq", "--filter", `label=pgs.task=${name}`])), "", name);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const bad = await pgs(["harbor", "check", "examples/tasks", "--runtime", "podmn"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^pgs: harbor check: --runtime must be one of docker, podman, got "podmn"\n$/);
});

podmanTest("a podman service that does not answer is named as podman's in the engine-down error", async () => {
  const gone = new Podman("unix:///nonexistent/pgs-podman.sock");
  await assert.rejects(
    () => gone.assertAnswering("start"),
    (e: Error) =>
      /^the podman engine at unix:\/\/\/nonexistent\/pgs-podman\.sock stopped answering during start/.test(e.message),
  );
});
