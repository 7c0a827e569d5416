/**
 * `pgs harness adopt` of a recording that sends tools other than functions: a Responses `namespace` becomes one
 * function per member (`<namespace>__<member>`, schema exact), a hosted tool a function that says what it is with no
 * parameters, and the overlay's `tool_mapping` says how each was mapped. The recording is synthesised in codex's
 * shape here (short strings and schemas only; no harness text).
 */
import assert from "node:assert/strict";
import { parseOverlay } from "../harness/overlay.ts";
import type { HarnessProfile, ToolSchema } from "../harness/types.ts";
import { adoptRecording } from "./adopt.ts";
import { adoptTools, flatToolName } from "./adopt_tools.ts";
import { parseRequests, type Recording } from "./load_recording.ts";
import { toChat } from "./wire_to_chat.ts";

const CWD = "/tmp/pgs-capture-synthetic/workdir";
const INSTRUCTION = "Count the ERROR lines in app.log and write the number to count.txt.";
const obj = (prop: string) => ({
  type: "object",
  properties: { [prop]: { type: "string", description: `The ${prop}.` } },
  required: [prop],
  additionalProperties: false,
});

/** A first request in codex's shape: 2 functions, a namespace of 3 sub-agent tools, the hosted web_search. */
const BODY = {
  model: "stub-model",
  instructions: "You are a synthetic coding agent.",
  input: [
    { type: "message", role: "developer", content: [{ type: "input_text", text: `Sandbox: ${CWD}` }] },
    { type: "message", role: "user", content: [{ type: "input_text", text: INSTRUCTION }] },
  ],
  tools: [
    { type: "function", name: "exec_command", description: "Runs a command.", strict: false, parameters: obj("cmd") },
    {
      type: "namespace",
      name: "multi_agent_v1",
      description: "Tools for sub-agents.",
      tools: [
        {
          type: "function",
          name: "spawn_agent",
          description: "Spawns one.",
          strict: false,
          parameters: obj("message"),
        },
        { type: "function", name: "wait_agent", description: "Waits.", strict: false, parameters: obj("id") },
        { type: "function", name: "close_agent", description: `Closes one in ${CWD}.`, parameters: obj("id") },
      ],
    },
    { type: "function", name: "view_image", description: "Views an image.", strict: false, parameters: obj("path") },
    { type: "web_search", external_web_access: true },
  ],
  reasoning: { effort: "medium" },
  stream: true,
};

const schema = (name: string, params = obj("cmd")): ToolSchema => ({
  type: "function",
  function: { name, description: "Runs a command.", parameters: params, strict: false },
});

/** The least of a profile adopt reads: its name, version and the tools it runs. */
const PROFILE = {
  name: "codex",
  version: "0.0.1",
  tools: [{ schema: schema("exec_command"), bind: () => Promise.resolve({ content: "" }) }],
} as unknown as HarnessProfile;

function recording(body: Record<string, unknown>): Recording {
  return { dir: "rec", requests: parseRequests(JSON.stringify(body)), cwd: CWD, env: { HOME: "/tmp/h" } };
}

Deno.test("adopt: a Responses namespace becomes one function per member, its schemas exact, in its place", () => {
  const o = adoptRecording(recording(BODY), PROFILE, { instruction: INSTRUCTION, date: new Date(2020, 0, 2) });
  const names = o.tools.map((t) => t.function.name);
  assert.deepEqual(names, [
    "exec_command",
    "multi_agent_v1__spawn_agent",
    "multi_agent_v1__wait_agent",
    "multi_agent_v1__close_agent",
    "view_image",
    "web_search",
  ]);
  const spawn = o.tools[1].function;
  assert.deepEqual(spawn, {
    name: "multi_agent_v1__spawn_agent",
    description: "Spawns one.",
    parameters: obj("message"),
    strict: false,
  });
  // A member's text gets slots as any tool's does.
  assert.equal(o.tools[3].function.description, "Closes one in {workdir}.");
  // Every tool but the profile's own is answered by rule.
  assert.deepEqual(o.unavailable.map((u) => u.name), names.slice(1));
});

Deno.test("adopt: a hosted tool becomes a function saying what it is, with its settings and no parameters", () => {
  const o = adoptRecording(recording(BODY), PROFILE, { instruction: INSTRUCTION });
  const ws = o.tools.find((t) => t.function.name === "web_search")!.function;
  assert.match(ws.description, /^The OpenAI Responses API's hosted tool "web_search": the provider defines and runs/);
  assert.match(ws.description, /\{"external_web_access":true\}/);
  assert.deepEqual(ws.parameters, { type: "object", properties: {} });
  assert.equal(ws.strict, undefined);
});

Deno.test("adopt: the overlay's tool_mapping says how each non-function tool was mapped, and parses back", () => {
  const o = adoptRecording(recording(BODY), PROFILE, { instruction: INSTRUCTION });
  assert.deepEqual(o.tool_mapping, [
    {
      type: "namespace",
      name: "multi_agent_v1",
      mapping: "namespace",
      functions: ["multi_agent_v1__spawn_agent", "multi_agent_v1__wait_agent", "multi_agent_v1__close_agent"],
      recorded: { description: "Tools for sub-agents." },
    },
    {
      type: "web_search",
      name: "web_search",
      mapping: "hosted",
      functions: ["web_search"],
      recorded: { external_web_access: true },
    },
  ]);
  // Every function the mapping names is in the overlay's tools; the overlay file reads back with the field.
  const names = new Set(o.tools.map((t) => t.function.name));
  assert.ok(o.tool_mapping!.every((m) => m.functions.every((f) => names.has(f))));
  const back = parseOverlay(JSON.stringify(o), "o.json") as typeof o;
  assert.deepEqual(back.tool_mapping, o.tool_mapping);
});

Deno.test("adopt: a recording of function tools only carries them as before, with no tool_mapping", () => {
  const body = { ...BODY, tools: [BODY.tools[0], BODY.tools[2]] };
  const o = adoptRecording(recording(body), PROFILE, { instruction: INSTRUCTION });
  assert.equal(o.tool_mapping, undefined);
  assert.deepEqual(o.tools, toChat(body)!.tools);
});

Deno.test("adopt_tools: codex's flat name, custom members, Anthropic server tools and Gemini built-ins", () => {
  assert.equal(flatToolName("multi_agent_v1", "spawn_agent"), "multi_agent_v1__spawn_agent");
  assert.equal(flatToolName("mcp__srv_", "_read"), "mcp__srv__read");

  const ns = adoptTools({
    tools: [{
      type: "namespace",
      name: "functions",
      tools: [{ type: "custom", name: "exec", description: "Runs.", format: { type: "text" } }],
    }, { type: "custom", name: "apply_patch", description: "Patches.", format: { type: "grammar", syntax: "lark" } }],
  }, "responses");
  assert.deepEqual(ns.tools.map((t) => [t.function.name, t.function.parameters]), [
    ["functions__exec", { type: "text" }],
    ["apply_patch", { type: "grammar", syntax: "lark" }],
  ]);
  assert.deepEqual(ns.mapped.map((m) => [m.name, m.mapping, m.functions]), [
    ["functions", "namespace", ["functions__exec"]],
    ["apply_patch", "freeform", ["apply_patch"]],
  ]);

  const messages = adoptTools({
    tools: [
      { name: "Read", description: "Reads.", input_schema: obj("file_path") },
      { type: "web_search_20250305", name: "web_search", max_uses: 5 },
    ],
  }, "messages");
  assert.deepEqual(messages.tools[0].function, { name: "Read", description: "Reads.", parameters: obj("file_path") });
  assert.match(
    messages.tools[1].function.description,
    /Anthropic Messages API's hosted tool "web_search" \(type web_search_20250305\)/,
  );
  assert.deepEqual(messages.mapped, [{
    type: "web_search_20250305",
    name: "web_search",
    mapping: "hosted",
    functions: ["web_search"],
    recorded: { max_uses: 5 },
  }]);

  const gemini = adoptTools({
    tools: [
      { functionDeclarations: [{ name: "read_file", description: "Reads.", parametersJsonSchema: obj("path") }] },
      {
        googleSearch: {},
      },
    ],
  }, "gemini");
  assert.deepEqual(gemini.tools.map((t) => t.function.name), ["read_file", "googleSearch"]);
  assert.deepEqual(gemini.mapped, [{
    type: "googleSearch",
    name: "googleSearch",
    mapping: "hosted",
    functions: ["googleSearch"],
  }]);

  assert.throws(
    () =>
      adoptTools({
        tools: [{ type: "function", name: "a__b" }, {
          type: "namespace",
          name: "a",
          tools: [{ type: "function", name: "b" }],
        }],
      }, "responses"),
    /two tools are named a__b/,
  );
});
