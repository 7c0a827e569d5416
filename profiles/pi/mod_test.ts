/**
 * pi@0.73.1 against its recording: the tools array byte for byte, the first messages, a replay of every call of the
 * recorded run1 (results compared with what pi sent), argument repair and validation (the oracle is in
 * tests/profiles_suite_test.ts).
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import type { ProfileEpisode } from "../../lib/harness/profile_episode.ts";
import type { ChatMessage } from "../../lib/harness/types.ts";
import { pi } from "./mod.ts";
import { parseArguments, partialJsonParse, prepareEditArguments, validateArguments } from "./args.ts";
import { formatSize, truncateHead, truncateTail } from "./truncate.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import { call, EXAMPLE_TASKS, runTool, withEpisode } from "../../tests/profile_helpers.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "pi");
/** sha256 of the `tools` value of every recorded request (2953 chars, identical in all of them). */
const RECORDED_TOOLS_SHA256 = "8c2433eeb04707fd4caf4f7b746de6d9ce798cc3671d725c0d416f8cee09bd0f";

async function sha256(s: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function goldenTools(): Promise<string> {
  // The golden file is deno-fmt'ed; parse + stringify restores the recorded compact bytes (key order is kept).
  return JSON.stringify(JSON.parse(await Deno.readTextFile(resolve(GOLDEN, "tools.json"))));
}

const schemaOf = (name: string) => pi().tools.find((t) => t.schema.function.name === name)!.schema;
const invalid = (name: string, args: unknown) => {
  const v = validateArguments(schemaOf(name), name === "edit" ? prepareEditArguments(args) : args);
  return v.ok ? `OK ${JSON.stringify(v.args)}` : v.error;
};

Deno.test("pi: the tools array is the recorded one, byte for byte", async () => {
  const sent = JSON.stringify(pi().tools.map((t) => t.schema));
  assert.equal(sent, await goldenTools());
  assert.equal(sent.length, 2953);
  assert.equal(await sha256(sent), RECORDED_TOOLS_SHA256);
  assert.deepEqual(pi().tools.map((t) => t.schema.function.name), ["read", "bash", "edit", "write"]);
});

Deno.test("pi: profile shape and a paraphrased system prompt ending like pi's", () => {
  const p = pi();
  assert.equal(`${p.name}@${p.version}`, "pi@0.73.1");
  assert.equal(p.emulates.seedPin, "1.3.0");
  assert.equal(p.userContent, "parts");
  assert.equal(p.emptyAssistantContent, null);
  assert.deepEqual([p.protocol, p.stop, p.answer], [{ kind: "native" }, { kind: "no_call" }, { kind: "last_text" }]);
  assert.ok(p.system.endsWith("\nCurrent date: {date}\nCurrent working directory: {workdir}"));
  for (const t of ["read", "bash", "edit", "write"]) assert.match(p.system, new RegExp(`- ${t}: `));
  assert.ok(!p.system.includes("operating inside pi"), "pi's own prompt text must not be carried");
  assert.ok(p.system.length < 1000);
  assert.equal(p.unknownTool!("Bash", [], {}), "Tool Bash not found");
});

Deno.test("pi: argument repair as pi-ai's parseStreamingJson", () => {
  assert.deepEqual(parseArguments('{"path": "sample.txt"'), { path: "sample.txt" });
  assert.deepEqual(parseArguments('{"path": sample.txt}'), {});
  assert.deepEqual(parseArguments("not json at all"), {});
  assert.deepEqual(parseArguments(""), {});
  assert.deepEqual(parseArguments('{"path": "a\\q"}'), { path: "a\\q" });
  assert.deepEqual(parseArguments('{"path": "a\nb"}'), { path: "a\nb" });
  assert.deepEqual(parseArguments('{"path":"a","offset":-'), { path: "a" });
  assert.deepEqual(parseArguments('{"path":"a" "offset":2}'), { path: "a", offset: 2 });
  assert.deepEqual(parseArguments('{"path":"a\\'), { path: "a" });
  assert.deepEqual(parseArguments('{"path":"a","edits":[{"oldText":"x","newText":"y"}'), {
    path: "a",
    edits: [{ oldText: "x", newText: "y" }],
  });
  assert.deepEqual(parseArguments('["x"'), ["x"]);
  assert.equal(parseArguments("null"), null);
  assert.deepEqual(partialJsonParse('{"a": [1, 2, {"b": tr'), { a: [1, 2, { b: true }] });
});

// Expected strings produced by pi-ai's own validateToolArguments (typebox 1.4.3) under Node 20.20.2.
Deno.test("pi: validation failures and coercions as TypeBox words them", () => {
  const cases: [string, unknown, string][] = [
    [
      "read",
      {},
      'Validation failed for tool "read":\n  - path: must have required properties path\n\nReceived arguments:\n{}',
    ],
    [
      "read",
      { path: "a", offset: "abc" },
      'Validation failed for tool "read":\n  - offset: must be number\n\nReceived arguments:\n{\n  "path": "a",\n  "offset": "abc"\n}',
    ],
    ["read", { path: "a", offset: "2" }, 'OK {"path":"a","offset":2}'],
    ["read", { path: 5 }, 'OK {"path":"5"}'],
    ["read", { path: null }, 'OK {"path":"null"}'],
    ["read", { path: "a", offset: "TRUE" }, 'OK {"path":"a","offset":1}'],
    ["read", { path: "a", offset: "1n" }, 'OK {"path":"a","offset":1}'],
    ["read", { path: "a", offset: "0x10" }, 'OK {"path":"a","offset":16}'],
    ["read", { path: "a", offset: "  " }, 'OK {"path":"a","offset":0}'],
    ["bash", { command: "ls", timeout: "1" }, 'OK {"command":"ls","timeout":1}'],
    [
      "read",
      { path: true, offset: "x", limit: [] },
      'Validation failed for tool "read":\n  - offset: must be number\n  - limit: must be number\n\nReceived arguments:\n' +
      '{\n  "path": true,\n  "offset": "x",\n  "limit": []\n}',
    ],
    [
      "read",
      { offset: "abc" },
      'Validation failed for tool "read":\n  - path: must have required properties path\n  - offset: must be number\n\n' +
      'Received arguments:\n{\n  "offset": "abc"\n}',
    ],
    [
      "edit",
      {},
      'Validation failed for tool "edit":\n  - path: must have required properties path, edits\n\nReceived arguments:\n{}',
    ],
    [
      "edit",
      { edits: [{ oldText: "x" }], more: 2 },
      'Validation failed for tool "edit":\n  - path: must have required properties path\n  - more: schema is false\n' +
      "  - root: must not have additional properties\n  - edits.0.newText: must have required properties newText\n\n" +
      'Received arguments:\n{\n  "edits": [\n    {\n      "oldText": "x"\n    }\n  ],\n  "more": 2\n}',
    ],
    [
      "edit",
      { path: "a", edits: [{ x: 1 }, {}] },
      'Validation failed for tool "edit":\n  - edits.0.oldText: must have required properties oldText, newText\n' +
      "  - edits.0.x: schema is false\n  - edits.0: must not have additional properties\n" +
      "  - edits.1.oldText: must have required properties oldText, newText\n\n" +
      'Received arguments:\n{\n  "path": "a",\n  "edits": [\n    {\n      "x": 1\n    },\n    {}\n  ]\n}',
    ],
    [
      "edit",
      { path: [], z: 1, edits: 5 },
      'Validation failed for tool "edit":\n  - z: schema is false\n  - root: must not have additional properties\n' +
      '  - path: must be string\n  - edits.0: must be object\n\nReceived arguments:\n{\n  "path": [],\n  "z": 1,\n' +
      '  "edits": 5\n}',
    ],
    [
      "edit",
      { path: "a", edits: "notjson" },
      'Validation failed for tool "edit":\n  - edits.0: must be object\n\nReceived arguments:\n{\n  "path": "a",\n' +
      '  "edits": "notjson"\n}',
    ],
    ["read", 5, 'Validation failed for tool "read":\n  - root: must be object\n\nReceived arguments:\n5'],
    ["read", null, 'Validation failed for tool "read":\n  - root: must be object\n\nReceived arguments:\nnull'],
    [
      "edit",
      { path: "a", edits: [{ oldText: null, newText: true }] },
      'OK {"path":"a","edits":[{"oldText":"null","newText":"true"}]}',
    ],
    // prepareEditArguments: edits as a JSON string, and the legacy top-level form.
    [
      "edit",
      { path: "a", edits: '[{"oldText":"x","newText":"y"}]' },
      'OK {"path":"a","edits":[{"oldText":"x","newText":"y"}]}',
    ],
    ["edit", { path: "a", oldText: "x", newText: "y" }, 'OK {"path":"a","edits":[{"oldText":"x","newText":"y"}]}'],
  ];
  for (const [name, args, expected] of cases) assert.equal(invalid(name, args), expected, JSON.stringify(args));
});

Deno.test("pi: truncation helpers", () => {
  assert.deepEqual([formatSize(1023), formatSize(51200), formatSize(60000), formatSize(3 << 20)], [
    "1023B",
    "50.0KB",
    "58.6KB",
    "3.0MB",
  ]);
  const seq = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join("");
  const t = truncateTail(seq);
  assert.deepEqual([t.truncatedBy, t.outputLines, t.content.slice(0, 5)], ["lines", 2000, "1002\n"]);
  const h = truncateHead(seq);
  assert.deepEqual([h.truncatedBy, h.outputLines, h.totalLines], ["lines", 2000, 3001]);
  const z = truncateTail("z".repeat(60000));
  assert.deepEqual([z.lastLinePartial, z.outputBytes], [true, 51200]);
});

/** The golden run: each turn of the recorded run1 script with what pi answered. */
interface GoldenCall {
  name: string;
  arguments: string;
  expected: string | { sha256: string; chars: number; head: string; tail: string };
}
interface GoldenTurn {
  content?: string;
  calls?: GoldenCall[];
}

async function assertResult(got: string, want: GoldenCall["expected"], label: string): Promise<void> {
  if (typeof want === "string") {
    if (want.includes("{secs}")) {
      const [a, b] = want.split("{secs}");
      assert.ok(got.startsWith(a) && got.endsWith(b) && /^\d+\.\d+$/.test(got.slice(a.length, -b.length)), label);
      return;
    }
    assert.equal(got, want, label);
    return;
  }
  assert.equal(got.slice(0, want.head.length), want.head, label);
  assert.equal(got.slice(-want.tail.length), want.tail, label);
  assert.equal(got.length, want.chars, label);
  assert.equal(await sha256(got), want.sha256, label);
}

const TMP_FILE = /\/tmp\/pi-bash-[0-9a-f]{16}\.log/;
const TMP_FILES = new RegExp(TMP_FILE, "g");

/** Checks that a truncated bash result's temp file exists in the container and holds the command's whole output. */
async function assertFullOutput(ep: ProfileEpisode, result: string, command: string): Promise<void> {
  const paths = result.match(TMP_FILE);
  if (!paths) return;
  const r = await ep.session.box.exec(`{ ${command}\n} 2>&1 | cmp -s - ${paths[0]}`, { shell: "bash" });
  assert.equal(r.exitCode, 0, `${paths[0]} holds the full output of ${command}`);
}

dockerTest("pi: replaying the recorded run1 gives pi's results byte for byte", async (docker) => {
  const golden: { turns: GoldenTurn[] } = JSON.parse(await Deno.readTextFile(resolve(GOLDEN, "run1.json")));
  const task = resolve(EXAMPLE_TASKS, "fix-word-count");
  await withEpisode(docker, pi(), task, async (ep) => {
    const w = ep.session.workdir;
    assert.equal(JSON.stringify(ep.tools), await goldenTools());
    const instruction = await Deno.readTextFile(resolve(task, "instruction.md"));
    const [system, user] = ep.messages;
    assert.equal(system.role, "system");
    assert.match(String(system.content), /\nCurrent date: \d{4}-\d{2}-\d{2}\nCurrent working directory: \/workdir$/);
    assert.deepEqual(user, { role: "user", content: [{ type: "text", text: instruction }] });

    let calls = 0;
    for (const [i, turn] of golden.turns.entries()) {
      const toolCalls = (turn.calls ?? []).map((c) => call(c.name, undefined, c.arguments.replaceAll("{workdir}", w)));
      const r = await ep.step({ content: turn.content ?? null, tool_calls: toolCalls });
      const echoed = ep.messages.at(-1 - r.observations.length)!;
      if (!turn.calls) {
        // The reply without tool calls ends the episode; it is the answer.
        assert.equal(r.done, true);
        assert.deepEqual(r.observations, []);
        assert.equal(ep.answer(), turn.content);
        continue;
      }
      assert.equal(r.done, false, `turn ${i}`);
      assert.equal(echoed.content, turn.content ?? null, `turn ${i}: echoed content`);
      assert.equal(r.observations.length, turn.calls.length);
      for (const [k, c] of turn.calls.entries()) {
        const obs: ChatMessage = r.observations[k];
        assert.equal(obs.role, "tool");
        assert.equal(obs.tool_call_id, toolCalls[k].id);
        assert.equal(typeof obs.content, "string", "tool results are plain strings");
        const got = String(obs.content);
        const label = `turn ${i} ${c.name} ${c.arguments}`;
        if (c.name === "bash" && TMP_FILE.test(got)) await assertFullOutput(ep, got, JSON.parse(c.arguments).command);
        const want = typeof c.expected === "string" ? c.expected.replaceAll("{workdir}", w) : c.expected;
        await assertResult(got.replace(TMP_FILES, "{tmpfile}"), want, label);
        calls++;
      }
    }
    assert.equal(calls, 57);
    assert.equal(ep.done, true);
    assert.equal(ep.counters.unknownTools, 3);
  });
});

dockerTest("pi: results the recording shows outside run1, and the ones read from the source", async (docker) => {
  await withEpisode(docker, pi(), resolve(EXAMPLE_TASKS, "count-error-lines"), async (ep) => {
    const run = (name: string, args: unknown, raw?: string) => runTool(ep, name, args, raw);
    // run3: a 2x2 PNG read by a model without image input.
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==";
    assert.equal(await run("bash", { command: `echo ${png} | base64 -d > dot.png` }), "(no output)");
    assert.equal(
      await run("read", { path: "dot.png" }),
      "Read image file [image/png]\n[Current model does not support images. The image will be omitted from this " +
        "request.]\n(tool image omitted: model does not support images)",
    );
    // run3: text that is only whitespace is echoed as null next to the calls.
    await ep.step({ content: "  \n ", tool_calls: [call("bash", { command: "echo ws" })] });
    assert.equal(ep.messages.at(-2)!.content, null);
    // An empty text result is sent as openai-completions.js's placeholder.
    assert.equal(await run("write", { path: "none.txt", content: "" }), "Successfully wrote 0 bytes to none.txt");
    assert.equal(await run("read", { path: "none.txt" }), "(see attached image)");
    // A missing required argument, and arguments that are not an object.
    assert.equal(
      await run("bash", { cmd: "ls" }),
      'Validation failed for tool "bash":\n  - command: must have required properties command\n\n' +
        'Received arguments:\n{\n  "cmd": "ls"\n}',
    );
    assert.equal(
      await run("read", null, "[1]"),
      'Validation failed for tool "read":\n  - root: must be object\n\nReceived arguments:\n[\n  1\n]',
    );
    // Write: an ancestor that is a file (Node: ENOTDIR), a directory as the target (EISDIR).
    assert.equal(
      await run("write", { path: "app.log/a/b.txt", content: "x" }),
      "ENOTDIR: not a directory, mkdir '/workdir/app.log/a'",
    );
    assert.equal(
      await run("write", { path: ".", content: "x" }),
      "EISDIR: illegal operation on a directory, open '/workdir'",
    );
    assert.equal(
      await run("read", { path: "app.log/x" }),
      "ENOTDIR: not a directory, access '/workdir/app.log/x'",
    );
    // Edit: several empty oldTexts name the index; the legacy form appends to edits[].
    assert.equal(
      await run("edit", {
        path: "QUESTION.md",
        edits: [{ oldText: "a", newText: "b" }, { oldText: "", newText: "c" }],
      }),
      "edits[1].oldText must not be empty in QUESTION.md.",
    );
    // Bash: a single line over 50KB keeps its last 50KB, and the temp file holds all of it.
    const z = await run("bash", { command: "head -c 60000 /dev/zero | tr '\\0' z" });
    assert.match(
      z,
      /^z{51200}\n\n\[Showing last 50\.0KB of line 1 \(line is 58\.6KB\)\. Full output: \/tmp\/pi-bash-[0-9a-f]{16}\.log\]$/,
    );
    await assertFullOutput(ep, z, "head -c 60000 /dev/zero | tr '\\0' z");
    // An output under the limits leaves no temp file behind.
    assert.equal(await run("bash", { command: "echo hi; ls /tmp | grep -c '^pi-bash-' || true" }), "hi\n1\n");
    assert.equal(await run("bash", { command: "ls /tmp | grep -c '^pi-bash-'" }), "1\n");
  });
});

// The oracle on the example tasks (solve.sh through one bash call, then a final reply) is in
// tests/profiles_suite_test.ts.
