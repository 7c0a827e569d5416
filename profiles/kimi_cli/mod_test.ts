/**
 * kimi-cli@1.49.0 from the fact sheet (§6): the tools' parameters against the golden, the `<system>` status tags,
 * every tool's results and errors in a real container, Grep skipping .env files, kosong's framework errors (the oracle is in
 * tests/profiles_suite_test.ts).
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { kimiCli } from "./mod.ts";
import { Builder, err, ok, toMessage } from "./result.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import { EXAMPLE_TASKS, runTool, withEpisode } from "../../tests/profile_helpers.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "kimi-cli");
const sys = (t: string) => ({ type: "text", text: `<system>${t}</system>` });
const txt = (t: string) => ({ type: "text", text: t });

Deno.test("kimi-cli: tool parameters are the golden ones, in kimi's order", async () => {
  const golden = JSON.parse(await Deno.readTextFile(resolve(GOLDEN, "parameters.json")));
  const p = kimiCli();
  const got = Object.fromEntries(p.tools.map((t) => [t.schema.function.name, t.schema.function.parameters]));
  assert.equal(JSON.stringify(got), JSON.stringify(golden));
  assert.equal(`${p.name}@${p.version}`, "kimi-cli@1.49.0");
  assert.equal(p.emulates.seedPin, "1.52.0");
  assert.deepEqual([p.protocol, p.stop, p.answer], [{ kind: "native" }, { kind: "no_call" }, { kind: "last_text" }]);
  assert.deepEqual(p.shell, { tool: "Shell", arg: "command" });
});

Deno.test("kimi-cli: <system> tags and ToolResultBuilder", () => {
  assert.equal(toMessage(ok("")), "<system>Tool output is empty.</system>");
  assert.equal(toMessage(ok("", "x")), "x");
  assert.deepEqual(toMessage(ok("m.", "x")), [sys("m."), txt("x")]);
  assert.equal(toMessage(err("bad")), "<system>ERROR: bad</system>");
  assert.deepEqual(toMessage(err("bad", "out")), [sys("ERROR: bad"), txt("out")]);
  const b = new Builder();
  b.write("a".repeat(2500) + "\nok\n");
  assert.deepEqual(b.ok("Done"), {
    isError: false,
    message: "Done. Output is truncated to fit in the message.",
    output: "a".repeat(1985) + "[...truncated]\nok\n",
  });
});

dockerTest("kimi-cli: tool results and errors", async (docker) => {
  await withEpisode(docker, kimiCli(), resolve(EXAMPLE_TASKS, "fix-word-count"), async (ep) => {
    // kimi's results are a string or a list of parts: the whole content.
    const run = async (name: string, args: unknown, raw?: string) =>
      (await runTool(ep, name, args, raw, { message: true })).content;
    // Shell
    assert.deepEqual(await run("Shell", { command: "echo hi; echo err >&2" }), [
      sys("Command executed successfully."),
      txt("hi\nerr\n"),
    ]);
    assert.equal(await run("Shell", { command: "true" }), "<system>Command executed successfully.</system>");
    assert.deepEqual(await run("Shell", { command: "echo x; exit 7" }), [
      sys("ERROR: Command failed with exit code: 7."),
      txt("x\n"),
    ]);
    assert.equal(await run("Shell", { command: "" }), "<system>ERROR: Command cannot be empty.</system>");
    assert.deepEqual(await run("Shell", { command: "echo s; sleep 5", timeout: 1 }), [
      sys("ERROR: Command killed by timeout (1s)"),
      txt("s\n"),
    ]);
    assert.equal(
      await run("Shell", { command: "ls", timeout: 301 }),
      "<system>ERROR: timeout must be <= 300s for foreground commands; use run_in_background=true for longer " +
        "timeouts (up to 86400s)</system>",
    );
    // WriteFile
    assert.equal(
      await run("WriteFile", { path: "a.txt", content: "one\ntwo\none\n" }),
      "<system>File successfully overwritten. Current size: 12 bytes.</system>",
    );
    assert.equal(
      await run("WriteFile", { path: "/workdir/a.txt", content: "x\n", mode: "append" }),
      "<system>File successfully appended to. Current size: 14 bytes.</system>",
    );
    assert.equal(
      await run("WriteFile", { path: "no/dir/a.txt", content: "" }),
      "<system>ERROR: `no/dir/a.txt` parent directory does not exist.</system>",
    );
    assert.equal(
      await run("WriteFile", { path: "../x.txt", content: "" }),
      "<system>ERROR: `../x.txt` is not an absolute path. You must provide an absolute path to write a file " +
        "outside the working directory.</system>",
    );
    // ReadFile
    assert.deepEqual(await run("ReadFile", { path: "a.txt" }), [
      sys("4 lines read from file starting from line 1. Total lines in file: 4. End of file reached."),
      txt("     1\tone\n     2\ttwo\n     3\tone\n     4\tx\n"),
    ]);
    assert.deepEqual(await run("ReadFile", { path: "a.txt", line_offset: -1 }), [
      sys("1 lines read from file starting from line 4. Total lines in file: 4. End of file reached."),
      txt("     4\tx\n"),
    ]);
    assert.equal(await run("ReadFile", { path: "nope.txt" }), "<system>ERROR: `nope.txt` does not exist.</system>");
    assert.equal(await run("ReadFile", { path: "/workdir" }), "<system>ERROR: `/workdir` is not a file.</system>");
    // StrReplaceFile: the first occurrence of a non-unique string
    assert.equal(
      await run("StrReplaceFile", { path: "a.txt", edit: { old: "one", new: "1" } }),
      "<system>File successfully edited. Applied 1 edit(s) with 1 total replacement(s).</system>",
    );
    assert.deepEqual(await run("Shell", { command: "cat a.txt" }), [
      sys("Command executed successfully."),
      txt("1\ntwo\none\nx\n"),
    ]);
    assert.equal(
      await run("StrReplaceFile", { path: "a.txt", edit: [{ old: "zzz", new: "y" }] }),
      "<system>ERROR: No replacements were made. The old string was not found in the file.</system>",
    );
    assert.equal(
      await run("StrReplaceFile", { path: "b.txt", edit: { old: "a", new: "b" } }),
      "<system>ERROR: `b.txt` does not exist.</system>",
    );
    // Glob
    assert.deepEqual(await run("Glob", { pattern: "a.*" }), [sys("Found 1 matches for pattern `a.*`."), txt("a.txt")]);
    assert.equal(await run("Glob", { pattern: "*.zzz" }), "<system>No matches found for pattern `*.zzz`.</system>");
    // Grep skips .env files
    await run("Shell", { command: "echo 'SECRET=one' > .env && echo 'one' > .env.example" });
    assert.deepEqual(await run("Grep", { pattern: "one", path: "/workdir", glob: "*.txt" }), "a.txt");
    const g = await run("Grep", { pattern: "^SECRET|^one", path: "/workdir", output_mode: "content" }) as {
      text: string;
    }[];
    assert.equal(
      g[0].text,
      "<system>Skipped 1 sensitive file(s) (.env) to protect secrets. These files may contain credentials or " +
        "private keys.</system>",
    );
    assert.match(g[1].text, /^\.env\.example:1:one$/m);
    assert.ok(!g[1].text.includes("SECRET"));
    assert.equal(
      await run("ReadFile", { path: ".env" }),
      "<system>ERROR: `.env` appears to contain secrets (matched sensitive file pattern). Reading this file is " +
        "blocked to protect credentials.</system>",
    );
    assert.equal(await run("Grep", { pattern: "qqqzzz" }), "<system>No matches found.</system>");
    // framework errors
    assert.equal(await run("Bash", { command: "ls" }), "<system>ERROR: Tool `Bash` not found</system>");
    assert.equal(
      await run("Shell", null, "{not json"),
      "<system>ERROR: Error parsing JSON arguments: Expecting property name enclosed in double quotes: line 1 " +
        "column 2 (char 1)</system>",
    );
    assert.match(
      String(await run("Shell", { cmd: "ls" })),
      /^<system>ERROR: Error validating JSON arguments: 1 validation error for Params\ncommand\n {2}Field required/,
    );
    assert.equal(ep.counters.unknownTools, 1);
  });
});

// The oracle on the example tasks is in tests/profiles_suite_test.ts.
