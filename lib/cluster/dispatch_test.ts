/** runOnWorkers over fake workers (no engine): capacity, busy, lost workers re-queued once, every node lost, bad requests. */
import assert from "node:assert/strict";
import type { Trajectory } from "../eval/records/trajectory.ts";
import { latestById } from "../eval/records/trajectory.ts";
import { traj } from "../../tests/trajectory_fixture.ts";
import { AllWorkersLost, type DispatchWorker, type EpisodeJobSpec, runOnWorkers } from "./dispatch.ts";
import type { EpisodeRequest, EpisodeSettings } from "./worker_protocol.ts";
import { WorkerEpisodeError, WorkerLost } from "./worker_client.ts";

const SETTINGS: EpisodeSettings = { policy: { kind: "oracle" } };
const jobs = (n: number): EpisodeJobSpec[] =>
  Array.from({ length: n }, (_, i) => ({ row: { task_dir: `/tasks/t${i % 3}` }, rowId: `r${i}`, sample: 0 }));

/** A fake worker: `act` decides each request's fate; it counts what runs at once. */
class Fake implements DispatchWorker {
  inFlight = 0;
  peak = 0;
  ran: string[] = [];
  #gone = Promise.withResolvers<string>();
  gone = this.#gone.promise;
  retired?: string;
  constructor(
    readonly node: string,
    readonly capacity: number,
    readonly act: (req: EpisodeRequest, n: number) => Promise<"ok" | Error> = () => delay(5).then(() => "ok"),
  ) {}
  async runEpisode(req: EpisodeRequest, opts: { signal?: AbortSignal }): Promise<Trajectory> {
    this.inFlight++;
    this.peak = Math.max(this.peak, this.inFlight);
    try {
      const aborted = new Promise<never>((_, rej) => opts.signal?.addEventListener("abort", () => rej(new Error("x"))));
      const r = await Promise.race([this.act(req, this.ran.length), aborted]);
      if (r instanceof Error) throw r;
      this.ran.push(req.rowId);
      return traj({ row_id: req.rowId, sample: req.sample, reward: 1, node: this.node });
    } finally {
      this.inFlight--;
    }
  }
  kill(why: string) {
    this.#gone.resolve(why);
  }
  retire(why: string) {
    this.retired = why;
  }
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("dispatch: each worker holds at most its capacity, and every job is recorded once", async () => {
  const a = new Fake("n1", 2), b = new Fake("n2", 3);
  const got: Trajectory[] = [];
  await runOnWorkers([a, b], jobs(20), SETTINGS, { onEpisode: (t) => got.push(t), onNote: () => {} });
  assert.equal(got.length, 20);
  assert.equal(new Set(got.map((t) => t.id)).size, 20);
  assert.ok(a.peak <= 2 && b.peak <= 3, `peaks ${a.peak} ${b.peak}`);
  assert.ok(a.ran.length > 0 && b.ran.length > 0);
});

Deno.test("dispatch: a busy answer is retried later, on this worker or another", async () => {
  let refused = 0;
  const a = new Fake(
    "n1",
    4,
    () => refused++ < 3 ? Promise.resolve(new WorkerEpisodeError("busy", "busy", 429, 0)) : delay(2).then(() => "ok"),
  );
  const got: Trajectory[] = [];
  await runOnWorkers([a], jobs(5), SETTINGS, { onEpisode: (t) => got.push(t), busyBackoffMs: 10 });
  assert.equal(got.length, 5);
  assert.equal(got.filter((t) => t.reward === 1).length, 5);
});

Deno.test("dispatch: a lost worker's in-flight jobs are recorded once as infra errors and re-run elsewhere", async () => {
  const hold = Promise.withResolvers<void>();
  const b = new Fake("n2", 2, () => hold.promise.then(() => "ok"));
  const a = new Fake("n1", 2);
  const got: Trajectory[] = [];
  const notes: string[] = [];
  setTimeout(() => b.kill("its step ended"), 30);
  await runOnWorkers([a, b], jobs(8), SETTINGS, { onEpisode: (t) => got.push(t), onNote: (l) => notes.push(l) });
  hold.resolve();
  const lost = got.filter((t) => t.exit_status === "infra_error");
  assert.equal(lost.length, 2, "exactly the two it held");
  for (const t of lost) {
    assert.equal(t.infra_stage, "node");
    assert.equal(t.node, "n2");
    assert.equal(t.reward, null);
    assert.match(t.error!, /node n2 lost: its step ended/);
  }
  const latest = latestById(got);
  assert.equal(latest.length, 8);
  assert.ok(latest.every((t) => t.reward === 1 && t.node === "n1"));
  assert.deepEqual(notes, ["node n2 lost (its step ended): 2 episode(s) re-queued; 1 node left"]);
  assert.equal(b.retired, "its step ended");
});

Deno.test("dispatch: a WorkerLost from a request loses that worker; none twice at once", async () => {
  const a = new Fake("n1", 1);
  const b = new Fake(
    "n2",
    1,
    (_r, n) => delay(5).then(() => n >= 1 ? new WorkerLost("n2", "http://x", "connection", "reset") : "ok"),
  );
  const got: Trajectory[] = [];
  await runOnWorkers([a, b], jobs(6), SETTINGS, { onEpisode: (t) => got.push(t), onNote: () => {} });
  assert.equal(got.filter((t) => t.exit_status === "infra_error").length, 1);
  assert.equal(latestById(got).filter((t) => t.reward === 1).length, 6);
  assert.ok(a.peak <= 1 && b.peak <= 1);
});

Deno.test("dispatch: with every node lost the run ends with one error", async () => {
  const a = new Fake("n1", 1, () => Promise.resolve(new WorkerLost("n1", "http://x", "timeout", "no answer")));
  const b = new Fake("n2", 1, () => Promise.resolve(new WorkerEpisodeError("engine gone", "infra", 500)));
  const got: Trajectory[] = [];
  await assert.rejects(
    runOnWorkers([a, b], jobs(4), SETTINGS, { onEpisode: (t) => got.push(t), onNote: () => {} }),
    (e) => e instanceof AllWorkersLost && /every node is lost \(n1: .*; n2: infra: engine gone\)/.test(e.message),
  );
  assert.equal(got.length, 2, "the two in flight were recorded as lost");
});

Deno.test("dispatch: a bad request aborts the run with its line", async () => {
  const a = new Fake(
    "n1",
    2,
    () => Promise.resolve(new WorkerEpisodeError("row: task_dir must be absolute", "bad_request", 400)),
  );
  await assert.rejects(
    runOnWorkers([a], jobs(3), SETTINGS, { onEpisode: () => {} }),
    /refused an episode of \/tasks\/t0: row: task_dir must be absolute/,
  );
});

Deno.test("dispatch: an abort ends the run without recording what was in flight", async () => {
  const stop = new AbortController();
  const a = new Fake("n1", 2, () => delay(10_000).then(() => "ok"));
  const got: Trajectory[] = [];
  setTimeout(() => stop.abort(), 20);
  await runOnWorkers([a], jobs(4), SETTINGS, { onEpisode: (t) => got.push(t), signal: stop.signal });
  assert.equal(got.length, 0);
});
