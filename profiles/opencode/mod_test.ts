/**
 * opencode@1.18.33 against its recording (recordings/opencode, goldens in tests/golden/opencode): the tools array
 * byte for byte, the quoted user message, every recorded result of the kept tools replayed in a real container, the
 * name repair, the invalid tool and the end of the episode (the oracle on the example tasks is in
 * tests/profiles_suite_test.ts).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import type { ProfileEpisode } from "../../lib/harness/profile_episode.ts";
import { read, readBytes } from "../../lib/harness/tools/ops.ts";
import type { ChatMessage } from "../../lib/harness/types.ts";
import { opencode, quoteArg } from "./mod.ts";
import { jscJsonError } from "./json_error.ts";
import { bytes, dockerTest } from "../../tests/docker_helpers.ts";
import { call, EXAMPLE_TASKS, runTool, withEpisode, withLocalEpisode } from "../../tests/profile_helpers.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "opencode");
const FIX = join(EXAMPLE_TASKS, "fix-word-count");

interface Case {
  id: string;
  turn: number;
  name: string;
  arguments: string;
  match?: "lines" | "blocks" | "numbered";
  expected?: string;
  sha256?: string;
  length?: number;
}
const PARAMETERS: Record<string, unknown> = JSON.parse(await Deno.readTextFile(join(GOLDEN, "parameters.json")));
const RESULTS: { runs: Record<string, Case[]> } = JSON.parse(await Deno.readTextFile(join(GOLDEN, "results.json")));

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const content = (m: ChatMessage) => typeof m.content === "string" ? m.content : JSON.stringify(m.content);

// ---------------------------------------------------------------------------------------------------------------
// Without a container

Deno.test("opencode: tools in the recorded order, parameter schemas byte for byte, short own descriptions", () => {
  const p = opencode();
  assert.deepEqual(p.tools.map((t) => t.schema.function.name), ["bash", "edit", "glob", "grep", "read", "write"]);
  assert.deepEqual(Object.keys(PARAMETERS), ["bash", "edit", "glob", "grep", "read", "write"]);
  for (const t of p.tools) {
    const f = t.schema.function;
    // What the endpoint receives: compact JSON, key order included.
    assert.equal(JSON.stringify(f.parameters), JSON.stringify(PARAMETERS[f.name]), f.name);
    assert.deepEqual(Object.keys(t.schema), ["type", "function"]);
    assert.deepEqual(Object.keys(f), ["name", "description", "parameters"], `${f.name}: no strict key`);
    assert.ok(f.description.length < 400, `${f.name}: the description is a short paraphrase`);
  }
  assert.equal(p.name, "opencode");
  assert.equal(p.version, "1.18.33");
  assert.equal(p.emulates.seedPin, "1.19.2");
  assert.equal(p.emptyAssistantContent, "");
  assert.deepEqual(p.stop, { kind: "no_call" });
  assert.deepEqual(p.answer, { kind: "last_text" });
  assert.ok(p.system.includes("{workdir}") && p.system.includes("{date}"));
  assert.ok(p.system.length < 1500, "the system prompt is a short paraphrase");
});

Deno.test("opencode: `opencode run` quoting and Bun's JSON.parse message for the recorded malformed arguments", () => {
  assert.equal(quoteArg('say "hi" now\n'), '"say \\"hi\\" now\n"');
  assert.equal(quoteArg("nospace"), "nospace");
  assert.equal(jscJsonError('{"filePath": "README.md"'), "JSON Parse error: Expected '}'");
});

Deno.test("opencode: unknown tools and unparseable arguments go through the invalid tool", () => {
  const p = opencode();
  const names = p.tools.map((t) => t.schema.function.name);
  assert.equal(
    p.unknownTool!("nosuchtool", names, { foo: "bar" }),
    "The arguments provided to the tool are invalid: Model tried to call unavailable tool 'nosuchtool'. " +
      "Available tools: bash, edit, glob, grep, invalid, read, write.",
  );
  assert.equal(
    p.badArguments!("read", '{"filePath": "README.md"', "ignored"),
    "The arguments provided to the tool are invalid: Invalid input for tool read: JSON parsing failed: " +
      'Text: {"filePath": "README.md".\nError message: JSON Parse error: Expected \'}\'',
  );
  assert.equal(p.alias!("Bash", names), "bash");
  // Output over 50 KB is cut by the generic truncation, naming its saved copy.
  const big = String(p.badArguments!("write", `{"content": "${"x".repeat(60000)}`, ""));
  assert.match(big, /\n\n\.\.\.\d+ bytes truncated\.\.\.\n\nThe tool call succeeded but the output was truncated\. /);
  assert.match(big, /Full output saved to: \/root\/\.local\/share\/opencode\/tool-output\/tool_[0-9a-f]{12}\w{14}\n/);
});

// ---------------------------------------------------------------------------------------------------------------
// Replays of the recording

interface Vars {
  workdir: string;
  outside: string;
  home: string;
}

const expand = (s: string, v: Vars) =>
  s.replaceAll("{workdir}", v.workdir).replaceAll("{outside}", v.outside).replaceAll("{home}", v.home);

/** The saved-output path made a placeholder, as in the recording. */
const savedAsPlaceholder = (s: string, v: Vars) =>
  s.replace(
    /(\/[^\s]*\/\.local\/share\/opencode\/tool-output\/)tool_[0-9a-f]{12}[0-9A-Za-z]{14}/g,
    (_m, dir: string) => `${dir}tool_{id}`,
  ).replaceAll(
    `${v.home}/.local/share/opencode/tool-output/tool_{id}`,
    "{home}/.local/share/opencode/tool-output/tool_{id}",
  );

function grepBlocks(s: string): [string, string[]] {
  const nl = s.indexOf("\n");
  if (nl < 0) return [s, []];
  return [s.slice(0, nl), s.slice(nl + 1).split("\n\n\n").map((b) => b.replace(/\n$/, "")).sort()];
}

function assertResult(c: Case, got: string, v: Vars, run: string): void {
  const what = `run ${run} ${c.id} ${c.name} ${c.arguments.slice(0, 80)}`;
  const actual = savedAsPlaceholder(got, v);
  if (c.sha256) {
    const placeheld = actual.replaceAll(v.workdir, "{workdir}").replaceAll(v.home, "{home}");
    assert.equal(placeheld.length, c.length, `${what}: length`);
    assert.equal(sha256(placeheld), c.sha256, `${what}: sha256`);
    return;
  }
  const expected = expand(c.expected!, v).replaceAll(
    `${v.home}/.local/share/opencode/tool-output/tool_{id}`,
    "{home}/.local/share/opencode/tool-output/tool_{id}",
  );
  switch (c.match) {
    case "lines":
      assert.deepEqual(actual.split("\n").sort(), expected.split("\n").sort(), what);
      break;
    case "blocks":
      assert.deepEqual(grepBlocks(actual), grepBlocks(expected), what);
      break;
    case "numbered":
      assert.equal(actual.replace(/\d+/g, "N"), expected.replace(/\d+/g, "N"), what);
      break;
    default:
      assert.equal(actual, expected, what);
  }
}

async function vars(ep: ProfileEpisode): Promise<Vars> {
  const home = (await ep.session.exec('printf %s "$HOME"', { shell: "sh", timeout: 30 })).stdout;
  return { workdir: ep.session.workdir, outside: "/tmp/outside", home };
}

/** Plays one recorded run: each recorded turn's calls in one step, each result against the golden. */
async function replay(ep: ProfileEpisode, run: string): Promise<Vars> {
  const v = await vars(ep);
  const cases = RESULTS.runs[run];
  const turns = [...new Set(cases.map((c) => c.turn))];
  for (const turn of turns) {
    const batch = cases.filter((c) => c.turn === turn);
    const calls = batch.map((c) => call(c.name, null, expand(c.arguments, v)));
    const r = await ep.step({ content: "", tool_calls: calls });
    assert.equal(r.done, false);
    const echo = ep.messages.at(-1 - r.observations.length)!;
    assert.equal(echo.role, "assistant");
    assert.equal(echo.content, "", 'an echoed tool-call turn without text has content ""');
    assert.equal(r.observations.length, batch.length);
    for (const [i, c] of batch.entries()) {
      const o = r.observations[i];
      assert.equal(o.role, "tool");
      assert.equal(o.tool_call_id, calls[i].id);
      assert.equal(typeof o.content, "string", "tool results are plain strings");
      assertResult(c, content(o), v, run);
    }
  }
  return v;
}

for (const run of ["A", "B", "C", "D", "H"]) {
  dockerTest(`opencode: recorded run ${run} replays with the recorded results`, async (docker) => {
    await withEpisode(docker, opencode(), FIX, async (ep) => {
      const v = await replay(ep, run);
      if (run === "B") {
        // The saved copy behind a truncated output is real and whole.
        const r = await ep.step({ content: "", tool_calls: [call("bash", { command: "seq 1 3000" })] });
        const path = /Full output saved to: (\S+)\n/.exec(content(r.observations[0]))![1];
        assert.ok(path.startsWith(`${v.home}/.local/share/opencode/tool-output/tool_`));
        const seq = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join("");
        assert.equal(await read(ep.session.box, path), seq);
      }
      const last = await ep.step({ content: `Done ${run}.` });
      assert.equal(last.done, true);
      assert.deepEqual(last.observations, []);
      assert.equal(ep.answer(), `Done ${run}.`);
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The first prompt, name repair, the invalid tool, the end of the episode

dockerTest(
  "opencode: first prompt, lowercase repair, unknown tool, end on a reply without tool calls",
  async (docker) => {
    await withEpisode(docker, opencode(), FIX, async (ep) => {
      const instruction = await Deno.readTextFile(join(FIX, "instruction.md"));
      assert.equal(ep.messages.length, 2);
      const [system, user] = ep.messages;
      assert.equal(system.role, "system");
      assert.ok(content(system).includes("Working directory: /workdir\n"));
      assert.ok(content(system).includes("Is directory a git repo: no\n"));
      assert.ok(/Today's date: \d{4}-\d{2}-\d{2}/.test(content(system)));
      // Harbor passes instruction.md whole and `opencode run` wraps the argument in quotes.
      assert.equal(user.role, "user");
      assert.equal(user.content, `"${instruction}"`);
      assert.ok(instruction.endsWith("\n") && !instruction.includes('"'));
      assert.deepEqual(ep.tools.map((t) => t.function.name), ["bash", "edit", "glob", "grep", "read", "write"]);

      let r = await ep.step({ content: "", tool_calls: [call("Bash", { command: "echo capitalised" })] });
      assert.equal(r.observations[0].content, "capitalised\n");
      r = await ep.step({ content: "", tool_calls: [call("GLOB", { pattern: "*.md" })] });
      assert.equal(r.observations[0].content, "/workdir/README.md");
      r = await ep.step({ content: "", tool_calls: [call("nosuchtool", { foo: "bar" })] });
      assert.equal(
        r.observations[0].content,
        "The arguments provided to the tool are invalid: Model tried to call unavailable tool 'nosuchtool'. " +
          "Available tools: bash, edit, glob, grep, invalid, read, write.",
      );
      r = await ep.step({ content: "", tool_calls: [call("read", null, '{"filePath": "README.md"')] });
      assert.equal(
        r.observations[0].content,
        "The arguments provided to the tool are invalid: Invalid input for tool read: JSON parsing failed: " +
          'Text: {"filePath": "README.md".\nError message: JSON Parse error: Expected \'}\'',
      );
      assert.equal(ep.done, false, "tool errors never end the episode");
      r = await ep.step({ content: "All done: nothing to fix." });
      assert.equal(r.done, true);
      assert.equal(ep.answer(), "All done: nothing to fix.");
    });
  },
);

Deno.test("opencode: an empty reply without tool calls also ends the episode (local runtime)", async () => {
  await withLocalEpisode(opencode(), FIX, async (ep) => {
    await ep.step({ content: "Looking.", tool_calls: [call("bash", { command: "true" })] });
    assert.equal(ep.messages.at(-2)!.content, "Looking.");
    assert.equal(ep.messages.at(-1)!.content, "(no output)");
    const r = await ep.step({ content: "" });
    assert.equal(r.done, true);
    assert.equal(ep.answer(), "");
  });
});

dockerTest(
  "opencode: CRLF, BOM, replaceAll with `$&`, grep's long lines, read's limit 0, schema and path errors",
  async (docker) => {
    await withEpisode(docker, opencode(), FIX, async (ep) => {
      const run = (name: string, args: unknown) => runTool(ep, name, args);
      await run("bash", {
        command: "printf 'a\\r\\nb\\r\\nb\\r\\n' > crlf.txt; python3 -c \"print('w'*2500)\" > wide.txt; " +
          "printf '\\xef\\xbb\\xbfbom\\n' > bom.txt",
      });
      assert.equal(
        await run("read", { filePath: "crlf.txt" }),
        "<path>/workdir/crlf.txt</path>\n<type>file</type>\n<content>\n1: a\n2: b\n3: b\n\n(End of file - total 3 lines)\n</content>",
      );
      assert.equal(
        await run("edit", { filePath: "crlf.txt", oldString: "a\nb", newString: "A\nB" }),
        "Edit applied successfully.",
      );
      assert.equal(await read(ep.session.box, "/workdir/crlf.txt"), "A\r\nB\r\nb\r\n");
      assert.equal(
        await run("edit", { filePath: "crlf.txt", oldString: "b", newString: "$&$&" }),
        "Edit applied successfully.",
      );
      assert.equal(
        await run("edit", { filePath: "crlf.txt", oldString: "$&$&", newString: "c", replaceAll: true }),
        "Edit applied successfully.",
      );
      assert.equal(await read(ep.session.box, "/workdir/crlf.txt"), "A\r\nB\r\nc\r\n");
      const g = await run("grep", { pattern: "^w+$" });
      assert.equal(g, `Found 1 matches\n/workdir/wide.txt:\n  Line 1: ${"w".repeat(2000)}...`);
      assert.equal(await run("write", { filePath: "bom.txt", content: "new\n" }), "Wrote file successfully.");
      assert.deepEqual((await readBytes(ep.session.box, "/workdir/bom.txt")).data, bytes("\uFEFFnew\n"));
      assert.equal(
        await run("read", { filePath: "/workdir/crlf.txt", offset: 0, limit: 0 }),
        "<path>/workdir/crlf.txt</path>\n<type>file</type>\n<content>\n\n\n(Showing lines 1-0 of 3. Use offset=1 to continue.)\n</content>",
      );
      assert.equal(
        await run("read", { filePath: "crlf.txt", offset: -1 }),
        "The read tool was called with invalid arguments: SchemaError(Expected a value greater than or equal to 0, " +
          'got -1\n  at ["offset"]).\nPlease rewrite the input so it satisfies the expected schema.',
      );
      assert.equal(
        await run("edit", { filePath: "/workdir", oldString: "a", newString: "b" }),
        "Path is a directory, not a file: /workdir",
      );
      assert.equal(await run("grep", { pattern: "" }), "pattern is required");
    });
  },
);

// The oracle on the example tasks (solve.sh in one bash call, then a reply) is in tests/profiles_suite_test.ts.
