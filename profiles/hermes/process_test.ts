/**
 * hermes@main-e6899c8's long-running commands in a real container: `terminal(background=true)` answers at once with a
 * `proc_` session id, the `process` tool polls (output so far, "running"), waits (exit code, or a timeout note),
 * reads the log, writes to a PTY session's stdin, closes it, kills, lists, resolves id prefixes and answers unknown
 * ids and actions in hermes' words; the foreground guard and timeout rejection point at background=true.
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { hermes } from "./mod.ts";
import { backgroundHint, foregroundGuidance } from "./background.ts";
import { pyDumps } from "./json.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import { EXAMPLE_TASKS, runTool, withEpisode } from "../../tests/profile_helpers.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HINT_START = "background=true without notify_on_complete=true means this process runs SILENTLY";

Deno.test("hermes: the foreground guard and the background hints", () => {
  assert.match(foregroundGuidance("nohup python app.py")!, /^Foreground command uses shell-level background wrappers/);
  assert.match(foregroundGuidance("make && ./server &")!, /^Foreground command uses '&' backgrounding/);
  assert.match(foregroundGuidance("sleep 1 & # later\n")!, /^Foreground command uses '&' backgrounding/);
  assert.match(foregroundGuidance("npm run dev")!, /appears to start a long-lived server\/watch process/);
  for (const ok of ["uvicorn --help", "echo 'nohup &'", "cmd 2>&1 | tee log", "a && b", 'git commit -m "setsid"']) {
    assert.equal(foregroundGuidance(ok), undefined, ok);
  }
  assert.ok(backgroundHint("pytest -x").startsWith(HINT_START));
  assert.ok(!backgroundHint("pytest -x").includes("\n\n"));
  const ci = backgroundHint("while true; do gh pr checks 12 | jq .; sleep 30; done");
  assert.match(ci, /\n\nThis looks like a homebrewed CI poller/);
  assert.ok(ci.includes(String.raw`(` + "`" + String.raw`awk -F"\t" "$2==\"pending\""` + "`" + ") for sharded"));
});

dockerTest("hermes: background commands and the process tool", async (docker) => {
  await withEpisode(docker, hermes(), resolve(EXAMPLE_TASKS, "fix-word-count"), async (ep) => {
    const run = (name: string, args: unknown) => runTool(ep, name, args);
    const start = async (args: Record<string, unknown>) => {
      const r = JSON.parse(await run("terminal", { ...args, background: true }));
      assert.deepEqual(Object.keys(r), ["output", "session_id", "pid", "exit_code", "error", "hint"]);
      assert.equal(r.output, "Background process started");
      assert.match(r.session_id, /^proc_[0-9a-f]{12}$/);
      assert.ok(Number.isInteger(r.pid) && r.pid > 0);
      assert.deepEqual([r.exit_code, r.error], [0, null]);
      assert.ok(r.hint.startsWith(HINT_START));
      return r as { session_id: string; pid: number };
    };

    // The session's directory carries over, its exports do not (hermes starts the process from its own env).
    await run("terminal", { command: "mkdir -p /tmp/hb && cd /tmp/hb && export HX=42" });
    // The call answers without waiting for the command: the poll below still finds it running, before "done".
    const bg = await start({ command: 'pwd; echo "hx=$HX"; echo err >&2; sleep 2; echo done; exit 3' });
    await sleep(300);
    const cmd = 'pwd; echo \\"hx=$HX\\"; echo err >&2; sleep 2; echo done; exit 3';
    const polled = JSON.parse(await run("process", { action: "poll", session_id: bg.session_id }));
    assert.equal(
      pyDumps(polled),
      `{"session_id": "${bg.session_id}", "command": "${cmd}", "status": "running", "pid": ${bg.pid}, ` +
        `"uptime_seconds": ${polled.uptime_seconds}, "output_preview": "/tmp/hb\\nhx=\\nerr\\n"}`,
    );
    // Without a PTY the process's stdin is /dev/null.
    assert.equal(
      await run("process", { action: "write", session_id: bg.session_id, data: "x" }),
      '{"status": "error", "error": "Process stdin not available (non-local backend or stdin closed)"}',
    );
    // `exit` in hermes' login shell (`bash -lic`) says "logout".
    assert.equal(
      await run("process", { action: "wait", session_id: bg.session_id, timeout: 10 }),
      `{"status": "exited", "command": "${cmd}", "exit_code": 3, "completion_reason": "exited", ` +
        `"termination_source": "", "output": "/tmp/hb\\nhx=\\nerr\\ndone\\nlogout\\n"}`,
    );
    // A unique prefix of the id's hex digits names the session too.
    const after = JSON.parse(await run("process", { action: "poll", session_id: bg.session_id.slice(5, 10) }));
    assert.deepEqual([after.status, after.exit_code, after.completion_reason], ["exited", 3, "exited"]);
    assert.equal(
      await run("process", { action: "log", session_id: bg.session_id, offset: 1, limit: 2 }),
      `{"session_id": "${bg.session_id}", "command": "${cmd}", "status": "exited", "output": "hx=\\nerr", ` +
        `"total_lines": 5, "showing": "2 lines"}`,
    );
    assert.match(
      await run("process", { action: "log", session_id: bg.session_id }),
      /"total_lines": 5, "showing": "5 lines"}$/,
    );
    assert.equal(
      await run("process", { action: "write", session_id: bg.session_id, data: "x" }),
      '{"status": "already_exited", "error": "Process has already finished"}',
    );

    // A PTY session reads what write and submit send (echoed by the terminal); close sends EOF.
    const tty = await start({ command: 'read -r x; echo "got:$x"; cat; echo end', pty: true });
    assert.equal(
      await run("process", { action: "write", session_id: tty.session_id, data: "hel" }),
      '{"status": "ok", "bytes_written": 3}',
    );
    assert.equal(
      await run("process", { action: "submit", session_id: tty.session_id, data: "lo" }),
      '{"status": "ok", "bytes_written": 3}',
    );
    await sleep(300);
    assert.equal(
      await run("process", { action: "close", session_id: tty.session_id }),
      '{"status": "ok", "message": "EOF sent"}',
    );
    const ended = JSON.parse(await run("process", { action: "wait", session_id: tty.session_id, timeout: 5 }));
    assert.deepEqual([ended.status, ended.exit_code], ["exited", 0]);
    assert.match(ended.output, /^hello\r\ngot:hello\r\n[\s\S]*end\r\n$/);

    // wait's timeout, its clamp and its floor; kill.
    const long = await start({ command: "echo up; sleep 30" });
    const waited = JSON.parse(await run("process", { action: "wait", session_id: long.session_id, timeout: 1 }));
    assert.deepEqual(Object.keys(waited), ["status", "command", "output", "process_running", "timeout_note"]);
    assert.deepEqual([waited.status, waited.output, waited.process_running], ["timeout", "up\n", true]);
    assert.match(
      waited.timeout_note,
      /^Wait window of 1s elapsed — the process is still running\. This is not an error\. Uptime: \d+s\. Poll again later or use terminal\(background=true, notify_on_complete=true\) next time for automatic notification\.$/,
    );
    assert.equal(
      await run("process", { action: "wait", session_id: long.session_id, timeout: 0 }),
      '{"status": "error", "error": "timeout must be positive (got 0)"}',
    );
    assert.equal(
      await run("process", { action: "kill", session_id: long.session_id }),
      `{"status": "killed", "session_id": "${long.session_id}", "completion_reason": "killed", ` +
        `"termination_source": "process.kill", "output": "up\\n"}`,
    );
    assert.equal(
      await run("process", { action: "kill", session_id: long.session_id }),
      `{"status": "already_exited", "command": "echo up; sleep 30", "exit_code": -15, "completion_reason": "killed", ` +
        `"termination_source": "process.kill", "output": "up\\n"}`,
    );
    const quick = await start({ command: "true" });
    assert.match(
      await run("process", { action: "wait", session_id: quick.session_id, timeout: 500 }),
      /"exit_code": 0, .*"output": "", "timeout_note": "Requested wait of 500s was clamped to configured limit of 180s"}$/,
    );

    // list: every session, oldest first, with the directory it started in.
    const listed = JSON.parse(await run("process", { action: "list" }));
    assert.deepEqual(
      listed.processes.map((p: Record<string, unknown>) => [p.session_id, p.status, p.exit_code, p.cwd]),
      [
        [bg.session_id, "exited", 3, "/tmp/hb"],
        [tty.session_id, "exited", 0, "/tmp/hb"],
        [long.session_id, "exited", -15, "/tmp/hb"],
        [quick.session_id, "exited", 0, "/tmp/hb"],
      ],
    );
    assert.deepEqual(Object.keys(listed.processes[0]), [
      "session_id",
      "command",
      "cwd",
      "pid",
      "started_at",
      "uptime_seconds",
      "status",
      "output_preview",
      "exit_code",
    ]);
    assert.match(listed.processes[0].started_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);

    // Errors in hermes' words.
    assert.equal(
      await run("process", { action: "poll", session_id: "proc_nope" }),
      '{"status": "not_found", "error": "No process with ID proc_nope"}',
    );
    assert.equal(await run("process", { action: "poll" }), '{"error": "session_id is required for poll"}');
    assert.equal(
      await run("process", { action: "stop", session_id: bg.session_id }),
      '{"error": "Unknown process action: stop. Use: list, poll, log, wait, kill, write, submit, close"}',
    );

    // The foreground turns long-lived commands towards background=true; a background call takes any timeout.
    assert.equal(
      await run("terminal", { command: "python3 -m http.server 8000" }),
      '{"output": "", "exit_code": -1, "error": "This foreground command appears to start a long-lived server/watch ' +
        "process. Run it with background=true, verify readiness (health endpoint/log signal), then execute tests in " +
        'a separate command.", "status": "error"}',
    );
    assert.equal(
      await run("terminal", { command: "sleep 1", timeout: 700 }),
      '{"error": "Foreground timeout 700s exceeds the maximum of 600s. Use background=true with ' +
        'notify_on_complete=true for long-running commands."}',
    );
    const slow = await start({ command: "sleep 0.2", timeout: 700 });
    assert.match(await run("process", { action: "wait", session_id: slow.session_id }), /^\{"status": "exited", /);
  });
});
