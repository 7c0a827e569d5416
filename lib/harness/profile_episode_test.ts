/** The turn engine's generic behaviour, without a container: echoes, format errors, unknown tools, stop rules. */
import assert from "node:assert/strict";
import { ProfileEpisode } from "./profile_episode.ts";
import { fnSchema, type HarnessProfile } from "./types.ts";
import type { ExecEnv } from "../runtime/exec_env.ts";
import { renderCutOff } from "../../profiles/mini_swe_agent/mod.ts";
import { getProfile } from "./registry.ts";
import { call } from "../../tests/profile_helpers.ts";
import { registerBuiltins } from "../../profiles/mod.ts";

registerBuiltins();

// Nothing in these turns reaches the container but the prompt's `uname`, answered here.
const box: ExecEnv = {
  workdir: "/workdir",
  scratch: "/tmp",
  id: "fake",
  dead: false,
  exec: () =>
    Promise.resolve({
      exitCode: 0,
      stdout: new TextEncoder().encode("Linux 6.1 x86_64\n"),
      stderr: new Uint8Array(),
      stdoutBytes: 17,
      stderrBytes: 0,
      timedOut: false,
      durationMs: 1,
    }),
};

function profile(over: Partial<HarnessProfile> = {}): HarnessProfile {
  return {
    name: "t",
    version: "1",
    system: "cwd {workdir} on {date}",
    user: "{instruction}",
    tools: [{
      schema: fnSchema("echo", "Echo.", { x: { type: "string" } }, ["x"]),
      bind: (_s, a) => Promise.resolve(`got ${a.x}`),
    }],
    protocol: { kind: "native" },
    stop: { kind: "no_call" },
    answer: { kind: "last_text" },
    execTimeout: 5,
    emulates: { harness: "t", version: "1", sources: ["test"] },
    ...over,
  };
}

Deno.test("echo: empty content per profile, reasoning kept, arguments raw or re-serialised", async () => {
  const ep = new ProfileEpisode(profile({ echoArguments: "parsed", emptyAssistantContent: "" }), box);
  await ep.begin("do it");
  assert.equal(ep.messages[0].content, `cwd /workdir on ${new Date().toISOString().slice(0, 10)}`);
  const r = await ep.step({ content: " ", reasoning_content: "hmm", tool_calls: [call("echo", null, '{"x": "1"}')] });
  const echoed = ep.messages[2];
  assert.equal(echoed.content, "");
  assert.equal(echoed.reasoning_content, "hmm");
  assert.equal(echoed.tool_calls![0].function.arguments, '{"x":"1"}');
  assert.deepEqual(Object.keys(r.observations[0]), ["role", "content", "tool_call_id"]);
  assert.equal(r.observations[0].content, "got 1");
  const raw = new ProfileEpisode(profile(), box);
  await raw.begin("x");
  await raw.step({ tool_calls: [call("echo", null, '{"x": "1"}')] });
  assert.equal(raw.messages[2].content, null);
  assert.equal(raw.messages[2].tool_calls![0].function.arguments, '{"x": "1"}');
});

Deno.test("defaults: unknown tool and bad arguments in the trainer's words; NoCall ends with that reply", async () => {
  const ep = new ProfileEpisode(profile(), box);
  await ep.begin("x");
  const r = await ep.step({ tool_calls: [call("nope", {}), call("echo", null, "{bad")] });
  assert.equal(r.observations[0].content, "Error: unknown tool 'nope'. Available tools: echo");
  assert.match(String(r.observations[1].content), /^Error: invalid arguments for echo: /);
  assert.deepEqual(ep.flags, [{ turn: 0, unknown_tools: ["nope"] }], "the viewer's flag for the turn");
  const end = await ep.step({ content: "" });
  assert.equal(end.done, true);
  assert.equal(ep.answer(), "", "under NoCall the (empty) final reply is the answer");
});

Deno.test("mini-swe-agent: cut-off wording by finish_reason; three format errors in a row end the episode", async () => {
  const ep = new ProfileEpisode(getProfile("mini-swe-agent"), box);
  await ep.begin("x");
  const a = await ep.step({ content: "thinking...", finish_reason: "length" });
  assert.equal(a.observations[0].content, renderCutOff("length", false));
  assert.equal(a.done, false);
  await ep.step({ content: "still no call" });
  const c = await ep.step({ content: "nor now" });
  assert.deepEqual(ep.flags.map((f) => f.turn), [0, 1, 2], "each format error flags its turn");
  assert.equal(c.done, true);
  assert.equal(c.exitStatus, "format_errors");
  assert.equal(ep.answer(), "");
});

Deno.test("openhands-sdk: a text reply without a call ends the episode and is the answer; an empty one is nudged", async () => {
  const ep = new ProfileEpisode(getProfile("openhands-sdk"), box);
  await ep.begin("x");
  const nudged = await ep.step({ content: "" });
  assert.equal(nudged.done, false);
  assert.equal(nudged.observations[0].role, "user");
  const end = await ep.step({ content: "The answer is 35." });
  assert.equal(end.done, true);
  assert.equal(ep.answer(), "The answer is 35.");
});
