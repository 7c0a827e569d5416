/** The ATIF validator: a valid document passes, and each rule of Harbor's models rejects a document breaking it. */
import assert from "node:assert/strict";
import { validateAtif } from "./atif_validate.ts";

// deno-lint-ignore no-explicit-any
type Doc = Record<string, any>;

/** A document using every model: system, user and agent steps, calls, results, parts, metrics, a subagent. */
function valid(): Doc {
  return {
    schema_version: "ATIF-v1.7",
    session_id: "run-1",
    trajectory_id: "t-1",
    agent: {
      name: "opencode",
      version: "1.18.33",
      model_name: "m",
      tool_definitions: [{ type: "function", function: { name: "bash" } }],
      extra: {},
    },
    steps: [
      { step_id: 1, source: "system", message: "You are an agent.", timestamp: "2026-12-02T15:36:41.520Z" },
      { step_id: 2, source: "user", message: [{ type: "text", text: "Count the lines." }], is_copied_context: false },
      {
        step_id: 3,
        source: "agent",
        model_name: "m",
        reasoning_effort: "high",
        message: "",
        reasoning_content: "I will run wc.",
        tool_calls: [
          { tool_call_id: "c1", function_name: "bash", arguments: { command: "wc -l f" } },
          { tool_call_id: "c2", function_name: "bash", arguments: {}, extra: { raw_arguments: "{" } },
        ],
        observation: {
          results: [
            { source_call_id: "c1", content: "3 f" },
            { source_call_id: "c2", content: [{ type: "image", source: { media_type: "image/png", path: "a.png" } }] },
            {
              content: "shared",
              subagent_trajectory_ref: [{ trajectory_id: "sub-1" }, { trajectory_path: "s.json", session_id: "x" }],
              extra: {},
            },
          ],
        },
        metrics: {
          prompt_tokens: 10,
          completion_tokens: 2,
          cached_tokens: 0,
          cost_usd: 0.001,
          prompt_token_ids: [1, 2],
          completion_token_ids: [3, 4],
          logprobs: [-0.1, 0],
          extra: {},
        },
        llm_call_count: 1,
        extra: { prompt_drift: true },
      },
      { step_id: 4, source: "agent", message: "Answer: 3", llm_call_count: 0, tool_calls: [] },
    ],
    notes: "n",
    final_metrics: {
      total_prompt_tokens: 10,
      total_completion_tokens: 2,
      total_cached_tokens: 0,
      total_cost_usd: 0.001,
      total_steps: 4,
      extra: { reward: 1 },
    },
    continued_trajectory_ref: "next.json",
    extra: { exit_status: "stop_rule" },
    subagent_trajectories: [{
      schema_version: "ATIF-v1.7",
      trajectory_id: "sub-1",
      agent: { name: "sub", version: "1" },
      steps: [{ step_id: 1, source: "user", message: "hi" }],
    }],
  };
}

/** `valid()` changed by `edit`, validated; asserts some error matches `expected`. */
function rejects(edit: (d: Doc) => void, expected: RegExp): void {
  const d = valid();
  edit(d);
  const errors = validateAtif(d);
  assert.ok(errors.some((e) => expected.test(e)), `expected ${expected}, got ${JSON.stringify(errors)}`);
}

function accepts(edit: (d: Doc) => void): void {
  const d = valid();
  edit(d);
  assert.deepEqual(validateAtif(d), []);
}

Deno.test("atif validate: a document using every model is valid", () => {
  assert.deepEqual(validateAtif(valid()), []);
});

Deno.test("atif validate: the document must be an object", () => {
  assert.match(validateAtif([])[0], /expected Trajectory/);
  assert.match(validateAtif("x")[0], /expected Trajectory/);
});

Deno.test("atif validate: extra=forbid at every level", () => {
  const where: [string, (d: Doc) => Doc][] = [
    ["Trajectory", (d) => d],
    ["Agent", (d) => d.agent],
    ["Step", (d) => d.steps[0]],
    ["ToolCall", (d) => d.steps[2].tool_calls[0]],
    ["Observation", (d) => d.steps[2].observation],
    ["ObservationResult", (d) => d.steps[2].observation.results[0]],
    ["SubagentTrajectoryRef", (d) => d.steps[2].observation.results[2].subagent_trajectory_ref[0]],
    ["ContentPart", (d) => d.steps[1].message[0]],
    ["ImageSource", (d) => d.steps[2].observation.results[1].content[0].source],
    ["Metrics", (d) => d.steps[2].metrics],
    ["FinalMetrics", (d) => d.final_metrics],
    ["Trajectory", (d) => d.subagent_trajectories[0]],
  ];
  for (const [name, at] of where) {
    rejects((d) => (at(d).surprise = 1), new RegExp(`surprise: extra key not permitted in ${name}`));
  }
});

Deno.test("atif validate: required fields, and null only where the field is optional", () => {
  const required: [string, (d: Doc) => [Doc, string]][] = [
    ["schema_version", (d) => [d, "schema_version"]],
    ["agent", (d) => [d, "agent"]],
    ["steps", (d) => [d, "steps"]],
    ["agent.name", (d) => [d.agent, "name"]],
    ["agent.version", (d) => [d.agent, "version"]],
    ["steps[0].step_id", (d) => [d.steps[0], "step_id"]],
    ["steps[0].source", (d) => [d.steps[0], "source"]],
    ["steps[0].message", (d) => [d.steps[0], "message"]],
    ["steps[2].tool_calls[0].tool_call_id", (d) => [d.steps[2].tool_calls[0], "tool_call_id"]],
    ["steps[2].tool_calls[0].function_name", (d) => [d.steps[2].tool_calls[0], "function_name"]],
    ["steps[2].tool_calls[0].arguments", (d) => [d.steps[2].tool_calls[0], "arguments"]],
    ["steps[2].observation.results", (d) => [d.steps[2].observation, "results"]],
    ["steps[1].message[0].type", (d) => [d.steps[1].message[0], "type"]],
    ["content[0].source.media_type", (d) => [d.steps[2].observation.results[1].content[0].source, "media_type"]],
    ["content[0].source.path", (d) => [d.steps[2].observation.results[1].content[0].source, "path"]],
  ];
  for (const [path, at] of required) {
    const esc = path.replace(/[[\].]/g, "\\$&");
    rejects((d) => delete at(d)[0][at(d)[1]], new RegExp(`${esc}: required`));
    rejects((d) => (at(d)[0][at(d)[1]] = null), new RegExp(`${esc}: required`));
  }
  accepts((d) => Object.assign(d, { notes: null, session_id: null, final_metrics: null }));
  accepts((d) => Object.assign(d.steps[0], { timestamp: null, observation: null, model_name: null, metrics: null }));
});

Deno.test("atif validate: field types, without coercion", () => {
  rejects((d) => (d.agent.name = 7), /agent\.name: expected a string, got a number/);
  rejects((d) => (d.steps[0].step_id = "1"), /steps\[0\]\.step_id: expected an integer, got a string/);
  rejects((d) => (d.steps[0].step_id = 1.5), /step_id: expected an integer/);
  rejects((d) => (d.steps[0].step_id = true), /step_id: expected an integer, got a boolean/);
  rejects((d) => (d.steps[0].message = 3), /message: expected a string or a list of content parts/);
  rejects((d) => (d.steps[2].reasoning_effort = true), /reasoning_effort: expected a string or a number/);
  accepts((d) => (d.steps[2].reasoning_effort = 0.5));
  rejects((d) => (d.steps[1].is_copied_context = "no"), /is_copied_context: expected a boolean/);
  rejects((d) => (d.steps[2].tool_calls[0].arguments = '{"command":"ls"}'), /arguments: expected an object/);
  rejects((d) => (d.steps[2].tool_calls[0].arguments = []), /arguments: expected an object, got a list/);
  rejects((d) => (d.agent.tool_definitions = ["bash"]), /tool_definitions\[0\]: expected an object/);
  rejects((d) => (d.extra = []), /^extra: expected an object, got a list/);
  rejects((d) => (d.steps[0].extra = "x"), /steps\[0\]\.extra: expected an object/);
  rejects((d) => (d.steps[2].metrics.prompt_token_ids = [1, "2"]), /prompt_token_ids\[1\]: expected an integer/);
  rejects((d) => (d.steps[2].metrics.completion_token_ids = [0.5]), /completion_token_ids\[0\]: expected an integer/);
  rejects((d) => (d.steps[2].metrics.logprobs = ["-1"]), /logprobs\[0\]: expected a number/);
  rejects((d) => (d.steps[2].metrics.prompt_tokens = -1), /prompt_tokens: must be ≥ 0/);
  rejects((d) => (d.steps[2].metrics.cost_usd = "0.1"), /cost_usd: expected a number/);
  rejects((d) => (d.final_metrics.total_steps = 4.5), /total_steps: expected an integer/);
  rejects((d) => (d.final_metrics.total_cost_usd = "1"), /total_cost_usd: expected a number/);
  rejects((d) => (d.steps[2].observation.results = {}), /results: expected a list, got an object/);
});

Deno.test("atif validate: schema_version is ATIF-v1.0 .. ATIF-v1.7", () => {
  rejects((d) => (d.schema_version = "ATIF-v2.0"), /schema_version: must be one of ATIF-v1\.0, .*ATIF-v1\.7/);
  rejects((d) => (d.schema_version = "1.7"), /schema_version: must be one of/);
  accepts((d) => (d.schema_version = "ATIF-v1.0"));
});

Deno.test("atif validate: at least one step, numbered 1..n in order", () => {
  rejects((d) => (d.steps = []), /^steps: needs at least 1 item/);
  rejects((d) => (d.steps[3].step_id = 5), /steps\[3\]\.step_id: expected 4 \(1\.\.n in order\), got 5/);
  rejects(
    (d) => d.steps.reverse().forEach((s: Doc, i: number) => (s.step_id = 4 - i)),
    /steps\[0\]\.step_id: expected 1/,
  );
  rejects((d) => (d.steps[0].step_id = 0), /steps\[0\]\.step_id: must be ≥ 1/);
  rejects((d) => (d.subagent_trajectories[0].steps[0].step_id = 2), /subagent_trajectories\[0\]\.steps\[0\]\.step_id/);
});

Deno.test("atif validate: source is system, user or agent", () => {
  rejects((d) => (d.steps[2].source = "assistant"), /steps\[2\]\.source: must be one of system, user, agent/);
});

Deno.test("atif validate: timestamps are ISO 8601", () => {
  for (
    const bad of ["yesterday", "2024-13-01", "2024-02-30T10:00:00Z", "2024-05-14T25:00", "2024-05-14T09:00:01Zulu"]
  ) {
    rejects((d) => (d.steps[0].timestamp = bad), /timestamp: invalid ISO 8601/);
  }
  for (const ok of ["2024-05-14", "2024-05-14T09:00", "2024-05-14T09:00:01.915+02:00", "2024-02-29 23:59:59Z"]) {
    accepts((d) => (d.steps[0].timestamp = ok));
  }
});

Deno.test("atif validate: agent-only fields only on agent steps", () => {
  const values: Record<string, unknown> = {
    model_name: "m",
    reasoning_effort: "low",
    reasoning_content: "r",
    tool_calls: [],
    metrics: {},
  };
  for (const [k, v] of Object.entries(values)) {
    for (const i of [0, 1]) {
      rejects((d) => (d.steps[i][k] = v), new RegExp(`steps\\[${i}\\]\\.${k}: only allowed on agent steps`));
    }
  }
  accepts((d) => (d.steps[0].observation = { results: [{ content: "system-step observation (1.2)" }] }));
});

Deno.test("atif validate: llm_call_count is ≥ 0, and 0 forbids metrics and reasoning_content", () => {
  rejects((d) => (d.steps[3].llm_call_count = -1), /llm_call_count: must be ≥ 0/);
  rejects((d) => (d.steps[3].metrics = { prompt_tokens: 1 }), /steps\[3\]\.metrics: not allowed .* llm_call_count 0/);
  rejects(
    (d) => (d.steps[3].reasoning_content = "r"),
    /steps\[3\]\.reasoning_content: not allowed .* llm_call_count 0/,
  );
  accepts((d) => (d.steps[3].tool_calls = [{ tool_call_id: "x", function_name: "f", arguments: {} }]));
});

Deno.test("atif validate: source_call_id names a tool_call_id of its own step, and ids are unique per step", () => {
  rejects(
    (d) => (d.steps[2].observation.results[0].source_call_id = "c9"),
    /results\[0\]\.source_call_id: "c9" is no tool_call_id of this step/,
  );
  // A call of another step does not count.
  rejects((d) => {
    d.steps[3].tool_calls = [{ tool_call_id: "c3", function_name: "f", arguments: {} }];
    d.steps[2].observation.results[0].source_call_id = "c3";
  }, /source_call_id: "c3" is no tool_call_id/);
  rejects((d) => (d.steps[0].observation = { results: [{ source_call_id: "c1" }] }), /steps\[0\]\.observation/);
  rejects((d) => (d.steps[2].tool_calls[1].tool_call_id = "c1"), /tool_calls\[1\]\.tool_call_id: duplicate "c1"/);
  accepts((d) => (d.steps[2].observation.results[0].source_call_id = null));
});

Deno.test("atif validate: content parts: text has text, an image has a source of a known type", () => {
  const part = (d: Doc) => d.steps[1].message[0];
  const image = (d: Doc) => d.steps[2].observation.results[1].content[0];
  rejects((d) => delete part(d).text, /message\[0\]\.text: required when type is "text"/);
  rejects((d) => (part(d).source = { media_type: "image/png", path: "p" }), /source: not allowed when type is "text"/);
  rejects((d) => delete image(d).source, /content\[0\]\.source: required when type is "image"/);
  rejects((d) => (image(d).text = "t"), /content\[0\]\.text: not allowed when type is "image"/);
  rejects((d) => (image(d).source.media_type = "image/bmp"), /media_type: must be one of image\/jpeg/);
  rejects((d) => (part(d).type = "audio"), /type: must be one of text, image/);
});

Deno.test("atif validate: a subagent reference needs trajectory_id or trajectory_path", () => {
  rejects(
    (d) => (d.steps[2].observation.results[2].subagent_trajectory_ref[0] = { session_id: "s" }),
    /subagent_trajectory_ref\[0\]: needs trajectory_id or trajectory_path/,
  );
});

Deno.test("atif validate: embedded subagent trajectories are valid, with unique trajectory_ids", () => {
  rejects(
    (d) => delete d.subagent_trajectories[0].trajectory_id,
    /subagent_trajectories\[0\]\.trajectory_id: required/,
  );
  rejects(
    (d) => d.subagent_trajectories.push(structuredClone(d.subagent_trajectories[0])),
    /subagent_trajectories\[1\]\.trajectory_id: duplicate "sub-1"/,
  );
  rejects((d) => delete d.subagent_trajectories[0].agent, /subagent_trajectories\[0\]\.agent: required/);
});
