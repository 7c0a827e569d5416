/** The Harbor CLI command that runs a real agent once against the stub (spec: "Recording a real harness"). */
import type { StubWiring } from "../harness/capture_recipe.ts";

/** What the Harbor command is built from. */
export interface HarborCommandInput {
  agent: string;
  /** The task directory passed to `-p`. */
  task: string;
  /** The model name the stub answers as. */
  model: string;
  /** Harbor's version, e.g. `0.24.0`. */
  harbor: string;
  /** The stub's base URL as seen from the task container, e.g. `http://172.17.0.1:8123/v1`. */
  baseUrl: string;
  /** Extra `--ak key=value` agent kwargs, passed after the generated ones. */
  ak?: string[];
  /** Extra `--ae KEY=VALUE` agent environment, passed after the generated ones. */
  ae?: string[];
  /** How the agent is pointed at the stub (its profile's `capture.harbor.wiring`; default `openaiWiring`). */
  wiring?: (model: string, baseUrl: string, key: string) => StubWiring;
}

/** The argv (starting with `uv`) plus the agent environment it carries (also present as `--ae` in argv). */
export interface HarborCommand {
  argv: string[];
  /** The `--ae` pairs, as a map (the stub's dummy key only; no secrets). */
  agentEnv: Record<string, string>;
  /** The `--ak` pairs, as a map. */
  agentKwargs: Record<string, string>;
}

/** The dummy API key the stub accepts; not a secret. */
export const STUB_API_KEY = "pgs-stub";

/** The default wiring: OPENAI_BASE_URL and OPENAI_API_KEY, `-m openai/MODEL` (what most Harbor agents read). */
export function openaiWiring(model: string, baseUrl: string, key: string): StubWiring {
  return { model: `openai/${model}`, ak: {}, ae: { OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: key } };
}

function pairs(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of list) {
    const i = p.indexOf("=");
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}

/** Builds `uv run --with harbor==VERSION harbor run -p TASK -a AGENT -m MODEL --ak ... --ae ...` (pure). */
export function harborCommand(input: HarborCommandInput): HarborCommand {
  const w = (input.wiring ?? openaiWiring)(input.model, input.baseUrl, STUB_API_KEY);
  const ak = [...Object.entries(w.ak).map(([k, v]) => `${k}=${v}`), ...(input.ak ?? [])];
  const ae = [...Object.entries(w.ae).map(([k, v]) => `${k}=${v}`), ...(input.ae ?? [])];
  const argv = ["uv", "run", "--with", `harbor==${input.harbor}`, "harbor", "run"];
  argv.push("-p", input.task, "-a", input.agent, "-m", w.model);
  for (const a of ak) argv.push("--ak", a);
  for (const e of ae) argv.push("--ae", e);
  return { argv, agentEnv: pairs(ae), agentKwargs: pairs(ak) };
}

/** True for a `key=value` pair with a non-empty key. */
export function isPair(s: string): boolean {
  return s.indexOf("=") > 0;
}
