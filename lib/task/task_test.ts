import assert from "node:assert/strict";
import * as path from "node:path";
import { TaskError } from "../base/errors.ts";
import { setWarningSink } from "../base/warn.ts";
import { findTasks, loadTask } from "./task.ts";

/** Writes `files` (relative path → content) under a new temp dir, runs `fn`, and removes the dir. */
async function withTree(files: Record<string, string>, fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "pgs_task_test_" });
  try {
    for (const [rel, content] of Object.entries(files)) {
      const p = path.join(root, rel);
      await Deno.mkdir(path.dirname(p), { recursive: true });
      if (rel.endsWith("/")) await Deno.mkdir(p, { recursive: true });
      else await Deno.writeTextFile(p, content);
    }
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function rejectsTask(p: Promise<unknown>, message: string | RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof TaskError, `expected TaskError, got ${e}`);
    if (typeof message === "string") assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

/** How loadTask names a file: relative to the current directory when under it, else absolute. */
function shown(p: string): string {
  const rel = path.relative(Deno.cwd(), p);
  return rel.startsWith("..") || path.isAbsolute(rel) ? p : rel;
}

const TASK = {
  "task.toml": `[task]\nname = "org/hello"\n`,
  "instruction.md": "Say hi.\n",
  "environment/Dockerfile": "FROM base\n",
  "environment/workdir/a.txt": "a",
  "environment/setup.sh": "true",
  "tests/test.sh": "exit 0",
  "solution/solve.sh": "true",
};

Deno.test("loadTask: a full task", async () => {
  await withTree(TASK, async (root) => {
    const t = await loadTask(root);
    assert.equal(t.dir, root);
    assert.equal(t.name, "org/hello");
    assert.equal(t.instruction, "Say hi.\n");
    assert.equal(t.config.environment.cpus, 1);
    assert.deepEqual(t.paths, {
      dir: root,
      taskToml: path.join(root, "task.toml"),
      instruction: path.join(root, "instruction.md"),
      environmentDir: path.join(root, "environment"),
      dockerfile: path.join(root, "environment/Dockerfile"),
      workdir: path.join(root, "environment/workdir"),
      setupSh: path.join(root, "environment/setup.sh"),
      testsDir: path.join(root, "tests"),
      testSh: path.join(root, "tests/test.sh"),
      solveSh: path.join(root, "solution/solve.sh"),
    });
  });
});

Deno.test("loadTask: minimal task with docker_image, description and the directory's name", async () => {
  await withTree({
    "hello/task.toml": `[task]\ndescription = "Write ciao"\n[environment]\ndocker_image = "img:1"\n`,
    "hello/tests/test.sh": "exit 0",
  }, async (root) => {
    setWarningSink(() => {}); // the missing instruction.md's warning: see the next test
    const t = await loadTask(path.join(root, "hello")).finally(() => setWarningSink(null));
    assert.equal(t.name, "hello");
    assert.equal(t.instruction, "Write ciao");
    assert.equal(t.paths.dockerfile, undefined);
    assert.equal(t.paths.instruction, undefined);
    assert.equal(t.paths.workdir, undefined);
    assert.equal(t.paths.solveSh, undefined);
  });
});

Deno.test("loadTask: no instruction.md: the description, with one warning per task naming the file", async () => {
  const task = (description: string) => ({
    "task.toml": `[task]\ndescription = "${description}"\n[environment]\ndocker_image = "img:1"\n`,
    "tests/test.sh": "exit 0",
  });
  await withTree({ ...prefixed("a/", task("Write ciao")), ...prefixed("b/", task("Write hej")) }, async (root) => {
    const warned: string[] = [];
    setWarningSink((m) => warned.push(m));
    try {
      const a = await loadTask(path.join(root, "a"));
      await loadTask(path.join(root, "a")); // the same task again: no second warning
      const b = await loadTask(path.join(root, "b"));
      assert.deepEqual([a.instruction, b.instruction], ["Write ciao", "Write hej"]);
      const note = (t: string) =>
        `${
          shown(path.join(root, t, "instruction.md"))
        }: missing; the task's instruction is task.toml's [task] description (Harbor needs instruction.md)`;
      assert.deepEqual(warned, [note("a"), note("b")]);
      assert.deepEqual(a.config.warnings, [note("a")]);
    } finally {
      setWarningSink(null);
    }
  });
  await withTree(TASK, async (root) => {
    const warned: string[] = [];
    setWarningSink((m) => warned.push(m));
    try {
      await loadTask(root);
    } finally {
      setWarningSink(null);
    }
    assert.deepEqual(warned, [], "instruction.md present: no warning");
  });
});

/** `files` under the folder `dir` (ending in "/"). */
function prefixed(dir: string, files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([k, v]) => [dir + k, v]));
}

Deno.test("loadTask: missing files are named", async () => {
  const without = (name: string) => Object.fromEntries(Object.entries(TASK).filter(([k]) => k !== name));
  await withTree(without("tests/test.sh"), async (root) => {
    await rejectsTask(loadTask(root), `${shown(path.join(root, "tests/test.sh"))}: missing`);
  });
  await withTree(without("task.toml"), async (root) => {
    await rejectsTask(loadTask(root), `${shown(path.join(root, "task.toml"))}: missing`);
  });
  await withTree(without("environment/Dockerfile"), async (root) => {
    await rejectsTask(
      loadTask(root),
      `${shown(path.join(root, "environment/Dockerfile"))}: missing, and task.toml has no [environment] docker_image`,
    );
  });
  await withTree(without("instruction.md"), async (root) => {
    await rejectsTask(
      loadTask(root),
      `${shown(path.join(root, "instruction.md"))}: missing, and task.toml has no [task] description`,
    );
  });
});

Deno.test("loadTask: Harbor layouts pgs cannot run are refused in one line naming the file; compose tasks load", async () => {
  const plain = {
    "task.toml": `[environment]\ndocker_image = "img"\n`,
    "tests/test.sh": "exit 0",
    "instruction.md": "x",
  };
  // A compose task loads as a pod (lib/runtime/pod.ts); a field a pod cannot hold is refused naming file and service.
  const compose = "services:\n  web:\n    image: pgs-base:1\n";
  await withTree({ ...plain, "environment/docker-compose.yaml": compose }, async (root) => {
    const task = await loadTask(root);
    assert.deepEqual(task.compose?.startOrder, ["web"]);
    assert.deepEqual(task.config.warnings, []);
  });
  // main's fields that would replace pgs's box are said, once per task; its env, mounts and dependencies apply.
  const mainOwn = `services:\n  main:\n    command: [sleep, "1"]\n    working_dir: /x\n    environment: [A=1]\n${
    compose.slice("services:\n".length)
  }`;
  await withTree({ ...plain, "environment/docker-compose.yaml": mainOwn }, async (root) => {
    const task = await loadTask(root);
    assert.equal(task.compose?.services.main.environment.A, "1");
    assert.equal(task.config.warnings.length, 1);
    assert.match(task.config.warnings[0], /docker-compose\.yaml: main's command, working_dir are not applied by pgs/);
  });
  await withTree(
    { ...plain, "environment/docker-compose.yaml": `${compose}    privileged: true\n` },
    async (root) => await rejectsTask(loadTask(root), /docker-compose\.yaml.*web.*privileged/),
  );
  // Harbor reads docker-compose.yaml only: a compose.yaml is a file of the build context like any other.
  await withTree({ ...plain, "environment/compose.yaml": `${compose}    privileged: true\n` }, async (root) => {
    assert.equal((await loadTask(root)).compose, undefined);
  });
  // A Windows task has test.bat, not test.sh: the OS is named, not a missing file.
  const windows = { "task.toml": `[environment]\nos = "windows"\ndocker_image = "img"\n`, "tests/test.bat": "x" };
  await withTree({ ...windows, "instruction.md": "x" }, async (root) => {
    await rejectsTask(loadTask(root), /task\.toml:2: environment\.os = "windows" is not supported/);
  });
  await withTree(
    { ...plain, "task.toml": `[environment]\ndocker_image = "i"\n[[steps]]\nname = "a"\n` },
    async (root) => {
      await rejectsTask(loadTask(root), `${shown(path.join(root, "steps/a/instruction.md"))}: missing (step a)`);
    },
  );
  // A separate verifier owns /tests/test.sh; it needs an image instead.
  const separate = { "task.toml": `[verifier]\nenvironment_mode = "separate"\n[environment]\n`, "instruction.md": "x" };
  await withTree({ ...separate, "environment/Dockerfile": "FROM x\n", "tests/x": "" }, async (root) => {
    await rejectsTask(
      loadTask(root),
      `${shown(path.join(root, "tests/Dockerfile"))}: missing: a separate verifier needs tests/Dockerfile or ` +
        "[verifier.environment] docker_image",
    );
  });
  await withTree(
    { ...separate, "environment/Dockerfile": "FROM x\n", "tests/Dockerfile": "FROM y\n" },
    async (root) => {
      const t = await loadTask(root);
      assert.equal(t.paths.testsDockerfile, path.join(root, "tests/Dockerfile"));
    },
  );
});

Deno.test("loadTask: [[steps]]: per-step instruction, workdir, setup.sh, tests and solution (else the task's)", async () => {
  const files = {
    "task.toml": `[environment]\ndocker_image = "i"\n[[steps]]\nname = "one"\n[[steps]]\nname = "two"\n`,
    "steps/one/instruction.md": "First.\n",
    "steps/one/workdir/setup.sh": "true",
    "steps/one/tests/test.sh": "exit 0",
    "steps/one/solution/solve.sh": "true",
    "steps/two/instruction.md": "Second.\n",
    "solution/solve.sh": "true",
  };
  await withTree(files, async (root) => {
    await rejectsTask(
      loadTask(root),
      `${shown(path.join(root, "steps/two/tests/test.sh"))}: missing, and there is no tests/test.sh (step two)`,
    );
  });
  await withTree({ ...files, "tests/test.sh": "exit 0" }, async (root) => {
    const t = await loadTask(root);
    assert.equal(t.instruction, "First.\n", "no root instruction.md: the first step's");
    const [one, two] = t.steps!;
    assert.equal(one.workdir, path.join(root, "steps/one/workdir"));
    assert.equal(one.setupSh, path.join(root, "steps/one/workdir/setup.sh"));
    assert.equal(one.testsDir, path.join(root, "steps/one/tests"));
    assert.equal(one.solveSh, path.join(root, "steps/one/solution/solve.sh"));
    assert.equal(two.instruction, "Second.\n");
    assert.equal(two.workdir, undefined);
    assert.equal(two.testsDir, undefined);
    assert.equal(two.solveSh, path.join(root, "solution/solve.sh"), "no steps/two/solution/: the task's oracle");
  });
});

Deno.test("loadTask: a plain Harbor task's environment/ files go into the workdir when there is no Dockerfile", async () => {
  const plain = {
    "task.toml": `[environment]\ndocker_image = "img"\n`,
    "tests/test.sh": "exit 0",
    "instruction.md": "x",
  };
  await withTree({ ...plain, "environment/data.csv": "a,b\n" }, async (root) => {
    assert.equal((await loadTask(root)).paths.environmentUpload, path.join(root, "environment"));
  });
  await withTree({ ...plain, "environment/workdir/data.csv": "a,b\n" }, async (root) => {
    assert.equal((await loadTask(root)).paths.environmentUpload, undefined, "pgs's own layout stages workdir/ itself");
  });
  await withTree(plain, async (root) => {
    assert.equal((await loadTask(root)).paths.environmentUpload, undefined);
  });
});

Deno.test("loadTask: errors are shown relative to the current directory when under it", async () => {
  // A temp dir under the current directory, not Deno.chdir: the cwd is shared with tests running in parallel.
  const root = await Deno.makeTempDir({ dir: Deno.cwd(), prefix: ".pgs_task_test_" });
  try {
    await Deno.writeTextFile(path.join(root, "task.toml"), `[environment]\n\ncpus = "two"\n`);
    await rejectsTask(
      loadTask(root),
      `${path.relative(Deno.cwd(), root)}/task.toml:3: environment.cpus must be a positive number, got "two"`,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("findTasks: nesting, dot-directories, no descent into tasks", async () => {
  await withTree({
    "set/b/task.toml": "",
    "set/b/inner/task.toml": "",
    "set/a/task.toml": "",
    "set/group/c/task.toml": "",
    "set/.hidden/d/task.toml": "",
    "set/empty/": "",
    "set/notes.txt": "",
  }, async (root) => {
    const set = path.join(root, "set");
    assert.deepEqual(await findTasks(set), ["a", "b", "group/c"].map((t) => path.join(set, t)));
    assert.deepEqual(await findTasks(path.join(set, "b")), [path.join(set, "b")]);
    assert.deepEqual(await findTasks(path.join(set, "b", "task.toml")), [path.join(set, "b")]);
    await rejectsTask(
      findTasks(path.join(set, "empty")),
      `${path.join(set, "empty")}: no task directories (no task.toml) found`,
    );
    await rejectsTask(findTasks(path.join(set, "nope")), `${path.join(set, "nope")}: no such file or directory`);
  });
});
