/** A stub app on a temp recording, for the API route tests: POST helpers, the recorded lines, cleanup. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createStubApp } from "../stub/app.ts";
import { Recorder } from "../stub/recorder.ts";
import { type Advance, ScriptRunner, type Turn } from "../lib/script/script.ts";

/** Starts a stub app answering `turns` (advancing by requests unless told); `done()` closes and removes the folder. */
export async function stubApp(turns: Turn[], prefix = "pgs-stub-", advance: Advance = "requests") {
  const dir = await Deno.makeTempDir({ prefix });
  const out = join(dir, "requests.jsonl");
  const recorder = await Recorder.open(out);
  const app = createStubApp({ script: new ScriptRunner(turns, advance), recorder, model: "stub-model" });
  const post = (path: string, body: string | Record<string, unknown>) =>
    app.request(path, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });
  const json = async (path: string, body: Record<string, unknown>) => {
    const res = await post(path, body);
    assert.equal(res.status, 200, await res.clone().text());
    return await res.json();
  };
  const lines = async () => (await Deno.readTextFile(out)).split("\n").slice(0, -1);
  const done = async () => {
    await recorder.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { app, post, json, lines, done };
}
