/** The CLI as a user runs it: exit codes, one-line errors, check on the examples, rows, and the bundle. */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { dockerTest } from "./docker_helpers.ts";

const ROOT = resolve(import.meta.dirname!, "..");
const MAIN = join(ROOT, "main.ts");

async function pgs(args: string[], cwd = ROOT, entry = MAIN) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", entry, ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("pgs --version and --help", async () => {
  const denoJson = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const v = await pgs(["--version"]);
  assert.equal(v.code, 0);
  assert.equal(v.stdout.trim(), `pgs ${denoJson.version}`);
  const h = await pgs(["--help"]);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /harbor check/);
  assert.match(h.stdout, /harbor rows/);
  const ch = await pgs(["harbor", "check", "--help"]);
  assert.equal(ch.code, 0);
  assert.match(ch.stdout, /^Usage: pgs harbor check PATH/);
});

Deno.test("every command's --help fits 120 columns and names every verifier mode it takes", async () => {
  const { COMMANDS } = await import("../cli/mod.ts");
  const { VERIFIER_MODES } = await import("../lib/task/verifier_mode.ts");
  for (const cmd of COMMANDS) {
    for (const line of cmd.usage.split("\n")) assert.ok(line.length <= 120, `${cmd.name} --help: ${line}`);
    if (cmd.name === "harness serve") {
      assert.match(cmd.usage, /the Gemini API/, "harness serve names its four wire APIs");
    }
    if (!cmd.usage.includes("--verifier-mode")) continue;
    for (const mode of VERIFIER_MODES) assert.match(cmd.usage, new RegExp(`\\b${mode}\\b`), `${cmd.name}: ${mode}`);
  }
});

Deno.test("usage errors are one line on stderr with exit 2", async () => {
  for (
    const [args, re] of [
      [["nope"], /^pgs: unknown command: nope/],
      [["harbor", "check"], /^pgs: harbor check: expected one PATH/],
      [["harbor", "check", "--bogus", "x"], /^pgs: harbor check: Unknown option '--bogus'/],
      [["harbor", "check", "x", "--workers", "zero"], /--workers must be a positive integer, got "zero"/],
      [["harbor", "rows", "examples/tasks"], /expected PATH and OUT.jsonl/],
      [["harbor", "rows", "/no/such/dir", "/tmp/x.jsonl"], /^pgs: \/no\/such\/dir: no such file or directory/],
    ] as const
  ) {
    const r = await pgs([...args]);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.match(r.stderr, re);
  }
});

Deno.test("a broken task.toml is reported with file, line and field", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "t", "tests"), { recursive: true });
    await Deno.writeTextFile(
      join(dir, "t", "task.toml"),
      '[task]\nname = "a/b"\n\n[environment]\ndocker_image = "pgs-base:1"\n# limits\ncpus = "two"\n',
    );
    await Deno.writeTextFile(join(dir, "t", "instruction.md"), "x");
    await Deno.writeTextFile(join(dir, "t", "tests", "test.sh"), "true");
    const out = join(dir, "rows.jsonl");
    const r = await pgs(["harbor", "rows", join(dir, "t"), out]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /task\.toml:7: environment\.cpus must be a positive number, got "two"/);
    await assert.rejects(Deno.stat(out));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("harbor rows writes the default system prompt and each instruction", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "rows.jsonl");
    const r = await pgs(["harbor", "rows", "examples/tasks", out]);
    assert.equal(r.code, 0, r.stderr);
    const rows = (await Deno.readTextFile(out)).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(rows.length, 4);
    for (const row of rows) {
      assert.ok(row.task_dir.startsWith(join(ROOT, "examples", "tasks")));
      assert.deepEqual(row.messages.map((m: { role: string }) => m.role), ["system", "user"]);
      assert.equal(
        row.messages[0].content,
        "You work in a Linux container through tools; the working directory is /workdir and there is no internet. " +
          "Inspect before you change things, check your result, then call submit and tell the user briefly what you did.",
      );
      assert.equal(row.messages[1].content, await Deno.readTextFile(join(row.task_dir, "instruction.md")));
    }
    const ns = await pgs(["harbor", "rows", "examples/tasks/count-error-lines", out, "--no-system"]);
    assert.equal(ns.code, 0);
    const [one] = (await Deno.readTextFile(out)).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(one.messages.map((m: { role: string }) => m.role), ["user"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

dockerTest("harbor check exits 1 on a task whose oracle fails, with --json per task", async () => {
  const r = await pgs(["harbor", "check", "examples/broken", "--json"]);
  assert.equal(r.code, 1, r.stderr);
  const [res] = JSON.parse(r.stdout);
  assert.equal(res.name, "pgs-examples/oracle-fails");
  assert.equal(res.valid, false);
  assert.equal(res.oracle_reward, 0);
  assert.equal(res.nop_reward, 0);
  assert.match(res.error, /oracle scored 0, must be 1/);
  assert.ok(res.timings_ms.oracle.verify > 0);
});

dockerTest("the bundle runs from a folder outside the repo (nothing reads source files at run time)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_bundle_" });
  try {
    const bundle = join(dir, "pgs.js");
    const b = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", "--platform=deno", "-o", bundle, MAIN],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(b.code, 0, new TextDecoder().decode(b.stderr));
    const away = join(dir, "elsewhere");
    await Deno.mkdir(away);
    await new Deno.Command("cp", { args: ["-r", join(ROOT, "examples", "tasks", "count-error-lines"), away] })
      .output();
    const v = await pgs(["--version"], away, bundle);
    assert.equal(v.code, 0, v.stderr);
    const r = await pgs(["harbor", "check", "count-error-lines"], away, bundle);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /ok +pgs-examples\/count-error-lines +oracle 1 +nop 0/);
    // A user's profile module there imports pgs by its name, as the README says: the bundle serves its own modules.
    await Deno.copyFile(join(ROOT, "tests", "fixtures", "my_profiles.ts"), join(away, "my_profiles.ts"));
    const p = await pgs(["harness", "profiles", "--profiles-module", "./my_profiles.ts"], away, bundle);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /^my-agent@0\.3\.0 \* +native +my-agent 0\.3\.0$/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
