/**
 * The runner's side of a pgs worker: `health()` and `runEpisode()` over the worker's HTTP API, with the run's token.
 * A worker that is gone (refused or reset connection, no answer in time) is a `WorkerLost`, which loses only the
 * episodes it held; an answer saying the episode could not run there is a `WorkerEpisodeError` of its kind.
 */
import type { Trajectory } from "../eval/records/trajectory.ts";
import { type EpisodeRequest, type HealthResponse, WORKER_PATHS, type WorkerErrorResponse } from "./worker_protocol.ts";

/** How long `health()` waits for an answer, unless told otherwise. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 10_000;

/** The worker is gone: it refused or dropped the connection, or did not answer in time. Its in-flight episodes are lost. */
export class WorkerLost extends Error {
  /** Always "WorkerLost". */
  override name = "WorkerLost";
  /** The worker of `node` at `url` is gone, for `reason`; `detail` says how it showed. */
  constructor(
    /** The worker's node name (or its address when the client was given none). */
    readonly node: string,
    /** Its URL. */
    readonly url: string,
    /** A connection refused, reset or cut (`connection`), or no answer within the bound (`timeout`). */
    readonly reason: "connection" | "timeout",
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`the worker on ${node} (${url}) is lost: ${detail}`, options);
  }
}

/** The worker answered, without a trajectory: why, and whose fault (`WorkerErrorResponse.kind`). */
export class WorkerEpisodeError extends Error {
  /** Always "WorkerEpisodeError". */
  override name = "WorkerEpisodeError";
  /** The worker answered HTTP `status` with `kind` and `message`; `retryAfterSec` with a 429. */
  constructor(
    message: string,
    readonly kind: WorkerErrorResponse["kind"],
    readonly status: number,
    readonly retryAfterSec?: number,
  ) {
    super(message);
  }
}

/** Where a worker is, and the run's token. */
export interface WorkerClientOptions {
  /** Its base URL, e.g. http://10.0.0.5:41234 (required). */
  url: string;
  /** The run's token (required). */
  token: string;
  /** Its node name, for messages (default: the URL's host:port; `health()` sets it to the worker's own). */
  node?: string;
}

/** A client of one pgs worker. */
export class WorkerClient {
  /** The worker's base URL, without a trailing slash. */
  readonly url: string;
  /** The node name errors say. */
  node: string;
  readonly #token: string;

  /** A client of the worker at `opts.url`. */
  constructor(opts: WorkerClientOptions) {
    this.url = opts.url.replace(/\/+$/, "");
    this.#token = opts.token;
    this.node = opts.node ?? new URL(this.url).host;
  }

  /** The worker's health; sets `node` to the name it gives. */
  async health(opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<HealthResponse> {
    const h = await this.#call<HealthResponse>(
      "GET",
      WORKER_PATHS.health,
      undefined,
      opts.signal,
      opts.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS,
    );
    this.node = h.node;
    return h;
  }

  /**
   * Runs one episode on the worker and returns its trajectory (`node` set). Throws `WorkerLost` when the worker is gone
   * or has not answered within `timeoutMs`, `WorkerEpisodeError` when it answered without a trajectory, and the
   * signal's reason when `signal` stops the call.
   */
  runEpisode(req: EpisodeRequest, opts: { signal?: AbortSignal; timeoutMs: number }): Promise<Trajectory> {
    return this.#call<Trajectory>("POST", WORKER_PATHS.episodes, JSON.stringify(req), opts.signal, opts.timeoutMs);
  }

  /**
   * Asks the worker to stop as on SIGTERM (`POST /v1/stop`), waiting at most `timeoutMs`; true when it answered,
   * false when it did not (gone, or silent); never throws.
   */
  async stop(reason: string, timeoutMs = 5_000): Promise<boolean> {
    return await this.#call("POST", WORKER_PATHS.stop, JSON.stringify({ reason }), undefined, timeoutMs).then(
      () => true,
      () => false,
    );
  }

  async #call<T>(method: string, path: string, body: string | undefined, signal: AbortSignal | undefined, ms: number) {
    const timeout = AbortSignal.timeout(ms);
    const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    let status: number, retryAfter: string | null, text: string;
    try {
      const res = await fetch(this.url + path, { method, headers, body, signal: both });
      status = res.status;
      retryAfter = res.headers.get("retry-after");
      text = await res.text(); // a worker killed while it answers cuts this read
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        throw new WorkerLost(this.node, this.url, "timeout", `no answer within ${ms / 1000} s`, { cause: e });
      }
      const msg = (e as Error).message.split("\n")[0];
      throw new WorkerLost(this.node, this.url, "connection", msg, { cause: e });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new WorkerEpisodeError(
        `the worker on ${this.node} answered HTTP ${status} with no JSON: ${text.slice(0, 200)}`,
        "infra",
        status,
      );
    }
    if (status >= 200 && status < 300) return json as T;
    const err = json as Partial<WorkerErrorResponse>;
    const kind = err.kind ?? (status >= 500 ? "infra" : "bad_request");
    const after = retryAfter !== null && Number.isFinite(Number(retryAfter)) ? Number(retryAfter) : undefined;
    throw new WorkerEpisodeError(
      err.error ?? `the worker on ${this.node} answered HTTP ${status}`,
      kind,
      status,
      after,
    );
  }
}
