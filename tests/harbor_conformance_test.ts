/**
 * Harbor conformance: Harbor's own unit tests of its task model (wrongbutworks/harbor@39b85872, v0.22.0), restated
 * as task directories under `tests/harbor_conformance/`, are loaded with pgs's `loadTask` and must come out as they
 * do in Harbor: refused, or accepted with the same fields, verifier mode and network phases. A case marked `differs`
 * asserts one of pgs's documented design choices instead and says what Harbor does. One test per Harbor test file,
 * one step per case, each named by its cite.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { setWarningSink } from "../lib/base/warn.ts";
import { loadTask, type Task } from "../lib/task/task.ts";
import { networkPlan } from "../lib/task/network_plan.ts";
import { resolveStepVerifierMode, resolveVerifierMode } from "../lib/task/verifier_mode.ts";
import type { Case } from "./harbor_conformance/types.ts";
import { CASES as artifactValidation } from "./harbor_conformance/artifact_validation.ts";
import { CASES as deprecatedFields } from "./harbor_conformance/task_config_deprecated_fields.ts";
import { CASES as envResolver } from "./harbor_conformance/env_resolver.ts";
import { CASES as small } from "./harbor_conformance/task_config_small.ts";
import { CASES as mcp } from "./harbor_conformance/task_config_mcp.ts";
import { CASES as network } from "./harbor_conformance/task_config_network.ts";
import { CASES as networkSteps } from "./harbor_conformance/task_config_network_steps.ts";
import { CASES as networkPolicy } from "./harbor_conformance/network_policy.ts";
import { CASES as os } from "./harbor_conformance/task_config_os.ts";
import { CASES as stepsVerifierOs } from "./harbor_conformance/task_validate_steps_verifier_os.ts";
import { CASES as validation } from "./harbor_conformance/validation.ts";
import { CASES as verifierConfig } from "./harbor_conformance/verifier_config_validation.ts";
import { CASES as verifierModeCases } from "./harbor_conformance/verifier_mode.ts";

const DEFAULT_FILES: Record<string, string> = {
  "instruction.md": "Do nothing.\n",
  "tests/test.sh": "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n",
  "environment/Dockerfile": "FROM ubuntu:24.04\n",
};

/** Writes the case's task directory under `root`; returns it. */
async function materialize(root: string, c: Case): Promise<string> {
  const dir = path.join(root, c.dirName ?? "task");
  const files: Record<string, string | null> = { ...(c.bare ? {} : DEFAULT_FILES), ...c.files, "task.toml": c.toml };
  await Deno.mkdir(dir, { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    if (content === null) continue;
    const p = path.join(dir, rel);
    if (rel.endsWith("/")) {
      await Deno.mkdir(p, { recursive: true });
      continue;
    }
    await Deno.mkdir(path.dirname(p), { recursive: true });
    await Deno.writeTextFile(p, content);
  }
  return dir;
}

/** Loads the case's task with its host variables set; the error when it is refused. */
async function load(c: Case, dir: string): Promise<{ task?: Task; error?: Error }> {
  const saved = new Map<string, string | undefined>();
  for (const [k, v] of Object.entries(c.hostEnv ?? {})) {
    saved.set(k, Deno.env.get(k));
    if (v === null) Deno.env.delete(k);
    else Deno.env.set(k, v);
  }
  try {
    // A relative path rather than a chdir into the task: the working directory is the whole process's.
    return { task: await loadTask(c.relative ? path.relative(Deno.cwd(), dir) || "." : dir) };
  } catch (e) {
    if (!(e instanceof Error)) throw e;
    return { error: e };
  } finally {
    for (const [k, v] of saved) v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
  }
}

/** Follows a dotted path (`a.b.0.c`) into `v`. */
function dig(v: unknown, keys: string[]): unknown {
  let cur = v;
  for (const k of keys) {
    if (cur === undefined || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** The value a check key names (see `Expect` in `types.ts`). */
function lookup(c: Case, task: Task, key: string): unknown {
  const [root, ...rest] = key.split(".");
  const stepAt = (i: string) => {
    const step = task.steps?.[Number(i)];
    assert.ok(step, `${key}: the task has no step ${i}`);
    return step;
  };
  if (root === "mode") return resolveVerifierMode(task);
  if (root === "stepMode") return resolveStepVerifierMode(task, stepAt(rest[0]));
  if (root === "plan") {
    const plan = networkPlan(task.config, c.planMode ?? resolveVerifierMode(task));
    return dig(plan, rest);
  }
  if (root === "stepPlan") {
    const step = stepAt(rest[0]);
    const mode = c.planMode ?? resolveStepVerifierMode(task, step);
    return dig(networkPlan(task.config, mode, step.config), rest.slice(1));
  }
  return dig(task, [root, ...rest]);
}

/** Runs one case: materialize, load, compare. */
async function runCase(c: Case): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "pgs-harbor-conformance-" });
  // Checks read config.warnings; the sink only keeps the run's stderr quiet.
  setWarningSink(() => {});
  try {
    const dir = await materialize(root, c);
    const { task, error } = await load(c, dir);
    if ("refused" in c.expect) {
      assert.ok(error, `expected a refusal matching ${c.expect.refused}, but the task loaded`);
      assert.ok(!error.message.includes("\n"), `the refusal is not one line: ${JSON.stringify(error.message)}`);
      // The temporary directory is left out, so that a pattern cannot match the path (every message names task.toml).
      assert.match(error.message.replaceAll(root, "<tmp>"), c.expect.refused);
      return;
    }
    assert.ok(task, `expected the task to load, but: ${error?.message}`);
    for (const [key, want] of Object.entries(c.expect.check ?? {})) {
      assert.deepStrictEqual(lookup(c, task, key), want, key);
    }
    if (c.expect.warns) {
      const re = c.expect.warns;
      assert.ok(
        task.config.warnings.some((w) => re.test(w)),
        `expected a warning matching ${re}, got ${JSON.stringify(task.config.warnings)}`,
      );
    }
  } finally {
    setWarningSink(null);
    await Deno.remove(root, { recursive: true });
  }
}

/** One Deno test per Harbor test file, one step per case. */
function suite(file: string, cases: Case[]): void {
  Deno.test(`harbor conformance: ${file}`, async (t) => {
    const ids = new Set<string>();
    for (const c of cases) {
      assert.ok(!ids.has(c.id), `duplicate case id ${c.id}`);
      ids.add(c.id);
      await t.step(`${c.id}: ${c.cite}${c.differs ? " (differs)" : ""}`, () => runCase(c));
    }
  });
}

/** The cases of `all` whose cite names `file` (one data file may hold several small Harbor files). */
function of(file: string, all: Case[]): Case[] {
  return all.filter((c) => c.cite.includes(`/${file}::`));
}

suite("models/test_task_config_deprecated_fields.py", deprecatedFields);
for (
  const f of [
    "test_task_config_env.py",
    "test_task_config_skills.py",
    "test_task_config_timeout.py",
    "test_task_config_toml.py",
    "test_task_config_workdir.py",
    "test_task_short_name.py",
    "test_task_windows_multistep.py",
  ]
) suite(`models/${f}`, of(f, small));
suite("models/test_task_config_mcp.py", mcp);
suite("models/test_task_config_network.py", [...network, ...networkSteps]);
suite("models/test_task_config_os.py", os);
suite("models/test_task_validate_steps_verifier_os.py", stepsVerifierOs);
suite("models/test_validation.py", validation);
suite("models/test_verifier_config_validation.py", verifierConfig);
suite("models/test_verifier_mode.py", verifierModeCases);
suite("models/test_artifact_validation.py", artifactValidation);
suite("test_env_resolver.py", of("test_env_resolver.py", envResolver));
suite("test_verifier_env_override.py", of("test_verifier_env_override.py", envResolver));
suite("test_task_relative_path.py", of("test_task_relative_path.py", small));
suite("trial/test_network_policy.py", networkPolicy);
