/**
 * The value readers of the eval config: numbers, profile weights, Docker hosts and JSON objects from a flag or a
 * YAML file, each failing with a one-line error that names where the value came from.
 */
import { UsageError } from "../base/errors.ts";
import type { DockerHostOptions } from "./run_episodes.ts";

/** `max-turns` / `max_turns` → `maxTurns`. */
export function camel(key: string): string {
  return key.replace(/[-_]([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** True for a plain object (a mapping), the shape of settings, kwargs and image maps. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A number (an integer when `int`) from a YAML number or a flag's text. */
export function num(where: string, v: unknown, int: boolean): number {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  if (!Number.isFinite(n) || (int && !Number.isInteger(n))) {
    throw new UsageError(`${where} must be ${int ? "an integer" : "a number"}, got ${JSON.stringify(v)}`);
  }
  return n;
}

/** `opencode=1,pi=2` or `opencode,pi` (weight 1) or a YAML mapping. */
export function parseWeights(where: string, v: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof v === "string") {
    for (const part of v.split(",").map((s) => s.trim()).filter(Boolean)) {
      const [name, w] = part.split("=");
      if (!name.trim()) throw new UsageError(`${where}: ${JSON.stringify(part)} names no profile (want name=weight)`);
      out[name.trim()] = w === undefined ? 1 : num(`${where} weight of ${name}`, w, false);
    }
  } else if (isRecord(v)) {
    for (const [name, w] of Object.entries(v)) out[name] = num(`${where} weight of ${name}`, w, false);
  } else throw new UsageError(`${where} must be name=weight,... or a mapping, got ${JSON.stringify(v)}`);
  if (!Object.keys(out).length) throw new UsageError(`${where} names no profile`);
  for (const [name, w] of Object.entries(out)) {
    if (w < 0) throw new UsageError(`${where} weight of ${name} must be ≥ 0`);
  }
  return out;
}

/** `--docker-host` values: DOCKER_HOST strings or `{host, max_concurrent, max_starting}` mappings. */
export function parseHosts(where: string, v: unknown): DockerHostOptions[] {
  const list = Array.isArray(v) ? v : [v];
  return list.map((h, i) => {
    if (typeof h === "string") return { host: h };
    if (isRecord(h)) {
      const o: DockerHostOptions = {};
      for (const [k, x] of Object.entries(h)) {
        const key = camel(k);
        if (key === "host") o.host = String(x);
        else if (key === "maxConcurrent" || key === "maxStarting") o[key] = num(`${where}[${i}].${k}`, x, true);
        else {throw new UsageError(
            `${where}[${i}]: unknown key ${JSON.stringify(k)} (host, max_concurrent, max_starting)`,
          );}
      }
      return o;
    }
    throw new UsageError(`${where}[${i}] must be a DOCKER_HOST string or {host, max_concurrent, max_starting}`);
  });
}

/** A JSON object given as text (a flag) or already parsed (YAML); errors name `where`. */
export function objectValue(where: string, v: unknown): Record<string, unknown> {
  let o = v;
  if (typeof v === "string") {
    try {
      o = JSON.parse(v);
    } catch (e) {
      throw new UsageError(`${where} is not JSON: ${(e as Error).message}`);
    }
  }
  if (!isRecord(o)) throw new UsageError(`${where} must be a JSON object`);
  return o;
}
