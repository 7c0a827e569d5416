/** HarborEnv under the default dialect against the real engine, and the per-group profile draw. */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { drawProfile } from "../lib/harness/draw.ts";
import { resolveProfileName } from "../lib/harness/registry.ts";
import type { ToolCall } from "../lib/harness/types.ts";
import { dockerTest } from "./docker_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const TASKS = resolve(import.meta.dirname!, "..", "examples", "tasks");
const call = (id: string, name: string, args: unknown): ToolCall => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});

Deno.test("profile draw: deterministic per (seed, group, task) and proportional to the weights", () => {
  const w = { a: 1, b: 3 };
  assert.equal(drawProfile(w, 0, "g1", "/t"), drawProfile(w, 0, "g1", "/t"));
  const counts: Record<string, number> = { a: 0, b: 0 };
  for (let g = 0; g < 4000; g++) counts[drawProfile(w, 7, `group-${g}`, "/tasks/x")]++;
  const share = counts.b / 4000;
  assert.ok(share > 0.72 && share < 0.78, `share of b: ${share}`);
  const seeds = new Set(Array.from({ length: 20 }, (_, s) => drawProfile({ a: 1, b: 1 }, s, "g", "/t")));
  assert.equal(seeds.size, 2, "different seeds reach both profiles");
});

Deno.test("unknown profile names fail when the environment is built, listing the valid names", () => {
  assert.throws(
    () => new HarborEnv({ profile: "nosuch" }),
    /unknown harness profile "nosuch"; valid: .*palingenesis-default@1/,
  );
  assert.throws(() => new HarborEnv({ profiles: { "palingenesis-default@9": 1 } }), /unknown harness profile/);
  assert.equal(resolveProfileName("palingenesis-default@1"), "palingenesis-default@1");
});

dockerTest(
  "default dialect: first prompt, tools, an oracle through bash, submit, reward and metrics",
  async (docker) => {
    const env = new HarborEnv({ runtime: docker });
    const dir = resolve(TASKS, "fix-word-count");
    const ep = await env.reset({ task_dir: dir });
    try {
      assert.equal(ep.info.harness_profile, "palingenesis-default@1");
      assert.deepEqual(ep.tools.map((t) => t.function.name), [
        "bash",
        "read_file",
        "write_file",
        "str_replace",
        "submit",
      ]);
      assert.equal(
        ep.firstMessages[0].content,
        "You work in a Linux container through tools; the working directory is /workdir and there is no internet. " +
          "Inspect before you change things, check your result, then call submit and tell the user briefly what you did.",
      );
      assert.equal(ep.firstMessages[1].content, await Deno.readTextFile(resolve(dir, "instruction.md")));

      let r = await ep.step({ content: "", tool_calls: [call("c1", "read_file", { path: "nope.txt" })] });
      assert.deepEqual(r.observations, [{
        role: "tool",
        tool_call_id: "c1",
        content: "Error: cannot read 'nope.txt'",
      }]);
      r = await ep.step({ tool_calls: [call("c2", "bash", { command: "echo out; echo err >&2; exit 3" })] });
      assert.equal(r.observations[0].content, "[exit code 3]\nout\n[stderr]\nerr\n");
      r = await ep.step({ tool_calls: [call("c3", "str_replace", { path: "README.md", old: "the", new: "THE" })] });
      assert.match(
        String(r.observations[0].content),
        /^Error: the text occurs \d+ times in README.md; it must occur exactly once$/,
      );
      r = await ep.step({ tool_calls: [call("c4", "write_file", { path: "sub/dir/x.txt", content: "x\n" })] });
      assert.equal(r.observations[0].content, "Wrote sub/dir/x.txt.");
      r = await ep.step({ tool_calls: [call("c5", "nosuch", {})] });
      assert.equal(
        r.observations[0].content,
        "Error: unknown tool 'nosuch'. Available tools: bash, read_file, write_file, str_replace, submit",
      );

      const solve = await Deno.readTextFile(resolve(dir, "solution", "solve.sh"));
      r = await ep.step({ tool_calls: [call("c6", "bash", { command: `rm -r sub\n${solve}` })] });
      assert.match(String(r.observations[0].content), /^\[exit code 0\]/);
      r = await ep.step({ content: "Fixed the tokenizer.", tool_calls: [call("c7", "submit", {})] });
      assert.equal(r.done, true);
      const score = await ep.finish();
      assert.equal(score.reward, 1, score.verifierError);
      assert.equal(score.answer, "Fixed the tokenizer.");
      assert.equal(score.metrics["metric/profile/palingenesis-default@1"], 1);
      assert.equal(score.metrics["metric/profile/palingenesis-default@1/reward"], 1);
      assert.equal(score.metrics["metric/reward"], 1);
    } finally {
      await ep.close();
    }
  },
);

dockerTest(
  "HarborEnv: chat-template kwargs model < profile < row; a row's harness_profile forces; tools subset",
  async (
    docker,
  ) => {
    const env = new HarborEnv({
      runtime: docker,
      profiles: { "palingenesis-default@1": 1, "pi": 1 },
      chatTemplateKwargs: { a: 1, b: 1, c: 1 },
      profileChatKwargs: { "palingenesis-default@1": { b: 2, c: 2 } },
      tools: ["bash", "submit"],
    });
    const row = {
      task_dir: resolve(TASKS, "count-error-lines"),
      harness_profile: "palingenesis-default@1",
      chat_template_kwargs: { c: 3 },
    };
    const groups = new Set(Array.from({ length: 12 }, (_, g) => env.pick({ task_dir: row.task_dir }, g)));
    assert.deepEqual([...groups].sort(), ["palingenesis-default@1", "pi"], "the mix reaches both profiles");
    const ep = await env.reset(row, 5);
    try {
      assert.equal(ep.info.harness_profile, "palingenesis-default@1");
      assert.deepEqual(ep.chatTemplateKwargs, { a: 1, b: 2, c: 3 });
      assert.deepEqual(ep.tools.map((t) => t.function.name), ["bash", "submit"]);
    } finally {
      await ep.close();
    }
    assert.throws(() => new HarborEnv({ profileChatKwargs: { nosuch: {} } }), /unknown harness profile "nosuch"/);
  },
);
