/**
 * claude-code@2.1.332: schemas as recorded (tests/golden/claude-code/tools.json), the first request in chat form
 * (system prompt, the user's two parts, the environment after them), the episode's hook for notes after tool results,
 * and exact results on a real container (Read, Edit, Write, Bash, sizes and caps as recorded). The recorded episode
 * replays call by call in tests/conformance_fixtures_test.ts; the oracle is in tests/profiles_suite_test.ts.
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { claudeCode } from "./mod.ts";
import { formatSize, tidyOutput } from "./bash.ts";
import { BASH } from "./schemas.ts";
import { inputError } from "./validate.ts";
import type { HarnessProfile } from "../../lib/harness/types.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import {
  assertApprox,
  call,
  EXAMPLE_TASKS,
  runTool,
  withEpisode,
  withLocalEpisode,
} from "../../tests/profile_helpers.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "claude-code");
const FIX = resolve(EXAMPLE_TASKS, "fix-word-count");
const text = (c: unknown) => typeof c === "string" ? c : (c as { text: string }[]).map((p) => p.text).join("");

Deno.test("claude-code: the tools are the recorded ones, parameters exact, in the recorded order", async () => {
  const recorded = JSON.parse(await Deno.readTextFile(resolve(GOLDEN, "tools.json"))) as {
    name: string;
    input_schema: Record<string, unknown>;
  }[];
  const p = claudeCode();
  const kept = recorded.filter((t) => !p.omittedTools!.includes(t.name));
  assert.deepEqual(p.tools.map((t) => t.schema.function.name), kept.map((t) => t.name));
  assert.deepEqual(recorded.map((t) => t.name).filter((n) => !kept.some((k) => k.name === n)), p.omittedTools);
  // Key order too: the request's JSON keeps it.
  assert.equal(
    JSON.stringify(p.tools.map((t) => t.schema.function.parameters)),
    JSON.stringify(kept.map((t) => t.input_schema)),
  );
});

Deno.test("claude-code: the first request is system, the user's two parts, then the environment", async () => {
  const first = JSON.parse((await Deno.readTextFile(resolve(GOLDEN, "episode", "requests.jsonl"))).split("\n")[0]);
  await withLocalEpisode(claudeCode(), FIX, async (ep) => {
    assert.deepEqual(ep.messages.map((m) => m.role), ["system", "user", "system"]);
    const parts = ep.messages[1].content as { text: string }[];
    assert.equal(parts.length, 2);
    assert.equal(parts[0].text, first.messages[0].content[0].text, "the attribution reminder, verbatim");
    assert.equal(parts[1].text, first.messages[0].content[1].text, "the instruction, whole");
    const env = text(ep.messages[2].content);
    const uname = new TextDecoder().decode((await new Deno.Command("uname", { args: ["-sr"] }).output()).stdout).trim();
    assert.ok(
      env.startsWith(
        "# Environment\nYou have been invoked in the following environment: \n" +
          ` - Primary working directory: ${ep.session.workdir}\n - Is a git repository: false\n - Platform: linux\n` +
          ` - Shell: bash\n - OS Version: ${uname}\n`,
      ),
      env,
    );
    assert.match(env, /\nYou are powered by the model stub-model\.\n/);
    assert.ok(env.endsWith(`\n\nToday's date is ${new Date().toISOString().slice(0, 10)}.`));
    assert.equal(claudeCode().postlude?.[0].paraphrased, true);
    // The history re-sends Edit's input as claude-code parsed it: `replace_all` first, wherever the model put it.
    const edit = { file_path: "x.txt", old_string: "a", new_string: "b", replace_all: true };
    await ep.step({ content: "", tool_calls: [call("Edit", edit), call("Bash", { command: "true" })] });
    const echoed = ep.messages.findLast((m) => m.role === "assistant")!.tool_calls!;
    assert.equal(
      echoed[0].function.arguments,
      '{"replace_all":true,"file_path":"x.txt","old_string":"a","new_string":"b"}',
    );
    assert.equal(echoed[1].function.arguments, '{"command":"true"}');
  });
});

Deno.test("claude-code: input validation and output tidying in claude-code's words", () => {
  assert.equal(
    inputError(BASH, { command: 123 }),
    "<tool_use_error>InputValidationError: Bash failed due to the following issue:\n" +
      "The parameter `command` type is expected as `string` but provided as `number`</tool_use_error>",
  );
  assert.equal(
    inputError(BASH, { cmd: "ls" }),
    "<tool_use_error>InputValidationError: Bash failed due to the following issues:\n" +
      "The required parameter `command` is missing\nAn unexpected parameter `cmd` was provided</tool_use_error>",
  );
  assert.equal(inputError(BASH, { command: "ls", timeout: 5 }), undefined);
  assert.equal(tidyOutput("\n\n  padded  \n\n"), "  padded");
  assert.equal(formatSize(33892), "33.1KB");
  assert.equal(formatSize(1288894), "1.2MB");
  assert.equal(formatSize(588895), "575.1KB");
});

Deno.test("episode: notes a binding leaves in pendingMessages follow the turn's tool results", async () => {
  const base = claudeCode();
  const profile: HarnessProfile = {
    ...base,
    tools: [...base.tools, {
      schema: { type: "function", function: { name: "Note", description: "", parameters: {} } },
      // deno-lint-ignore require-await
      bind: async (s) => {
        s.pendingMessages.push({ role: "system", content: "a note" });
        return "done";
      },
    }],
  };
  await withLocalEpisode(profile, FIX, async (ep) => {
    const r = await ep.step({ content: "", tool_calls: [call("Note", {}), call("Note", {})] });
    assert.deepEqual(r.observations.map((m) => m.role), ["tool", "tool", "system", "system"]);
    assert.deepEqual(ep.messages.slice(-4), r.observations);
    const again = await ep.step({ content: "", tool_calls: [call("Bash", { command: "true" })] });
    assert.deepEqual(again.observations.map((m) => m.role), ["tool"], "the list was emptied");
  });
});

dockerTest("claude-code: Read, Edit and Write as recorded", async (docker) => {
  await withEpisode(docker, claudeCode(), FIX, async (ep) => {
    const w = ep.session.workdir;
    assert.equal(
      await runTool(ep, "Read", { file_path: "wordcount.py", offset: 4, limit: 2 }),
      '4\tdef tokenize(text):\n5\t    """Return the words of text, in order."""',
    );
    assert.match(await runTool(ep, "Read", { file_path: `${w}/wordcount.py` }), /\n21\t {4}return ranked\[:n\]\n22\t$/);
    assert.equal(
      await runTool(ep, "Edit", { file_path: `${w}/wordcount.py`, old_string: 'split(" ")', new_string: "split()" }),
      `The file ${w}/wordcount.py has been updated successfully. (file state is current in your context — no need ` +
        "to Read it back)",
    );
    assert.equal(
      await runTool(ep, "Edit", { file_path: `${w}/README.md`, old_string: "# wordcount", new_string: "# wc" }),
      `The file ${w}/README.md has been updated successfully.`,
      "a file never read: no claim that it is in context",
    );
    assert.equal(
      await runTool(ep, "Write", { file_path: "new.txt", content: "x\n" }),
      "File created successfully at: new.txt (file state is current in your context — no need to Read it back)",
    );
    assert.equal(
      await runTool(ep, "Read", { file_path: `${w}/nope.py` }),
      `File does not exist. Note: your current working directory is ${w}.`,
    );
    assert.equal(
      await runTool(ep, "Read", { file_path: "new.txt", offset: 9 }),
      "<system-reminder>Warning: the file exists but is shorter than the provided offset (9). The file has 2 lines." +
        "</system-reminder>",
    );
    // Changed on disk after the Read (claude-2's `echo >> wc.py`): the edit applies, with claude-code's note.
    await runTool(ep, "Read", { file_path: "wc.py" });
    await runTool(ep, "Bash", { command: "echo '# touched' >> wc.py" });
    assert.equal(
      await runTool(ep, "Edit", {
        file_path: `${w}/wc.py`,
        old_string: "import argparse",
        new_string: "import argparse  # cli",
      }),
      `The file ${w}/wc.py has been updated successfully. (note: the file had been modified on disk since you last ` +
        "read it — the edit applied cleanly, but the file contains other changes not in your context. Read it before " +
        "edits that depend on surrounding content.)",
    );
    assert.equal(await runTool(ep, "Read", { file_path: w }), `EISDIR: illegal operation on a directory, read '${w}'`);
    assertApprox(await runTool(ep, "Foo", {}), "<tool_use_error>Error: No such tool available: Foo</tool_use_error>");
    assert.equal(
      await runTool(ep, "Glob", { pattern: "*" }),
      "<tool_use_error>Error: No such tool available: Glob. Glob is not available in this session — find files with " +
        "`find` via the Bash tool instead.</tool_use_error>",
    );
  });
});

dockerTest("claude-code: Bash results, the cwd reset, persisted output and the Read size cap", async (docker) => {
  await withEpisode(docker, claudeCode(), FIX, async (ep, _score, box) => {
    const w = ep.session.workdir;
    assert.equal(await runTool(ep, "Bash", { command: "echo err >&2; exit 2" }), "Exit code 2\nerr");
    assert.equal(await runTool(ep, "Bash", { command: "true" }), "(Bash completed with no output)");
    assert.equal(await runTool(ep, "Bash", { command: "cd /tmp && pwd" }), `/tmp\nShell cwd was reset to ${w}`);
    assert.equal(await runTool(ep, "Bash", { command: "pwd" }), w);
    assert.equal(
      await runTool(ep, "Bash", { command: "sleep 5", timeout: 1000 }),
      "Exit code 143\nCommand timed out after 1s",
    );
    const big = await runTool(ep, "Bash", { command: "seq 1 7000" });
    const m = big.match(
      /^<persisted-output>\nOutput too large \(33\.1KB\)\. Full output saved to: (\/\S+\/\.claude\/projects\/\S+\/tool-results\/b[0-9a-z]{8}\.txt)\n\nPreview \(first 2KB\):\n1\n2\n[\s\S]*\n527\n\.\.\.\n<\/persisted-output>$/,
    );
    assert.ok(m, big.slice(0, 300));
    const saved = new TextDecoder().decode((await box.exec(`cat '${m[1]}'`)).stdout);
    assert.equal(saved.trimEnd().split("\n").length, 7000);
    await runTool(ep, "Bash", { command: "seq 1 100000 > b100k.txt" });
    assert.match(
      await runTool(ep, "Read", { file_path: `${w}/b100k.txt` }),
      /^File content \(575\.1KB\) exceeds maximum allowed size \(256KB\)\. Use offset and limit parameters/,
    );
  });
});
