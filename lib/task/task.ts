/** Task directories in the Harbor layout: finding them under a path and loading one into paths, instruction and config. */

import * as path from "node:path";
import { TaskError } from "../base/errors.ts";
import { warnOnce } from "../base/warn.ts";
import { parseTaskConfig, saidStepMode, type StepConfig, type TaskConfig } from "./task_config.ts";
import { COMPOSE_FILE } from "./compose.ts";
import type { ComposeModel } from "./compose_types.ts";
import { readTaskCompose } from "./task_compose.ts";
import { checkServices } from "./harbor_fields.ts";

/** The files of a task directory, absolute; optional ones are set only when they exist. */
export interface TaskPaths {
  /** The task directory. */
  dir: string;
  /** `task.toml`. */
  taskToml: string;
  /** `instruction.md`, when it exists. */
  instruction?: string;
  /** `environment/` (which may not exist when `docker_image` is set). */
  environmentDir: string;
  /** `environment/Dockerfile`, when it exists. */
  dockerfile?: string;
  /** `environment/workdir/`, the starting files, when it exists. */
  workdir?: string;
  /** `environment/setup.sh`, when it exists. */
  setupSh?: string;
  /**
   * `environment/`, when Harbor uploads its files into the working directory at start: a plain Harbor task (no
   * `workdir/`, `setup.sh` or capture) with a `docker_image`, no Dockerfile and files in `environment/`.
   */
  environmentUpload?: string;
  /** `tests/`. */
  testsDir: string;
  /** `tests/test.sh`. */
  testSh: string;
  /** `tests/Dockerfile`, a separate verifier's image, when it exists. */
  testsDockerfile?: string;
  /** `solution/solve.sh`, the oracle, when it exists. */
  solveSh?: string;
}

/** One step of a multi-step (`[[steps]]`) task: its config and the files of `steps/<name>/`. */
export interface TaskStep {
  /** The `[[steps]]` entry, fallbacks to the task level applied. */
  config: StepConfig;
  /** `steps/<name>/instruction.md`, the step's user turn. */
  instruction: string;
  /** `steps/<name>/workdir/`, uploaded into the working directory when the step starts, when it exists. */
  workdir?: string;
  /** `steps/<name>/workdir/setup.sh`, run after the upload as the step's agent user, when it exists. */
  setupSh?: string;
  /** `steps/<name>/tests/`, laid over the task's tests/ for this step's verifier, when it exists. */
  testsDir?: string;
  /** The step's oracle: `steps/<name>/solution/solve.sh`, else the task's `solution/solve.sh`, when either exists. */
  solveSh?: string;
  /** Without `solveSh`: what Harbor's oracle records on the step (its `FileNotFoundError`'s words), then verifies. */
  solveMissing?: string;
  /** Where a separate verifier of this step builds from: `steps/<name>/tests/` when it exists, else `tests/`. */
  verifierContext: string;
}

/** A loaded task directory. */
export interface Task {
  /** The task directory, absolute. */
  dir: string;
  /** `[task] name`, else the directory's basename. */
  name: string;
  /** `instruction.md`, else `[task] description` (with a warning naming the missing file). */
  instruction: string;
  /** The parsed task.toml. */
  config: TaskConfig;
  /** The task's files. */
  paths: TaskPaths;
  /** The steps of a multi-step task, in order; absent for a single-step task. */
  steps?: TaskStep[];
  /** `environment/docker-compose.yaml` read (see `lib/task/compose.ts`): the episode runs as a pod. Default: none. */
  compose?: ComposeModel;
}

/** Loads the task in `dir`; a missing or invalid file is a `TaskError` naming it. */
export async function loadTask(dir: string): Promise<Task> {
  const abs = path.resolve(dir);
  const taskToml = path.join(abs, "task.toml");
  const text = await readText(taskToml);
  if (text === undefined) throw new TaskError(shown(taskToml), "missing");
  const config = parseTaskConfig(text, shown(taskToml));

  const environmentDir = path.join(abs, "environment");
  const testsDir = path.join(abs, "tests");
  const paths: TaskPaths = {
    dir: abs,
    taskToml,
    environmentDir,
    testsDir,
    testSh: path.join(testsDir, "test.sh"),
  };
  const optional: [keyof TaskPaths, string, "file" | "dir"][] = [
    ["instruction", path.join(abs, "instruction.md"), "file"],
    ["dockerfile", path.join(environmentDir, "Dockerfile"), "file"],
    ["workdir", path.join(environmentDir, "workdir"), "dir"],
    ["setupSh", path.join(environmentDir, "setup.sh"), "file"],
    ["solveSh", path.join(abs, "solution", "solve.sh"), "file"],
    ["testsDockerfile", path.join(testsDir, "Dockerfile"), "file"],
  ];
  for (const [key, p, kind] of optional) {
    if (await exists(p, kind)) paths[key] = p;
  }

  if (
    !specLayout(paths, config) && !paths.dockerfile && config.environment.dockerImage &&
    await hasEntries(environmentDir)
  ) {
    paths.environmentUpload = environmentDir;
  }

  const steps = config.steps && await loadSteps(abs, config.steps, paths, config);
  let instruction = steps ? steps[0].instruction : paths.instruction ? await readText(paths.instruction) : undefined;
  if (instruction === undefined) {
    if (!config.description) {
      throw new TaskError(
        shown(path.join(abs, "instruction.md")),
        "missing, and task.toml has no [task] description",
      );
    }
    instruction = config.description;
    // The seed's layout allows this fallback; Harbor reads instruction.md unconditionally, so say which file is missing.
    const note = `${
      shown(path.join(abs, "instruction.md"))
    }: missing; the task's instruction is task.toml's [task] description (Harbor needs instruction.md)`;
    config.warnings.push(note);
    warnOnce(note);
  }
  // Harbor reads `docker-compose.yaml` only (another name is a file like any other of the build context).
  const composeFile = path.join(environmentDir, COMPOSE_FILE);
  const compose = await exists(composeFile, "file") ? await readTaskCompose(abs, config) : undefined;
  // Every artifact's and hook's service must be one the pod runs.
  const named = { artifacts: config.artifacts, steps: config.steps, collect: config.verifier.collect };
  checkServices(text, shown(taskToml), named, compose && Object.keys(compose.services));
  if (!paths.dockerfile && config.environment.dockerImage === undefined) {
    throw new TaskError(
      shown(path.join(environmentDir, "Dockerfile")),
      "missing, and task.toml has no [environment] docker_image",
    );
  }
  if (steps) {
    for (const step of steps) {
      if (saidStepMode(config, step.config) !== "separate") continue;
      // Harbor builds the step's verifier from steps/<name>/tests/ (else tests/) unless an image is named.
      const venv = step.config.verifier.environment ?? config.verifier.environment ?? config.environment;
      const dockerfile = path.join(step.verifierContext, "Dockerfile");
      if (!venv.dockerImage && !(await exists(dockerfile, "file"))) {
        throw new TaskError(
          shown(dockerfile),
          `missing: step ${step.config.name}'s separate verifier needs it, or a docker_image in ` +
            `[steps.verifier.environment] or [verifier.environment]`,
        );
      }
    }
  } else if (config.verifier.environmentMode === "separate") {
    // Harbor's separate verifier image owns /tests/test.sh itself; what it needs is an image to run.
    const venv = config.verifier.environment ?? config.environment;
    if (!venv.dockerImage && !paths.testsDockerfile) {
      throw new TaskError(
        shown(path.join(testsDir, "Dockerfile")),
        "missing: a separate verifier needs tests/Dockerfile or [verifier.environment] docker_image",
      );
    }
  } else if (!steps && !(await exists(paths.testSh, "file"))) throw new TaskError(shown(paths.testSh), "missing");

  const task: Task = { dir: abs, name: config.name ?? path.basename(abs), instruction, config, paths };
  if (steps) task.steps = steps;
  if (compose) task.compose = compose;
  return task;
}

/** True for a task in pgs's own layout (docs/spec-notes.md): starting files, a setup script or a live-state capture. */
export function specLayout(paths: TaskPaths, config: TaskConfig): boolean {
  return Boolean(paths.workdir || paths.setupSh || config.verifier.capture);
}

/** Reads `steps/<name>/` of every step; a missing instruction or test script names the file. */
async function loadSteps(
  dir: string,
  configs: StepConfig[],
  paths: TaskPaths,
  task: TaskConfig,
): Promise<TaskStep[]> {
  const rootTest = await exists(paths.testSh, "file");
  return await Promise.all(configs.map(async (config) => {
    const stepDir = path.join(dir, "steps", config.name);
    const instructionPath = path.join(stepDir, "instruction.md");
    const instruction = await readText(instructionPath);
    if (instruction === undefined) throw new TaskError(shown(instructionPath), `missing (step ${config.name})`);
    const step: TaskStep = { config, instruction, verifierContext: paths.testsDir };
    const workdir = path.join(stepDir, "workdir");
    if (await exists(workdir, "dir")) step.workdir = workdir;
    if (await exists(path.join(workdir, "setup.sh"), "file")) step.setupSh = path.join(workdir, "setup.sh");
    const tests = path.join(stepDir, "tests");
    if (await exists(tests, "dir")) step.testsDir = step.verifierContext = tests;
    // A separate step's image owns /tests/test.sh (Harbor checks the script of shared steps only).
    if (saidStepMode(task, config) !== "separate" && !rootTest && !await exists(path.join(tests, "test.sh"), "file")) {
      throw new TaskError(
        shown(path.join(tests, "test.sh")),
        `missing, and there is no tests/test.sh (step ${config.name})`,
      );
    }
    // As Harbor's oracle finds it: the step's own solution/ wins; without one, the task's.
    const own = path.join(stepDir, "solution", "solve.sh");
    if (await exists(path.join(stepDir, "solution"), "dir")) {
      if (await exists(own, "file")) step.solveSh = own;
      else step.solveMissing = `No OS-compatible solution script found for step '${config.name}': expected ${own}`;
    } else if (paths.solveSh) step.solveSh = paths.solveSh;
    else step.solveMissing = `Solution script not found: ${path.join(dir, "solution", "solve.sh")}`;
    return step;
  }));
}

/** The absolute task directories at or below `p` (a task directory, or a tree of them), sorted. */
export async function findTasks(p: string): Promise<string[]> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(p);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw new TaskError(p, "no such file or directory");
    throw e;
  }
  const abs = path.resolve(p);
  // Naming task.toml itself is a natural slip; it means its directory.
  if (info.isFile && path.basename(abs) === "task.toml") return [path.dirname(abs)];
  if (!info.isDirectory) throw new TaskError(p, "not a directory");

  const found: string[] = [];
  const visited = new Set<string>();
  async function walk(dir: string): Promise<void> {
    // Symlinked directories are followed (task sets share tasks that way), but each real directory only once.
    const real = await Deno.realPath(dir);
    if (visited.has(real)) return;
    visited.add(real);
    if (await exists(path.join(dir, "task.toml"), "file")) {
      found.push(dir);
      return;
    }
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name.startsWith(".")) continue;
      const child = path.join(dir, entry.name);
      if (entry.isDirectory || (entry.isSymlink && await exists(child, "dir"))) await walk(child);
    }
  }
  await walk(abs);
  if (found.length === 0) throw new TaskError(p, "no task directories (no task.toml) found");
  return found.sort();
}

/** `p` relative to the current directory when it lies under it (shorter messages), else absolute. */
function shown(p: string): string {
  const rel = path.relative(Deno.cwd(), p);
  const outside = rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
  return rel && !outside ? rel : p;
}

async function readText(p: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(p);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.IsADirectory) return undefined;
    throw e;
  }
}

async function hasEntries(dir: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(dir)) return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return false;
    throw e;
  }
  return false;
}

async function exists(p: string, kind: "file" | "dir"): Promise<boolean> {
  try {
    const info = await Deno.stat(p);
    return kind === "file" ? info.isFile : info.isDirectory;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return false;
    throw e;
  }
}
