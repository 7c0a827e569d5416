/**
 * openhands-sdk@1.43.1 against the fact sheet: the parameter schemas byte for byte, every tool's results and errors,
 * the persistent terminal and its timeout wording, name repair, the unknown-tool text, finish as the stop and the
 * answer (the oracle on the example tasks is in tests/profiles_suite_test.ts).
 */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import type { ProfileEpisode } from "../../lib/harness/profile_episode.ts";
import type { ChatMessage, TextPart } from "../../lib/harness/types.ts";
import { NUDGE, openhandsSdk } from "./mod.ts";
import { maybeTruncate, TIMEOUT_MESSAGE_TEMPLATE } from "./terminal.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import { call, EXAMPLE_TASKS, runTool, withEpisode } from "../../tests/profile_helpers.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "openhands-sdk");
const FIX = join(EXAMPLE_TASKS, "fix-word-count");
const ERR = "[An error occurred during execution.]\n";

const texts = (m: ChatMessage) => (m.content as TextPart[]).map((p) => p.text);
async function run(ep: ProfileEpisode, name: string, args: unknown, raw?: string): Promise<string[]> {
  const obs = await runTool(ep, name, args, raw, { message: true });
  // OpenHands' tool message: role, content, tool_call_id, and the name of the tool that ran (after name repair).
  assert.deepEqual(Object.keys(obs), ["role", "content", "tool_call_id", "name"]);
  assert.equal(obs.name, openhandsSdk().alias!(name, ["terminal", "file_editor", "finish", "think"]) ?? name);
  return texts(obs);
}
const one = async (ep: ProfileEpisode, name: string, args: unknown) => (await run(ep, name, args)).join("");

Deno.test("openhands-sdk: parameters are the fact sheet's dump, byte for byte, in the harness's order", async () => {
  const golden = JSON.parse(await Deno.readTextFile(resolve(GOLDEN, "parameters.json")));
  const p = openhandsSdk();
  assert.deepEqual(p.tools.map((t) => t.schema.function.name), ["terminal", "file_editor", "finish", "think"]);
  for (const t of p.tools) {
    assert.equal(JSON.stringify(t.schema.function.parameters), JSON.stringify(golden[t.schema.function.name]));
    assert.deepEqual(Object.keys(t.schema), ["type", "function"]);
  }
  assert.ok(p.tools[2].schema.function.description.startsWith("Signals the completion of the current task"));
});

Deno.test("openhands-sdk: profile shape, stop and answer rules, name repair, unknown tool, bad JSON", () => {
  const p = openhandsSdk();
  assert.equal(`${p.name}@${p.version}`, "openhands-sdk@1.43.1");
  assert.equal(p.emulates.seedPin, "1.55.1");
  assert.deepEqual(p.stop, { kind: "finish", tool: "finish", field: "message", endOnText: true });
  assert.deepEqual(p.answer, { kind: "stop_answer", fallback: "last_text" });
  assert.deepEqual(p.shell, { tool: "terminal", arg: "command" });
  const names = p.tools.map((t) => t.schema.function.name);
  assert.equal(p.alias!("bash", names), "terminal");
  assert.equal(p.alias!("execute_bash", names), "terminal");
  assert.equal(p.alias!("str_replace_editor", names), "file_editor");
  assert.equal(p.alias!("str_replace </parameter", names), "file_editor");
  assert.equal(p.alias!("browser", names), undefined);
  assert.deepEqual(p.unknownTool!("browser", names, {}), [{
    type: "text",
    text: "Tool 'browser' not found. Available: ['terminal', 'file_editor', 'finish', 'think']",
  }]);
  const bad = p.parseArguments!("{not json");
  assert.ok("error" in bad);
  assert.deepEqual(p.badArguments!("terminal", "{not json", bad.error), [{
    type: "text",
    text: "Error validating tool 'terminal': Expecting property name enclosed in double quotes: line 1 column 2 " +
      "(char 1). Arguments: unparseable JSON",
  }]);
  assert.equal(p.formatError!("no tool call", undefined as never), NUDGE);
  assert.ok(p.system.length < 1000);
  const t = maybeTruncate("x".repeat(40000), 30000);
  assert.equal(t.length, 30000);
  assert.ok(t.includes("<response clipped><NOTE>Due to the max output limit, only part of the full response"));
});

dockerTest("openhands-sdk: persistent terminal, exit codes, working directory, timeouts", async (docker) => {
  await withEpisode(docker, openhandsSdk(), FIX, async (ep) => {
    assert.deepEqual(
      await run(ep, "terminal", { command: "echo hi", summary: "say hi", security_risk: "LOW" }),
      [
        "hi\n[The command completed with exit code 0.]\n[Current working directory: /workdir]\n" +
        "[Python interpreter: " + (await pythonPath(ep)) + "]\n[Command finished with exit code 0]",
      ].map((s) => s.replace("[Python interpreter: ]\n", "")),
    );
    let out = await one(ep, "terminal", { command: "mkdir -p /tmp/x && cd /tmp/x && export FOO=bar" });
    assert.match(out, /^\n\[The command completed with exit code 0\.\]\n\[Current working directory: \/tmp\/x\]/);
    out = await one(ep, "terminal", { command: "pwd; echo $FOO; false" });
    assert.match(out, /^\/tmp\/x\nbar\n\[The command completed with exit code 1\.\]\n/);
    assert.ok(out.endsWith("[Command finished with exit code 1]"));
    // legacy name, git alias prefix
    out = await one(ep, "bash", { command: "echo legacy" });
    assert.match(out, /^legacy\n/);
    // A hard timeout returns with the harness's wording and no metadata lines; the command keeps running.
    out = await one(ep, "terminal", { command: "echo start; sleep 30", timeout: 2 });
    assert.equal(out, `start\n[The command timed out after 2.0 seconds. ${TIMEOUT_MESSAGE_TEMPLATE}]`);
    assert.deepEqual(await run(ep, "terminal", { command: "echo next" }), [
      ERR,
      `[Below is the output of the previous command.]\n\n[Your command "echo next" is NOT executed. The previous ` +
      "command is still running - You CANNOT send new commands until the previous command is completed. By " +
      `setting \`is_input\` to \`true\`, you can interact with the current process: ${TIMEOUT_MESSAGE_TEMPLATE}]`,
    ]);
    out = await one(ep, "terminal", { command: "C-c", is_input: true });
    assert.match(out, /\n\[The command completed with exit code 130\. CTRL\+C was sent\.\]\n/);
    assert.match(out, /\[Current working directory: \/tmp\/x\]/);
    // The no-change timeout (30 s without new output and without `timeout`); the shell is still there afterwards.
    out = await one(ep, "terminal", { command: "sleep 45; echo woke" });
    assert.equal(out, `\n[The command has no new output after 30 seconds. ${TIMEOUT_MESSAGE_TEMPLATE}]`);
    out = await one(ep, "terminal", { command: "", timeout: 20 });
    assert.match(out, /^woke\n\[The command completed with exit code 0\.\]\n\[Current working directory: \/tmp\/x\]/);
    // terminal_session.py checks the empty command first.
    assert.deepEqual(await run(ep, "terminal", { command: "", is_input: true }), [
      ERR,
      "No previous running command to retrieve logs from.",
    ]);
    assert.deepEqual(await run(ep, "terminal", { command: "y", is_input: true }), [
      ERR,
      "No previous running command to interact with.",
    ]);
    assert.deepEqual(await run(ep, "terminal", { command: "" }), [
      ERR,
      "No previous running command to retrieve logs from.",
    ]);
    assert.deepEqual(await run(ep, "terminal", { command: "x", is_input: true, reset: true }), [
      "Error executing tool 'terminal': Cannot use reset=True with is_input=True",
    ]);
    out = await one(ep, "terminal", { command: 'pwd; echo "[$FOO]"', reset: true });
    assert.match(out, /\n\/workdir\n\[\]\n\[The command completed with exit code 0\.\]/);
    out = await one(ep, "terminal", {});
    assert.match(
      out,
      /^Error validating tool 'terminal': 1 validation error for TerminalAction\ncommand\n {2}Field required/,
    );
    assert.ok(out.endsWith(". Parameters provided: []"));
    // unknown tool goes back as a tool message
    assert.deepEqual(await run(ep, "browser", { url: "x" }), [
      "Tool 'browser' not found. Available: ['terminal', 'file_editor', 'finish', 'think']",
    ]);
    assert.deepEqual(await run(ep, "ls", { path: "x" }), [
      "Tool 'ls' not found. Available: ['terminal', 'file_editor', 'finish', 'think']",
    ]);
    assert.match(await one(ep, "pwd", {}), /^\/workdir\n/);
  });
});

dockerTest("openhands-sdk: a long-running command keeps its session: more output, input, Ctrl-C", async (docker) => {
  await withEpisode(docker, openhandsSdk(), FIX, async (ep) => {
    // A command reading stdin: it prints, waits, and answers what is typed into its terminal.
    const script = 'echo ready; read -r name; echo "hello $name"; sleep 60';
    let out = await one(ep, "terminal", { command: script, timeout: 2 });
    assert.equal(out, `ready\n[The command timed out after 2.0 seconds. ${TIMEOUT_MESSAGE_TEMPLATE}]`);
    out = await one(ep, "terminal", { command: "pgs", is_input: true, timeout: 2 });
    // The terminal echoes the typed line, then the program's answer; the first read's output is not repeated.
    assert.equal(
      out,
      "[Below is the output of the previous command.]\npgs\nhello pgs\n" +
        `[The command timed out after 2.0 seconds. ${TIMEOUT_MESSAGE_TEMPLATE}]`,
    );
    out = await one(ep, "terminal", { command: "C-c", is_input: true, timeout: 10 });
    assert.match(out, /^\^C\n\[The command completed with exit code 130\. CTRL\+C was sent\.\]\n\[Current working/);
    // The session is free again, with its state.
    out = await one(ep, "terminal", { command: "export LATE=1; cd /tmp" });
    out = await one(ep, "terminal", { command: "echo $LATE; pwd" });
    assert.match(out, /^1\n\/tmp\n\[The command completed with exit code 0\.\]/);
    // reset kills a running command.
    await one(ep, "terminal", { command: "sleep 60", timeout: 1 });
    out = await one(ep, "terminal", { command: "echo fresh", reset: true });
    assert.match(out, /\nfresh\n\[The command completed with exit code 0\.\]/);
    const ps = await ep.session.exec("ps -eo args | grep -c '[s]leep 60' || true", { timeout: 10 });
    assert.equal(ps.stdout.trim(), "0", "no sleep left running");
  });
});

async function pythonPath(ep: ProfileEpisode): Promise<string> {
  const r = await ep.session.exec("which python 2>/dev/null || true", { timeout: 10 });
  return r.stdout.trim();
}

dockerTest("openhands-sdk: file_editor results and errors, think, finish", async (docker) => {
  await withEpisode(docker, openhandsSdk(), FIX, async (ep, _score) => {
    const fe = (args: Record<string, unknown>) => run(ep, "file_editor", args);
    assert.deepEqual(await fe({ command: "create", path: "/workdir/n.txt", file_text: "a\nb\nc\n" }), [
      "File created successfully at: /workdir/n.txt",
    ]);
    assert.deepEqual(await fe({ command: "view", path: "/workdir/n.txt" }), [
      "Here's the result of running `cat -n` on /workdir/n.txt:\n     1\ta\n     2\tb\n     3\tc\n     4\t\n",
    ]);
    assert.deepEqual(await fe({ command: "view", path: "/workdir/n.txt", view_range: [2, 9] }), [
      "NOTE: We only show up to 4 since there're only 4 lines in this file.\n" +
      "Here's the result of running `cat -n` on /workdir/n.txt:\n     2\tb\n     3\tc\n     4\t\n",
    ]);
    assert.deepEqual(await fe({ command: "view", path: "/workdir/n.txt", view_range: [9, 10] }), [
      ERR,
      "Invalid `view_range` parameter: [9, 10]. Its first element `9` should be within the range of lines of the " +
      "file: [1, 4].",
    ]);
    assert.deepEqual(await fe({ command: "create", path: "/workdir/n.txt", file_text: "x" }), [
      ERR,
      "Invalid `path` parameter: /workdir/n.txt. File already exists at: /workdir/n.txt. Cannot overwrite files " +
      "using command `create`.",
    ]);
    assert.deepEqual(await fe({ command: "view", path: "n.txt" }), [
      ERR,
      "Invalid `path` parameter: n.txt. The path should be an absolute path. Maybe you meant /workdir/n.txt?",
    ]);
    assert.deepEqual(await fe({ command: "view", path: "/workdir/missing" }), [
      ERR,
      "Invalid `path` parameter: /workdir/missing. The path /workdir/missing does not exist. Please provide a valid " +
      "path.",
    ]);
    assert.deepEqual(await fe({ command: "str_replace", path: "/workdir", old_str: "a", new_str: "b" }), [
      ERR,
      "Invalid `path` parameter: /workdir. The path /workdir is a directory and only the `view` command can be used " +
      "on directories.",
    ]);
    assert.deepEqual(await fe({ command: "str_replace", path: "/workdir/n.txt", old_str: "zz", new_str: "y" }), [
      ERR,
      "No replacement was performed, old_str `zz` did not appear verbatim in /workdir/n.txt.",
    ]);
    assert.deepEqual(await fe({ command: "str_replace", path: "/workdir/n.txt", old_str: "b", new_str: "b" }), [
      ERR,
      "Invalid `new_str` parameter: b. No replacement was performed. `new_str` and `old_str` must be different.",
    ]);
    assert.deepEqual(await fe({ command: "str_replace", path: "/workdir/n.txt", old_str: "b" }), [
      ERR,
      "Parameter `new_str` is required for command: str_replace.",
    ]);
    assert.deepEqual(await fe({ command: "str_replace", path: "/workdir/n.txt", old_str: "\n", new_str: "-" }), [
      ERR,
      "No replacement was performed. Multiple occurrences of old_str `\n` in lines [1, 2, 3]. Please ensure it is " +
      "unique.",
    ]);
    assert.deepEqual(await fe({ command: "str_replace", path: "/workdir/n.txt", old_str: "b", new_str: "B" }), [
      "The file /workdir/n.txt has been edited. Here's the result of running `cat -n` on a snippet of " +
      "/workdir/n.txt:\n     1\ta\n     2\tB\n     3\tc\n     4\t\n" +
      "Review the changes and make sure they are as expected. Edit the file again if necessary.",
    ]);
    // legacy name, command inferred from the arguments
    assert.deepEqual(await run(ep, "str_replace_editor", { path: "/workdir/n.txt", insert_line: 1, new_str: "ins" }), [
      "The file /workdir/n.txt has been edited. Here's the result of running `cat -n` on a snippet of the edited " +
      "file:\n     1\ta\n     2\tins\n     3\tB\n     4\tc\n     5\t\n" +
      "Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit " +
      "the file again if necessary.",
    ]);
    assert.deepEqual(await fe({ command: "insert", path: "/workdir/n.txt", insert_line: 9, new_str: "x" }), [
      ERR,
      "Invalid `insert_line` parameter: 9. It should be within the range of allowed values: [0, 5]",
    ]);
    assert.deepEqual(await fe({ command: "undo_edit", path: "/workdir/n.txt" }), [
      "Last edit to /workdir/n.txt undone successfully. Here's the result of running `cat -n` on /workdir/n.txt:\n" +
      "     1\ta\n     2\tB\n     3\tc\n     4\t\n",
    ]);
    await fe({ command: "undo_edit", path: "/workdir/n.txt" });
    // create recorded its own text (editor.py adds file_text to the history), so a third undo rewrites it.
    assert.deepEqual(await fe({ command: "undo_edit", path: "/workdir/n.txt" }), [
      "Last edit to /workdir/n.txt undone successfully. Here's the result of running `cat -n` on /workdir/n.txt:\n" +
      "     1\ta\n     2\tb\n     3\tc\n     4\t\n",
    ]);
    assert.deepEqual(await fe({ command: "undo_edit", path: "/workdir/n.txt" }), [
      ERR,
      "No edit history found for /workdir/n.txt.",
    ]);
    // Twelve edits: undo walks back ten of them (max_history_per_file=10), then finds nothing.
    for (let i = 0; i < 12; i++) {
      await fe({ command: "str_replace", path: "/workdir/n.txt", old_str: "a", new_str: `a${i}-` });
    }
    for (let i = 0; i < 10; i++) await fe({ command: "undo_edit", path: "/workdir/n.txt" });
    assert.equal(
      await ep.session.box.exec("head -1 /workdir/n.txt").then((r) => new TextDecoder().decode(r.stdout)),
      "a1-0-\n",
    );
    assert.deepEqual(await fe({ command: "undo_edit", path: "/workdir/n.txt" }), [
      ERR,
      "No edit history found for /workdir/n.txt.",
    ]);
    const dir = (await fe({ command: "view", path: "/workdir" })).join("");
    assert.ok(dir.startsWith("Here's the files and directories up to 2 levels deep in /workdir, excluding hidden"));
    assert.ok(dir.includes("\n/workdir/wc.py"));
    const bad = (await fe({ command: "delete", path: "/workdir/n.txt" })).join("");
    assert.match(bad, /^Error validating tool 'file_editor': 1 validation error for FileEditorAction\ncommand\n/);
    assert.ok(bad.includes("Input should be 'view', 'create', 'str_replace', 'insert' or 'undo_edit'"));
    assert.ok(bad.endsWith(". Parameters provided: ['command', 'path']"));
    assert.match(
      (await fe({})).join(""),
      /^Error validating tool 'file_editor': Cannot infer 'command' for tool 'file_editor' from empty arguments \{\}/,
    );
    assert.deepEqual(await run(ep, "think", { thought: "hmm" }), ["Your thought has been logged."]);
    // an empty reply gets the nudge; the episode goes on
    const r = await ep.step({ content: "" });
    assert.equal(r.done, false);
    assert.deepEqual(r.observations, [{ role: "user", content: NUDGE }]);
    // finish ends the episode; calls after it in the same turn are dropped; its message is the answer
    const end = await ep.step({
      content: "",
      tool_calls: [call("finish", { message: "All done: 42" }), call("terminal", { command: "touch /tmp/nope" })],
    });
    assert.equal(end.done, true);
    assert.deepEqual(end.observations, []);
    assert.equal(ep.answer(), "All done: 42");
  });
});

// The oracle on the example tasks (through terminal and finish) is in tests/profiles_suite_test.ts.
