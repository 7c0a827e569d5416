/**
 * `pgs harness adopt` and `--overlay`, end to end on recordings synthesised here in each of the four wire APIs (the
 * real harnesses' text must not live in this repository; tests/overlay_real_test.ts records real ones): the overlay's
 * first prompt under `harness show --overlay` carries the recording's system text, its user parts around the
 * instruction and every tool exactly, once the working directory and date are normalised; the profile's tools run,
 * the others are answered by rule; eval records the overlay.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { adoptRecording } from "../lib/conformance/adopt.ts";
import { loadRecording } from "../lib/conformance/load_recording.ts";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { readTrajectories } from "../lib/eval/records/trajectory.ts";
import { getProfile } from "../lib/harness/registry.ts";
import { dateSlots, parseOverlay, readOverlay } from "../lib/harness/overlay.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { dockerTest } from "./docker_helpers.ts";
import { pgs, ROOT } from "./eval_helpers.ts";
import { call } from "./profile_helpers.ts";

registerBuiltins();

// deno-lint-ignore no-explicit-any
type Json = any;

const COUNT = join(ROOT, "examples", "tasks", "count-error-lines");
const INSTRUCTION = await Deno.readTextFile(join(COUNT, "instruction.md"));
const CWD = "/tmp/pgs-capture-0123456789abcdef/workdir", HOME = "/tmp/pgs-capture-0123456789abcdef/home";
const TODAY = dateSlots(new Date());

const SYSTEM = `You are a synthetic harness.\nWorking directory: ${CWD}\nToday is ${TODAY.date_long}.\n` +
  `Notes live in ${HOME}/.notes and {connector_id} is left alone.`;
const CONTEXT = `<context>\nDate: ${TODAY.date_iso}\nFiles under ${CWD}:\n  app.log\n</context>`;
const schema = (prop: string) => ({
  type: "object",
  properties: { [prop]: { type: "string", description: `The ${prop}, e.g. ${CWD}/x.` } },
  required: [prop],
});

/** One synthesised first request per wire API, for a profile that has the tool `own` and lacks `web_lookup`. */
const RECORDINGS: Record<string, { profile: string; own: string; arg: string; body: Json }> = {
  chat: {
    profile: "pi",
    own: "read",
    arg: "path",
    body: {
      model: "stub-model",
      messages: [{ role: "system", content: SYSTEM }, { role: "user", content: INSTRUCTION }],
      tools: [
        { type: "function", function: { name: "read", description: "Reads a file.", parameters: schema("path") } },
        { type: "function", function: { name: "web_lookup", description: "Looks up.", parameters: schema("query") } },
      ],
      temperature: 0.2,
      stream: true,
    },
  },
  gemini: {
    profile: "gemini-cli",
    own: "read_file",
    arg: "file_path",
    body: {
      contents: [{ role: "user", parts: [{ text: CONTEXT }, { text: INSTRUCTION }] }],
      systemInstruction: { role: "user", parts: [{ text: SYSTEM }] },
      tools: [{
        functionDeclarations: [
          { name: "read_file", description: "Reads a file.", parametersJsonSchema: schema("file_path") },
          { name: "web_lookup", description: "Looks up.", parametersJsonSchema: schema("query") },
          // The shell, which the oracle runs the solution through.
          { name: "run_shell_command", description: "Runs a command.", parametersJsonSchema: schema("command") },
        ],
      }],
      generationConfig: { temperature: 1, thinkingConfig: { includeThoughts: true } },
    },
  },
  messages: {
    profile: "claude-code",
    own: "Read",
    arg: "file_path",
    body: {
      model: "stub-model",
      system: [{ type: "text", text: SYSTEM }],
      messages: [{ role: "user", content: [{ type: "text", text: CONTEXT }, { type: "text", text: INSTRUCTION }] }],
      tools: [
        { name: "Read", description: "Reads a file.", input_schema: schema("file_path") },
        { name: "web_lookup", description: "Looks up.", input_schema: schema("query") },
      ],
      max_tokens: 32000,
      thinking: { type: "adaptive" },
      stream: true,
    },
  },
  responses: {
    profile: "codex",
    own: "exec_command",
    arg: "cmd",
    body: {
      model: "stub-model",
      instructions: SYSTEM,
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: `Sandbox: ${CWD}` }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: CONTEXT }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: INSTRUCTION }] },
      ],
      tools: [
        { type: "function", name: "exec_command", description: "Runs a command.", parameters: schema("cmd") },
        { type: "function", name: "web_lookup", description: "Looks up.", parameters: schema("query") },
      ],
      reasoning: { effort: "medium" },
      parallel_tool_calls: false,
      stream: true,
    },
  },
};

async function writeRecording(dir: string, body: Json, argv: string[]): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "requests.jsonl"), JSON.stringify(body) + "\n");
  await Deno.writeTextFile(
    join(dir, "command.json"),
    JSON.stringify({ mode: "local", model: "stub-model", argv, env: { HOME }, cwd: CWD }),
  );
}

/**
 * The chat form of a shown or recorded first request, its working directory and HOME normalised (the instruction
 * names /workdir itself, the container's working directory).
 */
function normalised(messages: Json[], cwd: string, home: string): Json[] {
  return messages.map((m) => ({
    role: m.role,
    parts: (typeof m.content === "string" ? [m.content] : m.content.map((p: Json) => p.text)).map((t: string) =>
      t.split(cwd).join("<WD>").split("/workdir").join("<WD>").split(`${home}/`).join("<HOME>/")
    ),
  }));
}

Deno.test("adopt: each wire API's first request becomes an overlay: messages, slots, tools, generation", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_adopt_unit_" });
  try {
    for (const [wire, r] of Object.entries(RECORDINGS)) {
      await writeRecording(join(dir, wire), r.body, ["/opt/x/node_modules/h/bin/h", "-p", INSTRUCTION]);
      const o = adoptRecording(await loadRecording(join(dir, wire)), getProfile(r.profile));
      assert.equal(o.wire, wire);
      assert.equal(o.harness_model, "stub-model");
      const at = o.messages[o.instruction_at];
      assert.ok(JSON.stringify(at.content).includes("{instruction}"), wire);
      const texts = JSON.stringify([o.messages, o.tools]);
      assert.ok(!texts.includes(CWD), `${wire}: the working directory is a slot everywhere`);
      assert.ok(!texts.includes(TODAY.date_long) && !texts.includes(TODAY.date_iso), texts);
      assert.ok(JSON.stringify(o.messages).includes("{connector_id}"), "an unknown {key} of the harness's is kept");
      assert.equal(o.slots.workdir, CWD);
      assert.equal(o.slots.home, HOME);
      assert.deepEqual(o.tools.map((t) => t.function.name).slice(0, 2), [r.own, "web_lookup"]);
      const props = o.tools[0].function.parameters.properties as Json;
      assert.equal(props[r.arg].description, `The ${r.arg}, e.g. {workdir}/x.`);
      assert.deepEqual(o.unavailable.map((u) => u.name), ["web_lookup"]);
      assert.ok(
        o.generation && !("stream" in o.generation) && !("model" in o.generation),
        JSON.stringify(o.generation),
      );
      parseOverlay(JSON.stringify(o), "x.json"); // what adopt writes, the reader accepts
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("overlay files: a bad one is refused naming the file and the field", () => {
  const ok = {
    format: "pgs-overlay/1",
    profile: "pi@0.73.1",
    wire: "chat",
    messages: [{ role: "user", content: "{instruction}" }],
    instruction_at: 0,
    tools: [],
    slots: {},
    unavailable: [],
  };
  parseOverlay(JSON.stringify(ok), "o.json");
  assert.throws(() => parseOverlay("{", "o.json"), /^Error: o\.json: not JSON/);
  assert.throws(() => parseOverlay(JSON.stringify({ ...ok, format: "x" }), "o.json"), /o\.json: format must be/);
  assert.throws(() => parseOverlay(JSON.stringify({ ...ok, instruction_at: 3 }), "o.json"), /instruction_at must/);
  const noSlot = { ...ok, messages: [{ role: "user", content: "hi" }] };
  assert.throws(() => parseOverlay(JSON.stringify(noSlot), "o.json"), /messages\[0\] must be a user message holding/);
});

dockerTest(
  "adopt → harness show --overlay: the recording's own text and tools, exactly, in each wire API",
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_adopt_" });
    try {
      for (const [wire, r] of Object.entries(RECORDINGS)) {
        const rec = join(dir, wire), file = join(dir, `${wire}.json`);
        await writeRecording(rec, r.body, ["/opt/x/node_modules/h/bin/h", "-p", INSTRUCTION]);
        const a = await pgs(["harness", "adopt", rec, "--profile", r.profile, "--out", file, "--task", COUNT]);
        assert.equal(a.code, 0, a.stderr);
        assert.match(a.stderr, /\d tool\(s\) \(1 answered by rule\)/);
        const s = await pgs(["harness", "show", r.profile, "--overlay", file, "--task", COUNT, "--json"]);
        assert.equal(s.code, 0, s.stderr);
        const shown = JSON.parse(s.stdout);
        const recorded = (await loadRecording(rec)).requests[0];
        // The container's working directory is /workdir; the recording's was CWD.
        assert.deepEqual(
          normalised(shown.messages, "/workdir", "/root"),
          normalised(recorded.messages, CWD, HOME),
          wire,
        );
        assert.deepEqual(
          JSON.parse(JSON.stringify(shown.tools).split("/workdir").join("<WD>")),
          JSON.parse(JSON.stringify(recorded.tools).split(CWD).join("<WD>")),
          wire,
        );
        assert.equal(shown.overlay.file, file);
        assert.ok(shown.generation, wire);
      }
      // An overlay adopted for one profile is refused on another.
      const bad = await pgs(["harness", "show", "opencode", "--overlay", join(dir, "chat.json"), "--task", COUNT]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /was adopted for pi@/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

dockerTest(
  "--overlay in episodes: the profile's tools run, the others are answered by rule; eval records it",
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_overlay_ep_" });
    try {
      const r = RECORDINGS.gemini, rec = join(dir, "rec"), file = join(dir, "gemini.json");
      await writeRecording(rec, r.body, ["/opt/x/node_modules/h/bin/h", "-p", INSTRUCTION]);
      assert.equal((await pgs(["harness", "adopt", rec, "--profile", "gemini-cli", "--out", file])).code, 0);
      const env = new HarborEnv({ profile: "gemini-cli", overlays: [await readOverlay(file)] });
      try {
        const ep = await env.reset({ task_dir: COUNT }, 1);
        try {
          assert.deepEqual(ep.tools.map((t) => t.function.name), ["read_file", "web_lookup", "run_shell_command"]);
          const out = await ep.step({
            tool_calls: [call("read_file", { file_path: "QUESTION.md" }), call("web_lookup", { query: "x" })],
          });
          assert.match(String(out.observations[0].content), /^\{"output":/);
          assert.equal(
            out.observations[1].content,
            JSON.stringify({
              error: 'Tool "web_lookup" not found. Did you mean one of: "web_fetch", "glob", "replace"?',
            }),
          );
        } finally {
          await ep.close();
        }
      } finally {
        await env.close();
      }
      const outDir = join(dir, "run");
      const e = await pgs([
        "eval",
        "--tasks",
        COUNT,
        "--policy",
        "oracle",
        "--profile",
        "gemini-cli",
        "--overlay",
        file,
        "--out",
        outDir,
      ]);
      assert.equal(e.code, 0, e.stderr);
      const [t] = readTrajectories(join(outDir, "trajectories.jsonl"));
      assert.equal(t.reward, 1);
      assert.equal(t.overlay?.file, file);
      assert.match(t.overlay!.sha256, /^[0-9a-f]{12}$/);
      const system = String(r.body.systemInstruction.parts[0].text).split(CWD).join("/workdir").split(HOME).join(
        "/root",
      );
      assert.equal(t.messages[0].content, system);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
