/**
 * One JSON POST to a model server, with the retry rule every endpoint client shares: connection errors, 429, 5xx and
 * a 200 whose body is cut short or not JSON (a proxy or server dropping the connection mid-body) are retried with
 * exponential backoff; after the last attempt the error names the URL and the last cause. A 400 about the context
 * length is `context_length` (the episode is scored); any other 4xx is an infrastructure error at once.
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

/** Posts `body` to `url` and returns the parsed JSON answer; throws PolicyError (stage `endpoint`). */
export async function postJson(url: string, body: unknown, opts: PostOptions): Promise<Record<string, unknown>> {
  const { signal } = opts;
  let last = "";
  let tried = 0;
  for (let i = 0; i < opts.attempts; i++) {
    if (i) await sleep(Math.min(500 * 2 ** (i - 1), 15_000), signal);
    tried++;
    let res: Response;
    let text: string;
    try {
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...opts.headers },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      // Read inside the try: a connection dropped mid-body fails here, and is retried like one dropped before it.
      text = await res.text();
    } catch (e) {
      if (signal?.aborted) throw new PolicyError("endpoint: request aborted", "infra", "endpoint");
      last = (e as Error).message;
      continue;
    }
    if (res.ok) {
      const json = parseJson(text);
      if (json !== undefined) return json;
      last = `HTTP ${res.status} with a body that is not JSON (${text.length} characters, cut short?): ` +
        JSON.stringify(text.slice(0, 200));
      continue;
    }
    const msg = errorMessage(text).replace(/\s+/g, " ").trim(); // one line, even from an HTML error page
    if (res.status === 400 && CONTEXT.test(msg)) throw new PolicyError(msg, "context_length");
    last = `HTTP ${res.status}: ${msg}`;
    if (res.status !== 429 && res.status < 500) {
      throw new PolicyError(`endpoint: ${url}: ${last}`, "infra", "endpoint");
    }
  }
  throw new PolicyError(
    `endpoint: ${url} unreachable after ${tried} attempt${tried === 1 ? "" : "s"}: ${last}`,
    "infra",
    "endpoint",
  );
}

/** `text` parsed, or undefined when it is not JSON (cut short, an HTML error page). */
function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The model a server lists first at `GET {base}/models`; throws PolicyError telling to give --model. */
export async function firstModel(base: string, headers: Record<string, string>): Promise<string> {
  let data: { data?: { id?: string }[] };
  try {
    const res = await fetch(`${base}/models`, { headers, signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    data = await res.json();
  } catch (e) {
    throw new PolicyError(
      `endpoint: GET ${base}/models failed (${(e as Error).message}); give --model`,
      "infra",
      "endpoint",
    );
  }
  const id = data.data?.[0]?.id;
  if (!id) throw new PolicyError(`endpoint: ${base}/models lists no model; give --model`, "infra", "endpoint");
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
      reject(new PolicyError("endpoint: request aborted", "infra", "endpoint"));
    }, { once: true });
  });
}
