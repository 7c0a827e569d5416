/** `pgs harness profiles` and `pgs harness show`, with a user's module of profiles. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { loadProfilesModule } from "../lib/harness/load_module.ts";
import { profileNames } from "../lib/harness/registry.ts";
import { dockerTest } from "./docker_helpers.ts";
import { call } from "./profile_helpers.ts";
import { pgs, ROOT } from "./eval_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();

const MODULE = join(ROOT, "tests", "fixtures", "my_profiles.ts");

Deno.test("harness profiles: one line a profile by default, the detail with --long; --json too", async () => {
  const r = await pgs(["harness", "profiles", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const all = JSON.parse(r.stdout);
  const v1 = all.find((p: { name: string; version: string }) => p.name === "palingenesis-default" && p.version === "1");
  assert.deepEqual(v1.tools, ["bash", "read_file", "write_file", "str_replace", "submit"]);
  assert.equal(v1.stop, "submit");
  for (const p of all) assert.ok(p.emulates.sources.length > 0, `${p.name} names its sources`);
  const short = await pgs(["harness", "profiles", "--profiles-module", MODULE]);
  assert.equal(short.code, 0, short.stderr);
  const lines = short.stdout.trimEnd().split("\n");
  assert.equal(lines.length, all.length + 1 + 2, "one line a profile, then a blank line and the legend");
  assert.match(short.stdout, /^my-agent@0\.3\.0 \* +native +my-agent 0\.3\.0$/m);
  assert.match(short.stdout, /^palingenesis-default@1 +native +palingenesis HarborEnv 1$/m);
  assert.match(short.stdout, /^mini-swe-agent-text@[\w.]+ \* +fenced +mini-swe-agent /m);
  assert.match(short.stdout, /^claude-code@[\w.]+ \* +native +claude-code [\w.]+$/m, "the harness without its detail");
  const long = await pgs(["harness", "profiles", "--long", "--profiles-module", MODULE]);
  assert.equal(long.code, 0, long.stderr);
  assert.match(long.stdout, /^my-agent@0\.3\.0 \*$/m);
  assert.match(long.stdout, /emulates my-agent 0\.3\.0/);
  assert.match(long.stdout, /^ {2}protocol native; tools Bash, Edit, Read, Write$/m);
  const both = await pgs(["harness", "profiles", "--long", "--json"]);
  assert.equal(both.code, 2);
});

Deno.test("a profile module outside the repository imports pgs as @pgs/pgs/harness (docs/profile-authoring.md's way)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_user_module_" });
  try {
    // A helper beside it, imported relatively: it resolves against the user's folder, not the staged copy's.
    const text = await Deno.readTextFile(MODULE);
    await Deno.writeTextFile(join(dir, "name.ts"), 'export const NAME = "my-agent";\n');
    await Deno.writeTextFile(
      join(dir, "my_profiles.ts"),
      `import { NAME } from "./name.ts";\n${text.replace('name: "my-agent"', "name: NAME")}`,
    );
    const r = await pgs(["harness", "profiles", "--profiles-module", join(dir, "my_profiles.ts")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^my-agent@0\.3\.0 \* +native +my-agent 0\.3\.0$/m);
    assert.equal([...Deno.readDirSync(dir)].length, 2, "nothing is written beside the user's module");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("harness show: unknown profile and missing --task are usage errors", async () => {
  const r = await pgs(["harness", "show", "nosuch", "--task", "examples/tasks/count-error-lines"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown harness profile "nosuch"; valid: /);
  const t = await pgs(["harness", "show", "palingenesis-default"]);
  assert.equal(t.code, 2);
  assert.match(t.stderr, /--task DIR is required/);
});

dockerTest("harness show renders the first prompt and tools of a task", async () => {
  const r = await pgs([
    "harness",
    "show",
    "palingenesis-default@1",
    "--task",
    "examples/tasks/count-error-lines",
    "--json",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const shown = JSON.parse(r.stdout);
  assert.equal(shown.profile, "palingenesis-default@1");
  assert.deepEqual(shown.messages.map((m: { role: string }) => m.role), ["system", "user"]);
  assert.equal(shown.tools.length, 5);
});

dockerTest("a user's module of profiles drives an episode (the design's my-agent)", async (docker) => {
  assert.equal(await loadProfilesModule(MODULE), 1);
  assert.ok(profileNames().includes("my-agent@0.3.0"));
  const env = new HarborEnv({ runtime: docker, profiles: { "my-agent": 1, "palingenesis-default@1": 0 } });
  const ep = await env.reset({ task_dir: join(ROOT, "examples", "tasks", "count-error-lines") }, 3);
  try {
    assert.equal(ep.info.harness_profile, "my-agent@0.3.0");
    assert.equal(ep.firstMessages[0].content, "You are my-agent. Work in /workdir. Answer in one line when done.");
    let r = await ep.step({ tool_calls: [call("cat", { path: "nope" }), call("ls", {})] });
    assert.deepEqual(r.observations.map((o) => o.content), [
      "cat: nope: No such file or directory",
      "no such tool: ls",
    ]);
    r = await ep.step({ tool_calls: [call("shell", { command: "bash /dev/stdin <<'X'\necho hi\nX" })] });
    assert.equal(r.observations[0].content, "$ exit 0\nhi\n");
    const solve = await Deno.readTextFile(join(ROOT, "examples", "tasks", "count-error-lines", "solution", "solve.sh"));
    r = await ep.step({ tool_calls: [call("shell", { command: solve })] });
    const answer = String(r.observations[0].content).split("\n").slice(1).join("\n").trim();
    r = await ep.step({ content: answer });
    assert.equal(r.done, true);
    const score = await ep.finish();
    assert.equal(score.reward, 1, score.verifierError);
    assert.equal(score.metrics["metric/profile/my-agent"], 1);
    assert.equal(score.metrics["metric/profile/palingenesis-default@1"], 0);
  } finally {
    await ep.close();
  }
});
