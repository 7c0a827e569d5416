/**
 * The check `pgs eval` makes of an endpoint before any container starts: its address is an http(s) URL, and it
 * answers `GET {base}/models` within a short bound. One line says what failed, naming the address.
 */
import { InfraError } from "../base/errors.ts";

/** Seconds the endpoint gets to answer `GET /models` before a run starts. */
export const ENDPOINT_CHECK_TIMEOUT_SEC = 10;

/** Whether `url` parses as an http: or https: URL. */
export function isHttpUrl(url: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

/** The innermost cause of a fetch failure, in a few words (Deno nests "client error (Connect): tcp connect ..."). */
function cause(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  if (e instanceof DOMException && (e.name === "TimeoutError" || e.name === "AbortError")) return "no answer";
  const last = msg.split(": ").at(-1) ?? msg;
  return last.replace(/ \(os error \d+\)$/, "");
}

/**
 * Asks `GET {base}/models` (base as the policy uses it, e.g. `http://127.0.0.1:8000/v1`); throws an InfraError naming
 * `shown` (the address as the user gave it) and what failed: no connection, no answer within `timeoutSec`, or an HTTP
 * error status.
 */
export async function checkEndpoint(
  shown: string,
  base: string,
  headers: Record<string, string> = {},
  timeoutSec = ENDPOINT_CHECK_TIMEOUT_SEC,
): Promise<void> {
  const url = `${base}/models`;
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutSec * 1000) });
  } catch (e) {
    const why = cause(e);
    const detail = why === "no answer" ? `no answer within ${timeoutSec} s` : why;
    throw new InfraError(`--endpoint ${shown} does not answer: GET ${url}: ${detail}`, "endpoint");
  }
  await res.body?.cancel();
  if (res.ok) return;
  const hint = res.status === 401 || res.status === 403
    ? " (is --api-key-env set to the right key?)"
    : res.status === 404
    ? " (is the URL the API's base, e.g. http://HOST:PORT/v1?)"
    : "";
  throw new InfraError(`--endpoint ${shown}: GET ${url} answered HTTP ${res.status}${hint}`, "endpoint");
}
