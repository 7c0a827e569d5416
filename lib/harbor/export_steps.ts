/**
 * `harbor export --steps`: converts tasks in pgs's own layout into Harbor's single-step `[[steps]]` layout, the
 * way to publish a task set for the Harbor CLI (docs/spec-notes.md): `steps/main/instruction.md`,
 * `steps/main/workdir/` (the starting files) with `steps/main/workdir/setup.sh`, and the task's `tests/` and
 * `solution/`. What Harbor would run differently is made explicit in task.toml (the working directory, no network) or
 * flagged.
 */
import * as path from "node:path";
import { parse, stringify } from "npm:smol-toml@1.9.1";
import { UsageError } from "../base/errors.ts";
import type { ImageStore } from "../runtime/images.ts";
import { loadTask, type Task } from "../task/task.ts";
import { taskWorkdir } from "../runtime/workdir.ts";

/** What exporting one task did. */
export interface ExportedTask {
  /** The task's name. */
  name: string;
  /** The source task directory. */
  source: string;
  /** The exported directory. */
  dir: string;
  /** What will behave differently under the Harbor CLI (e.g. a task graded on the reply). */
  flags: string[];
}

/** The step every exported task has. */
const STEP = "main";

/**
 * Exports every task in `dirs` into `out`, one folder per task (its directory name). `out` must not exist: the set
 * is written into a sibling temporary folder and renamed into place only when every task exported.
 */
export async function exportSteps(dirs: string[], out: string, store?: () => ImageStore): Promise<ExportedTask[]> {
  if (await exists(out)) throw new UsageError(`harbor export: ${out} already exists; give a new folder`);
  const tmp = `${out.replace(/\/+$/, "")}.tmp-${Deno.pid}`;
  await Deno.mkdir(tmp, { recursive: true });
  try {
    const done: ExportedTask[] = [];
    const names = new Set<string>();
    for (const dir of dirs) {
      const task = await loadTask(dir);
      const base = path.basename(task.dir);
      if (names.has(base)) throw new UsageError(`harbor export: two tasks are named ${base}`);
      names.add(base);
      const flags = await exportTask(task, path.join(tmp, base), store);
      done.push({ name: task.name, source: task.dir, dir: path.join(out, base), flags });
    }
    await Deno.rename(tmp, out);
    return done;
  } catch (e) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw e;
  }
}

async function exportTask(task: Task, dest: string, store?: () => ImageStore): Promise<string[]> {
  if (task.steps) throw new UsageError(`harbor export: ${task.name} is already in the [[steps]] layout`);
  const flags: string[] = [];
  const doc = parse(await Deno.readTextFile(task.paths.taskToml)) as Record<string, unknown>;
  const environment = table(doc, "environment");
  // Harbor uploads a step's workdir/ into the container's WORKDIR and runs there: name the task's working directory.
  environment.workdir = await taskWorkdir(task, store);
  // Harbor's default network is public; pgs's is none.
  if (task.config.environment.networkUnset) environment.allow_internet = false;
  const verifier = table(doc, "verifier");
  if ("capture" in verifier) {
    flags.push(
      "[verifier] capture is pgs's and Harbor ignores it: tests that read /logs/agent/capture.json score 0 there; " +
        "have them read the live state (Harbor runs them in the agent's container)",
    );
    delete verifier.capture;
    delete verifier.capture_timeout_sec;
  }
  if (!Object.keys(verifier).length) delete doc.verifier;
  // Harbor checks [environment.healthcheck] before a step's setup.sh has run; pgs checks it after setup.sh.
  const step: Record<string, unknown> = { name: STEP };
  if (environment.healthcheck) {
    step.healthcheck = environment.healthcheck;
    delete environment.healthcheck;
  }
  doc.steps = [step];

  await Deno.mkdir(path.join(dest, "steps", STEP), { recursive: true });
  await Deno.writeTextFile(path.join(dest, "task.toml"), stringify(doc) + "\n");
  await Deno.writeTextFile(path.join(dest, "steps", STEP, "instruction.md"), task.instruction);
  const stepWorkdir = path.join(dest, "steps", STEP, "workdir");
  if (task.paths.workdir) await copyTree(task.paths.workdir, stepWorkdir);
  if (task.paths.setupSh) {
    await Deno.mkdir(stepWorkdir, { recursive: true });
    if (await exists(path.join(stepWorkdir, "setup.sh"))) {
      throw new UsageError(
        `harbor export: ${task.name}: environment/workdir/setup.sh would clash with environment/setup.sh`,
      );
    }
    // Harbor runs steps/<name>/workdir/setup.sh from the working directory and leaves it there; pgs's agent
    // never saw its setup, so the exported one removes itself after running the task's script unchanged.
    const script = await Deno.readTextFile(task.paths.setupSh);
    const wrapped =
      `#!/bin/bash\n# environment/setup.sh of ${task.name}, run as Harbor runs a step's setup; then removed.\n` +
      `bash -s <<'PGS_SETUP_EOF'\n${script}${
        script.endsWith("\n") ? "" : "\n"
      }PGS_SETUP_EOF\nrc=$?\nrm -f -- "$0"\nexit $rc\n`;
    await Deno.writeTextFile(path.join(stepWorkdir, "setup.sh"), wrapped, { mode: 0o755 });
  }
  await copyTree(task.paths.testsDir, path.join(dest, "tests"));
  const solution = path.join(task.dir, "solution");
  if (await exists(solution)) await copyTree(solution, path.join(dest, "solution"));
  if (await exists(task.paths.environmentDir)) {
    await copyTree(task.paths.environmentDir, path.join(dest, "environment"), ["workdir", "setup.sh"]);
  }
  if (await grepTree(task.paths.testsDir, "final_message")) {
    flags.push(
      "graded on the reply: Harbor never writes /logs/agent/final_message.md, so its tests score 0 there; have the " +
        "task ask for the answer in a file the tests read (e.g. answer.txt in the working directory)",
    );
  }
  return flags;
}

function table(doc: Record<string, unknown>, key: string): Record<string, unknown> {
  const t = (doc[key] ??= {}) as Record<string, unknown>;
  return t;
}

/** Copies `src` into `dest` (modes kept, symlinks as links), leaving out the top-level names in `skip`. */
async function copyTree(src: string, dest: string, skip: string[] = []): Promise<void> {
  await Deno.mkdir(dest, { recursive: true });
  for await (const e of Deno.readDir(src)) {
    if (skip.includes(e.name)) continue;
    const from = path.join(src, e.name), to = path.join(dest, e.name);
    if (e.isSymlink) await Deno.symlink(await Deno.readLink(from), to);
    else if (e.isDirectory) await copyTree(from, to);
    else if (e.isFile) {
      await Deno.copyFile(from, to);
      const mode = (await Deno.stat(from)).mode;
      if (mode !== null) await Deno.chmod(to, mode & 0o7777);
    }
  }
}

async function grepTree(dir: string, needle: string): Promise<boolean> {
  for await (const e of Deno.readDir(dir)) {
    const p = path.join(dir, e.name);
    if (e.isDirectory && await grepTree(p, needle)) return true;
    if (e.isFile && (await Deno.readTextFile(p).catch(() => "")).includes(needle)) return true;
  }
  return false;
}

async function exists(p: string): Promise<boolean> {
  try {
    await Deno.lstat(p);
    return true;
  } catch {
    return false;
  }
}
