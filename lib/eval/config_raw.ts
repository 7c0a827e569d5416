/**
 * The raw side of `pgs eval`'s settings: the field names, the flag of each, reading the YAML file, and `Given`, the
 * merged raw values (flags over the file) with one checked reader per kind of value. `buildConfig` turns them into
 * the typed `EvalConfig`.
 */
import { didYouMean } from "../base/suggest.ts";
import { parse as parseYaml } from "npm:yaml@2.9.1";
import { UsageError } from "../base/errors.ts";
import { parseVerifierMode, VERIFIER_MODES, type VerifierMode } from "../task/verifier_mode.ts";
import type { DockerHostOptions } from "./run_episodes.ts";
import { camel, isRecord, num, objectValue, parseHosts, parseWeights } from "./config_values.ts";

/** Raw values by field name (camelCase), as strings from flags or any type from YAML: where raw input enters. */
export type RawConfig = Record<string, unknown>;

/** Every setting, by field name, in the order errors list them. */
export const FIELDS = [
  "tasks",
  "policy",
  "allowUnknownTools",
  "endpoint",
  "model",
  "apiKeyEnv",
  "profiles",
  "profile",
  "harnessModel",
  "overlay",
  "cross",
  "k",
  "temperature",
  "topP",
  "topK",
  "maxTokens",
  "maxTurns",
  "maxConcurrent",
  "maxStarting",
  "chatTemplateKwargs",
  "profileChatTemplateKwargs",
  "maxOutput",
  "seed",
  "out",
  "tokenIds",
  "tokenizer",
  "tokenApi",
  "reasoningParser",
  "toolParser",
  "rewriteCheck",
  "hosts",
  "images",
  "redo",
  "workdirDiff",
  "requestTimeoutSec",
  "profilesModule",
  "passThreshold",
  "verifierMode",
  "storageMb",
  "podCpus",
  "podMemoryMb",
  "runtime",
  "slurm",
] as const;

/** A setting's field name. */
export type Field = typeof FIELDS[number];

/** Whether `key` names a setting. */
export function isField(key: string): key is Field {
  return FIELDS.some((f) => f === key);
}

/** Fields whose flag is not their kebab-cased name. */
const FLAG_NAMES: Partial<Record<Field, string>> = {
  requestTimeoutSec: "--request-timeout",
  hosts: "--docker-host",
  workdirDiff: "--no-diff",
  slurm: "--slurm",
};

/** The flag that sets `field`: `-k`, `--max-turns`, ... */
function flagName(field: Field): string {
  return FLAG_NAMES[field] ??
    (field.length === 1 ? `-${field}` : `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
}

/** `maxTurns` as `max-turns` (or with another separator). */
function kebab(field: string, sep: string): string {
  return field.replace(/[A-Z]/g, (c) => `${sep}${c.toLowerCase()}`);
}

/** Reads a YAML config file into raw values; unknown keys are errors naming the file. */
export async function readConfigFile(path: string): Promise<RawConfig> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new UsageError(`${path}: cannot read (${(e as Error).message})`);
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (e) {
    // yaml's first line ends "at line L, column C:"; the position leads the line instead, as a compiler's would.
    const first = (e as Error).message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
    const at = (e as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw new UsageError(`${path}${at ? `:${at.line}:${at.col}` : ""}: not YAML: ${first}`);
  }
  if (data === null || data === undefined) return {};
  if (!isRecord(data)) throw new UsageError(`${path}: expected a mapping of settings`);
  const out: RawConfig = {};
  for (const [k, v] of Object.entries(data)) {
    const key = camel(k);
    if (!isField(key)) {
      // Listed the way the user writes keys (max-turns, max_turns or maxTurns).
      const style = (f: string) => k.includes("-") ? kebab(f, "-") : k.includes("_") ? kebab(f, "_") : f;
      const known = FIELDS.map(style);
      throw new UsageError(
        `${path}: unknown key ${JSON.stringify(k)}${didYouMean(k, known)} (known: ${known.join(", ")})`,
      );
    }
    out[key] = v;
  }
  return out;
}

/**
 * The raw values of one parse, merged (flags over the file), each with where it came from: `--flag` for a flag,
 * `file: key` for the file. Each reader checks its field's value, once.
 */
export class Given {
  readonly #values = new Map<Field, { value: unknown; where: string }>();

  constructor(file: RawConfig, flags: RawConfig, fileName: string) {
    const set = (key: string, value: unknown, where: string) => {
      if (!isField(key)) throw new UsageError(`${where}: unknown setting`);
      if (value === null || value === undefined) this.#values.delete(key);
      else this.#values.set(key, { value, where });
    };
    for (const [k, v] of Object.entries(file)) set(k, v, `${fileName}: ${k}`);
    for (const [k, v] of Object.entries(flags)) {
      if (v !== undefined) set(k, v, isField(k) ? flagName(k) : `--${k}`);
    }
  }

  /** Where `field` came from (its flag when it was not given). */
  where(field: Field): string {
    return this.#values.get(field)?.where ?? flagName(field);
  }

  /** The value as given, with where it came from (for readers of a field's own shape). */
  raw(field: Field): { value: unknown; where: string } | undefined {
    return this.#values.get(field);
  }

  string(field: Field): string | undefined {
    const g = this.#values.get(field);
    if (!g) return undefined;
    if (typeof g.value !== "string" || g.value === "") throw new UsageError(`${g.where} must be a non-empty string`);
    return g.value;
  }

  number(field: Field): number | undefined {
    const g = this.#values.get(field);
    return g && num(g.where, g.value, false);
  }

  int(field: Field): number | undefined {
    const g = this.#values.get(field);
    return g && num(g.where, g.value, true);
  }

  /** An integer that must be at least 0. */
  atLeastZero(field: Field): number | undefined {
    const n = this.int(field);
    if (n !== undefined && n < 0) throw new UsageError(`${this.where(field)} must be ≥ 0, got ${n}`);
    return n;
  }

  /** A number that must be above 0 (`int`: an integer). */
  aboveZero(field: Field, int: boolean): number | undefined {
    const n = int ? this.int(field) : this.number(field);
    if (n !== undefined && n <= 0) throw new UsageError(`${this.where(field)} must be > 0, got ${n}`);
    return n;
  }

  /** A number that must be at least 1 (`int`: an integer). */
  atLeastOne(field: Field, int: boolean): number | undefined {
    const n = int ? this.int(field) : this.number(field);
    if (n !== undefined && n < 1) throw new UsageError(`${this.where(field)} must be ≥ 1`);
    return n;
  }

  bool(field: Field): boolean | undefined {
    const g = this.#values.get(field);
    if (!g) return undefined;
    if (typeof g.value !== "boolean") throw new UsageError(`${g.where} must be true or false`);
    return g.value;
  }

  weights(field: Field): Record<string, number> | undefined {
    const g = this.#values.get(field);
    return g && parseWeights(g.where, g.value);
  }

  object(field: Field): Record<string, unknown> | undefined {
    const g = this.#values.get(field);
    return g && objectValue(g.where, g.value);
  }

  /** An object whose every value is an object (per-profile kwargs). */
  objects(field: Field): Record<string, Record<string, unknown>> | undefined {
    const o = this.object(field);
    if (!o) return undefined;
    const out: Record<string, Record<string, unknown>> = {};
    for (const [k, v] of Object.entries(o)) {
      if (!isRecord(v)) throw new UsageError(`${this.where(field)}: ${k} must map to an object`);
      out[k] = v;
    }
    return out;
  }

  /** An object whose every value is a string (image → replacement). */
  strings(field: Field): Record<string, string> | undefined {
    const o = this.object(field);
    if (!o) return undefined;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(o)) {
      if (typeof v !== "string" || v === "") throw new UsageError(`${this.where(field)}: ${k} must map to a name`);
      out[k] = v;
    }
    return out;
  }

  /** A list of non-empty strings (a flag given several times, or a YAML string or list). */
  stringList(field: Field): string[] | undefined {
    const g = this.#values.get(field);
    if (!g) return undefined;
    const list = Array.isArray(g.value) ? g.value : [g.value];
    if (!list.every((v) => typeof v === "string" && v !== "")) {
      throw new UsageError(`${g.where} must be a file or a list of files`);
    }
    return list as string[];
  }

  /** A name, or an object of names by key (a harness model for every profile, or one per profile). */
  nameOrNames(field: Field): string | Record<string, string> | undefined {
    return typeof this.#values.get(field)?.value === "string" ? this.string(field) : this.strings(field);
  }

  hosts(field: Field): DockerHostOptions[] | undefined {
    const g = this.#values.get(field);
    return g && parseHosts(g.where, g.value);
  }

  /** A string that must be one of `known`. */
  oneOf<T extends string>(field: Field, known: readonly T[]): T | undefined {
    const v = this.string(field);
    if (v === undefined) return undefined;
    if (!known.includes(v as T)) {
      throw new UsageError(`${this.where(field)} must be one of ${known.join(", ")}, got ${JSON.stringify(v)}`);
    }
    return v as T;
  }

  verifierMode(field: Field): VerifierMode | undefined {
    const s = this.string(field);
    if (s === undefined) return undefined;
    const mode = parseVerifierMode(s);
    if (!mode) {
      throw new UsageError(
        `${this.where(field)} must be one of ${VERIFIER_MODES.join(", ")}, got ${JSON.stringify(s)}`,
      );
    }
    return mode;
  }
}
