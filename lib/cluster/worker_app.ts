/**
 * The HTTP app of a pgs worker (`pgs worker`): `GET /v1/health` and `POST /v1/episodes`, which runs one episode and
 * answers its trajectory, with `node` set. Every route asks for the run's bearer token (compared in constant time);
 * at most `capacity` episodes run at once, and one more is answered 429 with `Retry-After`. `stop()` refuses new
 * episodes and ends the running ones as infrastructure errors (503), never as records.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { type Context, Hono } from "npm:hono@4.13.19";
import denoJson from "../../deno.json" with { type: "json" };
import type { HttpApp } from "../base/http_app.ts";
import { TaskError, UsageError } from "../base/errors.ts";
import type { EpisodeRunner } from "./worker_runner.ts";
import {
  EpisodeRefused,
  type EpisodeRequest,
  type HealthResponse,
  requestProblem,
  WORKER_PATHS,
  WORKER_PROTOCOL,
  type WorkerErrorResponse,
} from "./worker_protocol.ts";

/** Settings of a worker's app. */
export interface WorkerAppOptions {
  /** The run's token: every request must carry `Authorization: Bearer <token>` (required, non-empty). */
  token: string;
  /** The node name set on every trajectory (required). */
  node: string;
  /** Episodes run at once at most; one more gets 429 (required, at least 1). */
  capacity: number;
  /** The container runtime's name, for health (default "docker"). */
  runtime?: string;
  /** Runs one episode (the worker's own `localRunner`, or a fake in tests). */
  runner: EpisodeRunner;
  /** Seconds a 429 asks the runner to wait (`Retry-After`; default 1). */
  retryAfterSec?: number;
  /** Called on `POST /v1/stop` (a runner that wrote this worker off) with its reason; default: `stop()` only. */
  onStopRequest?: (reason: string) => void;
}

/** A worker's app and its lifecycle. */
export interface WorkerApp {
  /** The Hono app: serve it with `Deno.serve(worker.app.fetch)`. */
  app: HttpApp;
  /** Episodes running now. */
  readonly inFlight: number;
  /** Refuses new episodes (503) and stops the running ones, whose requests are answered as infrastructure errors. */
  stop(reason?: string): void;
  /** Resolves once no episode request is in flight, or after `maxMs`. */
  settled(maxMs: number): Promise<void>;
}

function sha256(s: string): Uint8Array {
  return createHash("sha256").update(s).digest();
}

/** Builds the worker's app over `opts.runner`. */
export function createWorkerApp(opts: WorkerAppOptions): WorkerApp {
  if (!opts.token) throw new Error("worker: the token must not be empty");
  if (!Number.isInteger(opts.capacity) || opts.capacity < 1) throw new Error("worker: capacity must be at least 1");
  const want = sha256(`Bearer ${opts.token}`);
  const stopper = new AbortController();
  let stopReason = "";
  let inFlight = 0;
  const idle = new Set<() => void>();

  const fail = (
    c: Context,
    status: 400 | 401 | 404 | 429 | 500 | 503,
    kind: WorkerErrorResponse["kind"],
    error: string,
  ) =>
    c.json(
      { error: `${opts.node}: ${error.trim().replace(/\s*\n\s*/g, " ")}`, kind } satisfies WorkerErrorResponse,
      status,
    );
  const stopped = (c: Context) => fail(c, 503, "infra", `the worker is stopping (${stopReason})`);

  const app = new Hono();
  app.onError((e, c) => fail(c, 500, "infra", (e as Error).message));
  app.use("*", async (c, next) => {
    const got = sha256(c.req.header("authorization") ?? "");
    if (!timingSafeEqual(got, want)) {
      return fail(c, 401, "unauthorized", "missing or wrong bearer token (Authorization: Bearer ...)");
    }
    await next();
  });
  app.get(WORKER_PATHS.health, (c) =>
    c.json(
      {
        node: opts.node,
        capacity: opts.capacity,
        inFlight,
        runtime: opts.runtime ?? "docker",
        version: denoJson.version,
        protocol: WORKER_PROTOCOL,
        stopping: stopper.signal.aborted,
      } satisfies HealthResponse,
    ));
  app.post(WORKER_PATHS.episodes, async (c) => {
    if (stopper.signal.aborted) return stopped(c);
    let body: unknown;
    try {
      body = await c.req.json();
    } catch (e) {
      return fail(c, 400, "bad_request", `the body is not JSON (${(e as Error).message})`);
    }
    const problem = requestProblem(body);
    if (problem) return fail(c, 400, "bad_request", problem);
    if (inFlight >= opts.capacity) {
      c.header("Retry-After", String(opts.retryAfterSec ?? 1));
      return fail(c, 429, "busy", `at capacity (${opts.capacity} episode(s) running)`);
    }
    inFlight++;
    try {
      const t = await opts.runner(body as EpisodeRequest, stopper.signal);
      if (stopper.signal.aborted) return stopped(c);
      return c.json({ ...t, node: opts.node });
    } catch (e) {
      if (stopper.signal.aborted) return stopped(c);
      if (e instanceof EpisodeRefused) return fail(c, e.kind === "infra" ? 500 : 400, e.kind, e.message);
      if (e instanceof UsageError || e instanceof TaskError) return fail(c, 400, "bad_request", e.message);
      return fail(c, 500, "infra", `${(e as Error).name}: ${(e as Error).message}`);
    } finally {
      inFlight--;
      if (inFlight === 0) { for (const fn of idle) fn(); }
    }
  });
  // A runner that wrote this worker off (e.g. its Slurm step is gone but it still answers) ends it.
  app.post(WORKER_PATHS.stop, async (c) => {
    const body = await c.req.json().catch(() => ({})) as { reason?: unknown };
    const reason = `stop asked by the runner${typeof body.reason === "string" ? `: ${body.reason}` : ""}`;
    if (opts.onStopRequest) opts.onStopRequest(reason);
    else if (!stopper.signal.aborted) {
      stopReason = reason;
      stopper.abort(new Error(reason));
    }
    return c.json({ stopping: true }, 202);
  });
  app.all("*", (c) =>
    fail(
      c,
      404,
      "bad_request",
      `no route ${c.req.method} ${
        new URL(c.req.url).pathname
      } (see GET ${WORKER_PATHS.health}, POST ${WORKER_PATHS.episodes})`,
    ));

  return {
    app,
    get inFlight() {
      return inFlight;
    },
    stop(reason = "stopped") {
      if (stopper.signal.aborted) return;
      stopReason = reason;
      stopper.abort(new Error(reason));
    },
    settled(maxMs) {
      if (inFlight === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          idle.delete(done);
          resolve();
        };
        const timer = setTimeout(done, maxMs);
        idle.add(done);
      });
    },
  };
}
