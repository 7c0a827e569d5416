/** The local capture: a harness installed from npm, run once in a scratch workdir with its own HOME against the stub. */
import type { Turn } from "../script/script.ts";
import { writeCommandJson } from "./command_json.ts";
import { copyDir } from "./copy_dir.ts";
import { findBinary } from "./find_bin.ts";
import type { LocalRecipe } from "../harness/capture_recipe.ts";
import { missingBinaryMessage } from "./recipes.ts";
import { runProcess } from "./run_process.ts";
import { startStub } from "../../stub/server.ts";

/** What a local capture needs. */
export interface LocalCaptureOptions {
  /** The harness's name (its profile's). */
  agent: string;
  /** How it is installed and run (its profile's `capture.local`). */
  recipe: LocalRecipe;
  task: string;
  turns: Turn[];
  out: string;
  model: string;
  bin?: string;
  timeoutMs: number;
}

/** How a local capture ended. */
export interface LocalCaptureResult {
  code: number;
  timedOut: boolean;
  requests: number;
}

/** A local capture cannot start (unknown agent, missing binary); the CLI prints it and exits 1. */
export class CaptureError extends Error {
  override name = "CaptureError";
}

/** Runs the capture; writes `requests.jsonl`, `command.json` and `harness.log` into `out`. */
export async function runLocal(o: LocalCaptureOptions): Promise<LocalCaptureResult> {
  const recipe = o.recipe;
  const bin = await findBinary(recipe.bin, o.bin);
  if (!bin) throw new CaptureError(missingBinaryMessage(o.agent, recipe, o.bin ?? `${recipe.bin} on PATH`));
  // Passed whole, trailing newline included, as Harbor's adapters pass instruction.md (what the profiles emulate).
  const prompt = await Deno.readTextFile(`${o.task}/instruction.md`);
  await Deno.mkdir(o.out, { recursive: true });
  const scratch = await Deno.makeTempDir({ prefix: "pgs-capture-" });
  const work = `${scratch}/workdir`, home = `${scratch}/home`;
  const stub = await startStub({
    turns: o.turns,
    out: `${o.out}/requests.jsonl`,
    model: o.model,
    hostname: "127.0.0.1",
    // A real harness sends side requests (opencode's title first) and may drop a rejected turn: advance per request.
    advance: "requests",
  });
  try {
    await copyDir(`${o.task}/environment/workdir`, work);
    const baseUrl = `http://127.0.0.1:${stub.port}/v1`;
    for (const f of recipe.files(baseUrl, o.model)) {
      const p = `${home}/${f.path}`;
      await Deno.mkdir(p.slice(0, p.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(p, f.text);
    }
    const env: Record<string, string> = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      XDG_CONFIG_HOME: `${home}/.config`,
      XDG_DATA_HOME: `${home}/.local/share`,
      XDG_CACHE_HOME: `${home}/.cache`,
      XDG_STATE_HOME: `${home}/.local/state`,
      TERM: "dumb",
      LANG: "C.UTF-8",
      NO_UPDATE_NOTIFIER: "1",
      DO_NOT_TRACK: "1",
      ...recipe.env(baseUrl, o.model),
    };
    const argv = [bin, ...recipe.args(prompt, o.model)];
    await writeCommandJson(o.out, {
      mode: "local",
      agent: o.agent,
      package: `${recipe.pkg}@${recipe.version}`,
      model: o.model,
      argv,
      env,
      cwd: work,
      files: recipe.files(baseUrl, o.model).map((f) => `$HOME/${f.path}`),
    });
    const r = await runProcess({ argv, cwd: work, env, log: `${o.out}/harness.log`, timeoutMs: o.timeoutMs });
    return { code: r.code, timedOut: r.timedOut, requests: stub.count };
  } finally {
    await stub.stop();
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}
