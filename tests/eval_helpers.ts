/** Helpers of the CLI and eval tests: run the CLI, and recount a summary from its trajectories. */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import type { Summary } from "../lib/eval/records/summary.ts";
import { latestById, readTrajectories, type Trajectory } from "../lib/eval/records/trajectory.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import type { Turn } from "../lib/script/script.ts";
import { startStub } from "../stub/server.ts";

registerBuiltins();

/** The repository root. */
export const ROOT = resolve(import.meta.dirname!, "..");

/** Runs `pgs ...args` (from the repository root) to its end; returns the exit code, stdout and stderr. */
export async function pgs(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", join(ROOT, "main.ts"), ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Runs `pgs eval ...args` to its end. */
export function pgsEval(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  return pgs(["eval", ...args]);
}

/**
 * Runs `pgs eval --endpoint STUB ...args` against a stub answering `turns` by history (model `stub-model`, its
 * requests recorded in `dir/requests.jsonl`), then stops the stub; the eval must exit 0.
 */
export async function stubEval(dir: string, turns: Turn[], args: string[]): Promise<void> {
  const stub = await startStub({
    turns,
    out: join(dir, "requests.jsonl"),
    model: "stub-model",
    hostname: "127.0.0.1",
    advance: "history",
  });
  try {
    const r = await pgsEval(["--endpoint", `http://127.0.0.1:${stub.port}`, ...args]);
    assert.equal(r.code, 0, r.stderr);
  } finally {
    await stub.stop();
  }
}

/**
 * A stub that plays count-error-lines by history (one bash call, then "Answer: 35"), as model `stub`, recording its
 * requests in `dir/requests.jsonl`: the model of the tests that drive env serve through the Python client.
 */
export function countStub(dir: string): ReturnType<typeof startStub> {
  return startStub({
    turns: [
      { tool_calls: [{ name: "bash", arguments: { command: "awk '$3 == \"ERROR\"' app.log | wc -l" } }] },
      { content: "Answer: 35" },
    ],
    out: join(dir, "requests.jsonl"),
    model: "stub",
    hostname: "127.0.0.1",
    advance: "history",
  });
}

/** Starts `pgs eval ...args` in the background (stderr piped). */
export function spawnEval(args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(ROOT, "main.ts"), "eval", ...args],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

/** Checks summary.json and report.html against an independent count of trajectories.jsonl. */
export async function assertSummaryMatches(out: string): Promise<{ summary: Summary; ts: Trajectory[] }> {
  const summary = JSON.parse(await Deno.readTextFile(join(out, "summary.json"))) as Summary;
  const ts = latestById(readTrajectories(join(out, "trajectories.jsonl")));
  const scored = ts.filter((t) => t.reward !== null);
  assert.equal(summary.overall.episodes, scored.length);
  assert.equal(summary.overall.passes, scored.filter((t) => t.reward! >= 1).length);
  assert.equal(summary.overall.infra_errors, ts.length - scored.length);
  for (const [p, s] of Object.entries(summary.profiles)) {
    const mine = scored.filter((t) => t.profile === p);
    assert.equal(s.episodes, mine.length, p);
    assert.equal(s.passes, mine.filter((t) => t.reward! >= 1).length, p);
  }
  for (const task of summary.tasks) {
    const mine = scored.filter((t) => t.row_id === task.row_id);
    assert.equal(task.episodes, mine.length);
    // With k scored samples the unbiased pass@k is "any passed"; with fewer it is not defined.
    assert.equal(task["pass@k"], mine.length >= summary.k ? (mine.some((t) => t.reward! >= 1) ? 1 : 0) : null);
  }
  const html = await Deno.readTextFile(join(out, "report.html"));
  for (const p of Object.keys(summary.profiles)) assert.ok(html.includes(p), `report names ${p}`);
  return { summary, ts };
}
