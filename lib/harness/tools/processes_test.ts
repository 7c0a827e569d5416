/** The processes ops on a local environment: a command outliving its call, input, the exit code, the cap, a kill. */
import assert from "node:assert/strict";
import { LocalExecEnv } from "../../runtime/local_env.ts";
import { text } from "../../runtime/channel.ts";
import { OpError } from "./ops.ts";
import { hasProcess, killProcess, readProcess, startProcess } from "./processes.ts";

Deno.test("processes: a command outlives its call, takes input, and ends with its exit code", async () => {
  const box = await LocalExecEnv.create();
  try {
    const h = await startProcess(box, 'echo ready; read line; echo "got $line"; exit 4', { stdin: "pipe" });
    const first = await readProcess(box, h, 300);
    assert.equal(text(first.output), "ready\n");
    assert.equal(first.exitCode, null);
    const second = await readProcess(box, h, 5000, { input: "hello\n" });
    assert.equal(text(second.output), "got hello\n");
    assert.equal(second.exitCode, 4);
    assert.equal(hasProcess(box, h), false);
    await assert.rejects(readProcess(box, h, 0), (e) => e instanceof OpError && e.kind === "not_found");
  } finally {
    await box.remove();
  }
});

Deno.test("processes: a fast command returns at once; output past the cap keeps its head and tail", async () => {
  const box = await LocalExecEnv.create();
  try {
    // A sentinel started with the wait's own 30 s is still running after the read: it did not wait to the end.
    const sentinel = text((await box.exec("nohup sleep 30 >/dev/null 2>&1 & echo $!")).stdout).trim();
    const h = await startProcess(box, "seq 1 20000", { cwd: box.workdir });
    const r = await readProcess(box, h, 30_000, { maxBytes: 1000 });
    assert.equal((await box.exec(`kill ${sentinel}`)).exitCode, 0, "the read waited to the wait's end");
    assert.equal(r.exitCode, 0);
    assert.equal(r.output.length, 1000);
    assert.equal(r.omittedBytes, 108894 - 1000);
    assert.ok(text(r.output).startsWith("1\n2\n3\n"));
    assert.ok(text(r.output).endsWith("19999\n20000\n"));
    await assert.rejects(
      startProcess(box, "true", { cwd: "/nonexistent/dir" }),
      (e) => e instanceof OpError && e.kind === "not_found",
    );
  } finally {
    await box.remove();
  }
});

Deno.test("processes: a kill stops the process and its children", async () => {
  const box = await LocalExecEnv.create();
  try {
    const h = await startProcess(box, `sleep 300 & echo $! > ${box.scratch}/child; wait`);
    await readProcess(box, h, 200);
    await killProcess(box, h);
    const pid = (await Deno.readTextFile(`${box.scratch}/child`)).trim();
    await new Promise((r) => setTimeout(r, 200));
    // A zombie waiting for its reaper counts as gone.
    const alive = await box.exec(
      `s=$(cut -d' ' -f3 /proc/${pid}/stat 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ] && echo alive || echo gone`,
      { shell: "sh" },
    );
    assert.equal(text(alive.stdout), "gone\n");
  } finally {
    await box.remove();
  }
});

Deno.test("processes: stdin is closed unless asked for; a tty echoes input and ends lines with CRLF", async () => {
  const box = await LocalExecEnv.create();
  try {
    const closed = await startProcess(box, "cat; echo eof");
    const r = await readProcess(box, closed, 5000);
    assert.equal(text(r.output), "eof\n");
    const h = await startProcess(box, "sleep 60");
    await assert.rejects(
      readProcess(box, h, 0, { input: "x" }),
      (e) => e instanceof OpError && e.kind === "unsupported",
    );
    await killProcess(box, h);
    const t = await startProcess(box, 'read x; echo "[$x]"; [ -t 0 ] && echo tty', { stdin: "tty" });
    const out = await readProcess(box, t, 5000, { input: "hi\n" });
    assert.equal(text(out.output), "hi\r\n[hi]\r\ntty\r\n");
    assert.equal(out.exitCode, 0);
  } finally {
    await box.remove();
  }
});

Deno.test("processes: idleMs returns once the output stops growing, while the process goes on", async () => {
  const box = await LocalExecEnv.create();
  try {
    // Output for about 2 s, then 10 s of silence and a late line: an idle read of 1 s returns before the late line.
    const h = await startProcess(box, "for i in 1 2 3 4; do echo $i; sleep 0.5; done; sleep 10; echo late; sleep 60");
    const r = await readProcess(box, h, 60_000, { idleMs: 1000 });
    assert.equal(text(r.output), "1\n2\n3\n4\n", "the idle read returned on the silence, before the late line");
    assert.equal(r.exitCode, null);
    assert.equal(hasProcess(box, h), true);
    await killProcess(box, h);
  } finally {
    await box.remove();
  }
});
