/**
 * `pgs eval --policy script:FILE --allow-unknown-tools` (`allow-unknown-tools: true` in the YAML): a script may call a
 * tool the profile lacks, to test the profile's answer. A native-call profile answers it as its harness answers an
 * unknown tool (counted in `unknown_tools`); a text-protocol profile, whose replies name no tool, answers a turn of
 * native tool calls as its harness does (a format error). Without the flag the script is refused before any container.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { latestById, readTrajectories } from "../lib/eval/records/trajectory.ts";
import { COUNT, NO_ENGINE, oneLine } from "./cli_helpers.ts";
import { dockerTest } from "./docker_helpers.ts";
import { pgsEval } from "./eval_helpers.ts";

/** Turn 1 calls `python`, which neither profile has; turn 2 answers. */
const TURNS = [
  { tool_calls: [{ name: "python", arguments: { code: "print(1)" } }] },
  { content: "Answer: 35" },
];

Deno.test("eval --allow-unknown-tools: the refusal without it, the run past the check with it, only with script:", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_unknown_tools_" });
  try {
    const script = join(dir, "turns.json");
    await Deno.writeTextFile(script, JSON.stringify(TURNS));
    const env = { DOCKER_HOST: NO_ENGINE };
    const run = (...args: string[]) => ["eval", "--tasks", COUNT, "--policy", `script:${script}`, ...args];
    await oneLine(
      run("--profile", "opencode"),
      2,
      /^pgs: --policy script:.*turns\.json: calls python, which opencode@[\w.]+ does not have \(its tools: bash, /,
      env,
    );
    // With the flag the run gets as far as the engine, under either protocol.
    for (const profile of ["opencode", "mini-swe-agent-text"]) {
      await oneLine(
        run("--profile", profile, "--allow-unknown-tools"),
        2,
        /^pgs: eval: no docker engine answers at unix:\/\/\/nonexistent/,
        env,
      );
    }
    await oneLine(
      ["eval", "--tasks", COUNT, "--policy", "oracle", "--allow-unknown-tools"],
      2,
      /^pgs: eval: --allow-unknown-tools is only used with --policy script:FILE \(policy is oracle\)$/,
      env,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

dockerTest(
  "eval allow-unknown-tools: a native and a text profile each answer a tool they lack as their harness",
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_unknown_tools_" });
    try {
      const script = join(dir, "turns.json");
      await Deno.writeTextFile(script, JSON.stringify(TURNS));
      const config = join(dir, "eval.yaml");
      await Deno.writeTextFile(
        config,
        [
          `tasks: ${COUNT}`,
          `policy: script:${script}`,
          "allow-unknown-tools: true",
          "profiles: {opencode: 1, mini-swe-agent-text: 1}",
          "cross: true",
          "max-turns: 2",
          `out: ${join(dir, "out")}`,
        ].join("\n"),
      );
      const r = await pgsEval(["--config", config]);
      assert.equal(r.code, 0, r.stderr);
      const ts = latestById(readTrajectories(join(dir, "out", "trajectories.jsonl")));
      const by = (name: string) => {
        const t = ts.find((t) => t.profile.startsWith(`${name}@`));
        assert.ok(t, `${name}: ${ts.map((t) => t.profile)}`);
        assert.equal(t.error, undefined, `${name}: scored, not an infrastructure error`);
        assert.notEqual(t.reward, null);
        const [call, answer] = t.messages.filter((m) => m.role !== "system").slice(1); // after the task's user message
        assert.deepEqual(
          (call as { tool_calls?: { function: { name: string } }[] }).tool_calls?.map((c) => c.function.name),
          ["python"],
          `${name}: the script's call went as written`,
        );
        return { t, answer };
      };

      // opencode (native): its unknown-tool answer as a tool result, counted as an unknown tool.
      const native = by("opencode");
      assert.equal(native.answer.role, "tool");
      assert.equal(
        native.answer.content,
        "The arguments provided to the tool are invalid: Model tried to call unavailable tool 'python'. " +
          "Available tools: bash, edit, glob, grep, invalid, read, write.",
      );
      assert.deepEqual(native.t.counters, { tool_calls: 1, format_errors: 0, unknown_tools: 1 });
      assert.deepEqual(native.t.turn_flags, [{ turn: 0, unknown_tools: ["python"] }]);

      // mini-swe-agent-text (fenced): a reply of tool calls is mini_textbased.yaml's finish_reason=tool_calls answer, a
      // format error; its replies name no tool, so there is no unknown tool to count.
      const text = by("mini-swe-agent-text");
      assert.equal(text.answer.role, "user");
      assert.match(
        String(text.answer.content),
        /^Your previous response reached the output token limit \(finish_reason=tool_calls\) before you produced a complete action/,
      );
      assert.equal(text.t.counters.unknown_tools, 0);
      assert.equal(text.t.counters.tool_calls, 0);
      assert.ok(text.t.counters.format_errors >= 1, JSON.stringify(text.t.counters));
      assert.equal(text.t.turn_flags?.[0]?.turn, 0);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
