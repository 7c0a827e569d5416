/**
 * Profile versions derived from one another, against their own recordings: gemini-cli 0.61.0 refuses to edit build
 * files (Build File Protection) where 0.60.0 edits them, the same calls replayed under each version
 * (tests/golden/gemini-cli{,@0.60.0}/replay_build_files.json); and the derived versions' first requests are their
 * recordings' (0.60.0 and pi 0.73.0 send what 0.61.0 and 0.73.1 send).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { getProfile } from "../lib/harness/registry.ts";
import { isBuildFile } from "../profiles/gemini_cli/build_files.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { dockerTest } from "./docker_helpers.ts";
import { EXAMPLE_TASKS, withEpisode } from "./profile_helpers.ts";

registerBuiltins();

const GOLDEN = resolve(import.meta.dirname!, "golden");
const COUNT = resolve(EXAMPLE_TASKS, "count-error-lines");
const read = async (f: string) => JSON.parse(await Deno.readTextFile(resolve(GOLDEN, f)));
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
/** A process group id differs run to run. */
const volatile = (t: string) => t.replace(/PGID: \d+/g, "PGID: N");

interface Recorded {
  i: number;
  name: string;
  id: string;
  arguments: string;
  result: string;
}

for (const [spec, golden] of [["gemini-cli@0.61.0", "gemini-cli"], ["gemini-cli@0.60.0", "gemini-cli@0.60.0"]]) {
  dockerTest(`${spec}: build configuration files replayed as recorded`, async (docker) => {
    const calls: Recorded[] = await read(`${golden}/replay_build_files.json`);
    await withEpisode(docker, getProfile(spec), COUNT, async (ep) => {
      for (const c of calls) {
        const r = await ep.step({
          content: "",
          tool_calls: [{ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }],
        });
        // `make`: the task image has none (the recording's machine had it).
        if (c.name === "run_shell_command" && c.arguments.includes('"make"')) continue;
        const want = c.result.replaceAll("{workdir}", ep.session.workdir);
        assert.equal(volatile(String(r.observations[0].content)), volatile(want), `${spec} #${c.i} ${c.arguments}`);
      }
    });
  });
}

Deno.test("gemini-cli build files: names, Dockerfile.* and extensions, by basename", () => {
  for (const f of ["Makefile", "package.json", "Dockerfile.dev", "rules.bzl", "x.CMAKE", "BUILD"]) {
    assert.ok(isBuildFile(f), f);
  }
  for (const f of ["app.log", "QUESTION.md", "makefile.txt", "build", "Dockerfile-old"]) assert.ok(!isBuildFile(f), f);
});

Deno.test("derived versions: the first request is the base version's, as recorded", async () => {
  for (
    const [spec, base, golden] of [["gemini-cli@0.60.0", "gemini-cli@0.61.0", "gemini-cli@0.60.0"], [
      "pi@0.73.0",
      "pi@0.73.1",
      "pi@0.73.0",
    ]]
  ) {
    const p = getProfile(spec), b = getProfile(base);
    assert.equal(p.extends?.version, b.version);
    assert.deepEqual(p.tools.map((t) => t.schema), b.tools.map((t) => t.schema), spec);
    assert.equal(p.system, b.system);
    assert.deepEqual(p.generation, b.generation);
    assert.equal(p.capture?.local?.version, p.version, "the capture recipe installs this version");
    // The recording of this version: every tool the profile sends has the base recording's description.
    const mine = (await read(`${golden}/models.json`)).models["stub-model"];
    const theirs = (await read(`${base.split("@")[0]}/models.json`)).models["stub-model"];
    assert.deepEqual(mine.description_sha256, theirs.description_sha256, spec);
    for (const t of p.tools) {
      const d = t.schema.function;
      if (sha(d.description) === theirs.description_sha256[d.name]) {
        assert.equal(sha(d.description), mine.description_sha256[d.name]);
      }
    }
  }
});

for (const [spec, golden] of [["qwen-code@0.24.4", "qwen-code"], ["qwen-code@0.24.3", "qwen-code@0.24.3"]]) {
  dockerTest(`${spec}: read_file with nulls and on a notebook replayed as recorded`, async (docker) => {
    const calls: Recorded[] = await read(`${golden}/replay_null_params.json`);
    await withEpisode(docker, getProfile(spec), COUNT, async (ep) => {
      for (const c of calls) {
        const r = await ep.step({
          content: "",
          tool_calls: [{ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }],
        });
        const got = r.observations[0].content;
        // Two gaps of the profile, in both versions alike: write_file's workspace-artifact sentence, and a notebook
        // read whole (qwen renders its cells; here it comes back raw).
        if (c.name === "write_file" || (c.arguments.includes(".ipynb") && c.result.includes("Jupyter Notebook ("))) {
          continue;
        }
        assert.equal(typeof got === "string" ? got : JSON.stringify(got), c.result, `${spec} #${c.i} ${c.arguments}`);
      }
    });
  });
}
