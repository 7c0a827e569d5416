/**
 * codex's patch language against a table of patches, each with codex 0.171.0's own message or result
 * (openai/codex@343074d4207d572809bd8cea15f4be1d09d98e0b: codex-rs/apply-patch/src/{parser,streaming_parser,
 * seek_sequence,file_update,invocation,lib}.rs and its tests/fixtures/scenarios), on a local environment; the
 * Docker case is in tests/ops_test.ts.
 */
import assert from "node:assert/strict";
import { LocalExecEnv } from "../../../lib/runtime/local_env.ts";
import { OpError } from "../../../lib/harness/tools/ops.ts";
import { applyPatch, patchSummaryText } from "./apply.ts";
import { extractHeredocPatch } from "./heredoc.ts";
import { parsePatch, PatchParseError } from "./parse.ts";

const P = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");

const CODE = "def f():\n    pass\n\ndef g():\n    return 1\n\nx = f()\n";

interface Case {
  name: string;
  files?: Record<string, string>;
  patch: string;
  /** The summary on success. */
  summary?: string;
  /** The files after (null: absent). */
  after?: Record<string, string | null>;
  /** codex's message on failure, `{w}` standing for the working directory; files stay as they were. */
  error?: string;
  stage?: "verify" | "empty";
}

const CASES: Case[] = [
  {
    name: "add a file (parents created)",
    patch: P("*** Add File: notes/hello.txt", "+hi", "+there"),
    summary: "A notes/hello.txt",
    after: { "notes/hello.txt": "hi\nthere\n" },
  },
  {
    name: "update with several hunks",
    files: { "f.py": CODE },
    patch: P(
      "*** Update File: f.py",
      "@@ def f():",
      "-    pass",
      "+    return 0",
      "@@",
      " def g():",
      "-    return 1",
      "+    return 2",
    ),
    summary: "M f.py",
    after: { "f.py": "def f():\n    return 0\n\ndef g():\n    return 2\n\nx = f()\n" },
  },
  {
    name: "move to a new directory",
    files: { "old/name.txt": "a\nb\n" },
    patch: P("*** Update File: old/name.txt", "*** Move to: renamed/dir/name.txt", "@@", "-a", "+A"),
    summary: "M renamed/dir/name.txt",
    after: { "old/name.txt": null, "renamed/dir/name.txt": "A\nb\n" },
  },
  {
    name: "delete a file",
    files: { "gone.txt": "bye\n" },
    patch: P("*** Delete File: gone.txt"),
    summary: "D gone.txt",
    after: { "gone.txt": null },
  },
  {
    name: "summary order is added, modified, deleted",
    files: { "d.txt": "x\n", "m.txt": "1\n" },
    patch: P("*** Delete File: d.txt", "*** Update File: m.txt", "-1", "+2", "*** Add File: a.txt", "+new"),
    summary: "A a.txt\nM m.txt\nD d.txt",
  },
  {
    name: "context that does not match",
    files: { "f.py": CODE },
    patch: P("*** Update File: f.py", "@@", "-this line does not exist", "+x"),
    error: "Failed to find expected lines in {w}/f.py:\nthis line does not exist",
  },
  {
    name: "an @@ context line that is not in the file",
    files: { "f.py": CODE },
    patch: P("*** Update File: f.py", "@@ def nope():", "-    pass", "+    return 0"),
    error: "Failed to find context 'def nope():' in {w}/f.py",
  },
  {
    name: "ambiguous context applies at its first occurrence",
    files: { "t.txt": "start\nsame\nend\nsame\n" },
    patch: P("*** Update File: t.txt", "@@", "-same", "+changed"),
    summary: "M t.txt",
    after: { "t.txt": "start\nchanged\nend\nsame\n" },
  },
  {
    name: "an @@ context narrows the search",
    files: { "t.txt": "a:\n  v\nb:\n  v\n" },
    patch: P("*** Update File: t.txt", "@@ b:", "-  v", "+  w"),
    after: { "t.txt": "a:\n  v\nb:\n  w\n" },
  },
  {
    // The matched region is replaced by the chunk's new side, context lines as the patch spells them.
    name: "trailing whitespace, indentation and typographic punctuation are forgiven; context is rewritten",
    files: { "t.txt": "alpha   \n\t beta\nsay \u201chi\u201d \u2014 ok\n" },
    patch: P("*** Update File: t.txt", "@@", " alpha", "-beta", "+BETA", '-say "hi" - ok', "+said"),
    after: { "t.txt": "alpha\nBETA\nsaid\n" },
  },
  {
    name: "a pure addition appends at the end; a missing final newline is added",
    files: { "t.txt": "one\ntwo" },
    patch: P("*** Update File: t.txt", "@@", "+three"),
    after: { "t.txt": "one\ntwo\nthree\n" },
  },
  {
    name: "End of File anchors the chunk at the end",
    files: { "t.txt": "x\nend\nx\nend\n" },
    patch: P("*** Update File: t.txt", "@@", " x", "-end", "+END", "*** End of File"),
    after: { "t.txt": "x\nend\nx\nEND\n" },
  },
  {
    name: "an empty line in a chunk is an empty context line",
    files: { "f.py": CODE },
    patch: P("*** Update File: f.py", "@@", "     pass", "", "-def g():", "+def h():"),
    after: { "f.py": CODE.replace("def g", "def h") },
  },
  {
    name: "a heredoc-wrapped patch is unwrapped",
    patch: ["<<'EOF'", P("*** Add File: h.txt", "+x"), "EOF"].join("\n"),
    summary: "A h.txt",
  },
  {
    name: "padded markers are accepted",
    patch: "  *** Begin Patch  \n*** Add File: p.txt\n+x\n  *** End Patch\n\n",
    summary: "A p.txt",
  },
  {
    name: "no Begin Patch line",
    patch: "*** Add File: x.txt\n+x\n*** End Patch",
    error: "invalid patch: The first line of the patch must be '*** Begin Patch'",
  },
  {
    name: "no End Patch line",
    patch: "*** Begin Patch\n*** Add File: x.txt\n+x",
    error: "invalid patch: The last line of the patch must be '*** End Patch'",
  },
  {
    name: "an invalid hunk header",
    patch: P("*** Frobnicate File: x.txt"),
    error:
      "invalid hunk at line 2, '*** Frobnicate File: x.txt' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
  },
  {
    name: "an empty update hunk",
    files: { "f.txt": "a\n" },
    patch: P("*** Update File: f.txt"),
    error: "invalid hunk at line 2, Update file hunk for path 'f.txt' is empty",
  },
  {
    name: "a line without a prefix after changes",
    files: { "f.txt": "a\n" },
    patch: P("*** Update File: f.txt", "-a", "+b", "garbage"),
    error: "invalid hunk at line 5, Expected update hunk to start with a @@ context marker, got: 'garbage'",
  },
  {
    name: "a line without a prefix first",
    files: { "f.txt": "a\n" },
    patch: P("*** Update File: f.txt", "garbage"),
    error:
      "invalid hunk at line 3, Unexpected line found in update hunk: 'garbage'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)",
  },
  {
    name: "an @@ with no lines before End Patch",
    files: { "f.txt": "a\n" },
    patch: P("*** Update File: f.txt", "@@"),
    error: "invalid hunk at line 4, Update hunk does not contain any lines",
  },
  {
    name: "deleting a missing file",
    patch: P("*** Delete File: missing.txt"),
    error: "Failed to read {w}/missing.txt: No such file or directory (os error 2)",
  },
  {
    name: "updating a missing file",
    patch: P("*** Update File: missing.txt", "@@", "-a", "+b"),
    error: "Failed to read file to update {w}/missing.txt: No such file or directory (os error 2)",
  },
  {
    name: "deleting a directory",
    files: { "dir/keep.txt": "k\n" },
    patch: P("*** Delete File: dir"),
    error: "Failed to read {w}/dir: Is a directory (os error 21)",
  },
  {
    name: "two operations on one file",
    files: { "f.txt": "a\n" },
    patch: P("*** Update File: f.txt", "-a", "+b", "*** Delete File: f.txt"),
    error: "invalid patch: multiple operations target {w}/f.txt",
  },
  {
    name: "verification fails before anything is written",
    patch: P("*** Add File: new.txt", "+x", "*** Update File: missing.txt", "-a", "+b"),
    error: "Failed to read file to update {w}/missing.txt: No such file or directory (os error 2)",
    after: { "new.txt": null },
  },
  { name: "an empty patch", patch: P(), error: "empty patch", stage: "empty" },
];

for (const c of CASES) {
  Deno.test(`apply_patch: ${c.name}`, async () => {
    const box = await LocalExecEnv.create({ files: c.files });
    try {
      const w = box.workdir;
      if (c.error !== undefined) {
        await assert.rejects(applyPatch(box, c.patch), (e) => {
          assert.ok(e instanceof OpError && e.kind === "bad_patch", String(e));
          assert.equal(e.data.message, c.error!.replaceAll("{w}", w));
          assert.equal(e.data.stage, c.stage ?? "verify");
          return true;
        });
        for (const [p, body] of Object.entries(c.files ?? {})) assert.equal(await Deno.readTextFile(`${w}/${p}`), body);
      } else {
        const s = await applyPatch(box, c.patch);
        if (c.summary) {
          assert.equal(patchSummaryText(s), `Success. Updated the following files:\n${c.summary}\n`);
        }
      }
      for (const [p, body] of Object.entries(c.after ?? {})) {
        const got = await Deno.readTextFile(`${w}/${p}`).catch(() => null);
        assert.equal(got, body, p);
      }
    } finally {
      await box.remove();
    }
  });
}

Deno.test("apply_patch: a parse error carries codex's line number and inner message", () => {
  assert.throws(() => parsePatch(P("*** Update File: a", "@@", "@@ x")), (e) => {
    assert.ok(e instanceof PatchParseError);
    assert.equal(e.line, 4);
    assert.match(e.reason, /^Unexpected line found in update hunk: '@@ x'/);
    return true;
  });
  assert.deepEqual(
    parsePatch(P("*** Update File: a", "*** Move to: b", "@@ ctx", " k", "-o", "+n", "*** End of File")),
    [
      {
        kind: "update",
        path: "a",
        moveTo: "b",
        chunks: [{ context: "ctx", oldLines: ["k", "o"], newLines: ["k", "n"], endOfFile: true }],
      },
    ],
  );
});

Deno.test("apply_patch: which scripts codex intercepts (its own invocation tests' forms)", () => {
  const body = "*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch";
  const script = (prefix: string, delim = "'PATCH'", suffix = "") =>
    `${prefix}apply_patch <<${delim}\n${body}\nPATCH${suffix}`;
  assert.deepEqual(extractHeredocPatch(script("")), { body, workdir: null });
  assert.deepEqual(extractHeredocPatch(script("", "PATCH")), { body, workdir: null });
  assert.deepEqual(extractHeredocPatch(script("", '"PATCH"', "\n")), { body, workdir: null });
  assert.deepEqual(extractHeredocPatch(script("").replace("apply_patch", "applypatch")), { body, workdir: null });
  assert.deepEqual(extractHeredocPatch(script("cd foo && ")), { body, workdir: "foo" });
  assert.deepEqual(extractHeredocPatch(script("cd 'foo bar' && ")), { body, workdir: "foo bar" });
  assert.deepEqual(extractHeredocPatch(script('cd "foo bar" && ')), { body, workdir: "foo bar" });
  for (
    const prefix of ["cd foo; ", "cd bar || ", "cd bar | ", "echo foo && ", "cd foo && cd bar && ", "cd foo bar && "]
  ) {
    assert.equal(extractHeredocPatch(script(prefix)), null, prefix);
  }
  assert.equal(extractHeredocPatch(script("", "'PATCH'", " && echo done")), null);
  assert.equal(extractHeredocPatch(`apply_patch foo <<'PATCH'\n${body}\nPATCH`), null);
  assert.equal(extractHeredocPatch(`apply_patch <<'PATCH'\n${body}\n`), null, "no end delimiter");
  assert.equal(extractHeredocPatch("ls -la"), null);
});
