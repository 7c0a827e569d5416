/**
 * The shape of a Harbor conformance case: one test of Harbor's own task-model unit tests
 * (wrongbutworks/harbor@39b85872, v0.22.0) restated as a task directory and what pgs must do with it.
 * The runner is `tests/harbor_conformance_test.ts`; the cases live beside this file, one file per Harbor test file.
 */

/** Harbor's commit the cases are taken from. */
export const HARBOR = "wrongbutworks/harbor@39b85872";

/**
 * What loading the task must do. `refused`: `loadTask` throws, and its one-line message matches. `accepted`: it loads,
 * and every `check` key holds its value (deep equality; `undefined` means absent). A key is a dotted path into the
 * loaded `Task` (`config.verifier.timeoutSec`, `steps.0.config.name`), or starts with a root the runner computes:
 * `mode` (`resolveVerifierMode`), `stepMode.N` (`resolveStepVerifierMode` of step N), `plan.…` (the task's
 * `networkPlan`) or `stepPlan.N.…` (step N's). `warns`: some entry of `config.warnings` matches.
 */
export type Expect =
  | { refused: RegExp }
  | { accepted: true; check?: Record<string, unknown>; warns?: RegExp };

/** One case. */
export interface Case {
  /** Short and unique within its file. */
  id: string;
  /** `wrongbutworks/harbor@39b85872:<test file>::<test function>[param]`. */
  cite: string;
  /** The task.toml text. */
  toml: string;
  /**
   * Files to write, relative path → content; `null` leaves out one of the runner's defaults (`instruction.md`,
   * `tests/test.sh`, `environment/Dockerfile` with `FROM ubuntu:24.04`); a path ending in `/` is an empty directory.
   */
  files?: Record<string, string | null>;
  /** Write none of the runner's default files. */
  bare?: boolean;
  /** Host variables set (a string) or unset (`null`) while the task loads. */
  hostEnv?: Record<string, string | null>;
  /** The task directory's name (default `task`). */
  dirName?: string;
  /** Load the task by a path relative to the working directory rather than by its absolute path. */
  relative?: boolean;
  /** The verifier mode the network plan is resolved for, when Harbor's test passes one explicitly. */
  planMode?: "shared" | "separate";
  /** What pgs must do. */
  expect: Expect;
  /** Set only for pgs's documented design choices: why pgs differs, and what Harbor does instead. */
  differs?: string;
}

/** The cite of `test` in Harbor's `file` (a path under `tests/unit/`), with `[param]` when given. */
export function cite(file: string, test: string, param?: string): string {
  return `${HARBOR}:tests/unit/${file}::${test}${param === undefined ? "" : `[${param}]`}`;
}

/** A separate verifier's image in the Harbor layout (Harbor builds it from `tests/`). */
export const TESTS_DOCKERFILE = { "tests/Dockerfile": "FROM ubuntu:24.04\n" };

/** pgs's documented design differences, quoted by the cases that depend on one. */
export const DIFFERS = {
  unsetNetwork: "pgs runs a task that sets no [environment] network with no network (warned once per run); " +
    "Harbor's default is public",
  windows: 'pgs runs Linux containers only and refuses os = "windows"; Harbor loads Windows tasks',
  sidecar: "pgs refuses at load an artifact or collect hook whose service the task's environment/docker-compose.yaml " +
    "does not define (these cases have no compose file); Harbor's model accepts it and its trial refuses it at start " +
    "(src/harbor/trial/trial.py, _validate_artifact_configuration)",
  compose: "pgs refuses environment/docker-compose.yaml; Harbor runs compose environments",
  separateImage: "pgs refuses at load a separate verifier with nothing to run (no docker_image, no Dockerfile in " +
    "its tests folder), naming the file; Harbor loads the task and its trial fails building the verifier's image",
  seedDefault: "pgs's seed layout gives this field a default; Harbor leaves it unset (provider default)",
} as const;
