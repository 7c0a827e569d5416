/**
 * One JSON POST to a model server, with the retry rule every endpoint client shares: connection errors, 429 and 5xx
 * are retried with exponential backoff; a 400 about the context length is `context_length` (the episode is scored);
 * anything else is an infrastructure error naming the URL.
 */
import { PolicyError } from "./policy.ts";

/** How to post. */
export interface PostOptions {
  /** Request headers (content-type is set). */
  headers: Record<string, string>;
  /** Attempts in all. */
  attempts: number;
  /** Milliseconds one attempt may take. */
  timeoutMs: number;
  /** Aborts the request (and the backoff). */
  signal?: AbortSignal;
}

const CONTEXT = /context length|maximum context|context_length_exceeded|too many tokens|prompt is too long/i;

/** Posts `body` to `url` and returns the parsed JSON answer; throws PolicyError. */
export async function postJson(url: string, body: unknown, opts: PostOptions): Promise<Record<string, unknown>> {
  const { signal } = opts;
  let last = "";
  for (let i = 0; i < opts.attempts; i++) {
    if (i) await sleep(Math.min(500 * 2 ** (i - 1), 15_000), signal);
    let res: Response;
    try {
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...opts.headers },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (e) {
      if (signal?.aborted) throw new PolicyError("endpoint: request aborted", "infra");
      last = `${url}: ${(e as Error).message}`;
      continue;
    }
    const text = await res.text();
    if (res.ok) {
      try {
        return JSON.parse(text);
      } catch {
        throw new PolicyError(`endpoint: response is not JSON: ${text.slice(0, 200)}`, "infra");
      }
    }
    const msg = errorMessage(text);
    if (res.status === 400 && CONTEXT.test(msg)) throw new PolicyError(msg, "context_length");
    last = `endpoint: HTTP ${res.status}: ${msg}`;
    if (res.status !== 429 && res.status < 500) break;
  }
  throw new PolicyError(last, "infra");
}

/** The model a server lists first at `GET {base}/models`; throws PolicyError telling to give --model. */
export async function firstModel(base: string, headers: Record<string, string>): Promise<string> {
  let data: { data?: { id?: string }[] };
  try {
    const res = await fetch(`${base}/models`, { headers, signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    data = await res.json();
  } catch (e) {
    throw new PolicyError(`endpoint: GET ${base}/models failed (${(e as Error).message}); give --model`, "infra");
  }
  const id = data.data?.[0]?.id;
  if (!id) throw new PolicyError(`endpoint: ${base}/models lists no model; give --model`, "infra");
  return id;
}

function errorMessage(text: string): string {
  try {
    const j = JSON.parse(text);
    const m = j?.error?.message ?? j?.message ?? j?.detail;
    if (typeof m === "string") return m;
  } catch { /* not JSON */ }
  return text.slice(0, 300);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(new PolicyError("endpoint: request aborted", "infra"));
    }, { once: true });
  });
}
