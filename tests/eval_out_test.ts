/**
 * `pgs eval --out` as a user meets it: another `-k` on a run's folder is refused like any other setting, a folder of
 * the user's own files is never written into, and the viewer eval writes has the title `pgs view` gives that run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { dockerTest } from "./docker_helpers.ts";
import { pgs, pgsEval, ROOT } from "./eval_helpers.ts";

const TASK = join(ROOT, "tests", "fixtures", "answer-key");
const title = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];

dockerTest("eval --out: another -k is refused, a folder of other files is refused, one title for the run", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_eval_out_" });
  try {
    const out = join(dir, "run");
    const args = ["--tasks", TASK, "--policy", "oracle", "--out", out];
    const first = await pgsEval([...args, "-k", "1"]);
    assert.equal(first.code, 0, first.stderr);
    const more = await pgsEval([...args, "-k", "2"]);
    assert.equal(more.code, 2, more.stderr);
    assert.match(more.stderr.trim(), /^pgs: --out .* holds a run with other settings \(k: 1 → 2\); use --redo/);
    assert.equal((await Deno.readTextFile(join(out, "trajectories.jsonl"))).trim().split("\n").length, 1);

    // The viewer eval wrote and the one pgs view writes have one title.
    const page = join(dir, "view.html");
    const v = await pgs(["view", out, "--out", page]);
    assert.equal(v.code, 0, v.stderr);
    const written = title(await Deno.readTextFile(join(out, "viewer.html")));
    assert.ok(written?.startsWith("pgs eval: "), written);
    assert.equal(title(await Deno.readTextFile(page)), written);

    // A folder of the user's own files is not a run: refused, and nothing written there.
    const mine = join(dir, "mine");
    await Deno.mkdir(mine);
    await Deno.writeTextFile(join(mine, "notes.txt"), "mine\n");
    const r = await pgsEval(["--tasks", TASK, "--policy", "oracle", "--out", mine]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.match(r.stderr, /--out .*mine is a folder holding other files \(notes\.txt\) and no pgs run/);
    assert.deepEqual([...Deno.readDirSync(mine)].map((e) => e.name), ["notes.txt"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

dockerTest("eval: a mix of more profiles than tasks warns at the start and names the undrawn ones", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pgs_eval_mix_" });
  try {
    const out = join(dir, "run");
    const mix = ["--profiles", "opencode=1,pi=1,mini-swe-agent=1"];
    const r = await pgsEval(["--tasks", TASK, "--policy", "oracle", ...mix, "--out", out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /1 task for a mix of 3 profiles: each task draws one profile/);
    const summary = JSON.parse(await Deno.readTextFile(join(out, "summary.json")));
    assert.equal(summary.undrawn_profiles.length, 2);
    assert.equal(Object.keys(summary.profiles).length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
