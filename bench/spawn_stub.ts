/** Starts `pgs harness serve` as a second process for a load figure; resolves when it listens. */
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname!, "..");

/** A stub process and its base URL (`http://127.0.0.1:PORT/v1`). */
export interface StubProcess {
  /** The base URL, with /v1. */
  base: string;
  /** Stops the process. */
  stop(): Promise<void>;
}

/** Runs `pgs harness serve --script SCRIPT --out OUT --port 0 ...extra` and waits for its banner. */
export async function spawnStub(script: string, out: string, extra: string[] = []): Promise<StubProcess> {
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(ROOT, "main.ts"), "harness", "serve", "--script", script, "--out", out, "--port", "0"]
      .concat(extra),
    stderr: "piped",
    stdout: "null",
  }).spawn();
  const reader = server.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let banner = "";
  while (!/listening on (http:\/\/\S+\/v1)/.test(banner)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stub did not start: ${banner}`);
    banner += value;
  }
  reader.releaseLock();
  server.stderr.cancel().catch(() => {});
  return {
    base: banner.match(/listening on (http:\/\/\S+\/v1)/)![1],
    async stop() {
      server.kill("SIGTERM");
      await server.status;
    },
  };
}
