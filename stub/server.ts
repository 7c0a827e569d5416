/** The recording stub, served in-process: `createStubApp` + Recorder + ScriptRunner on `Deno.serve`. */
import type { HttpApp } from "../lib/base/http_app.ts";
import { createStubApp } from "./app.ts";
import { Recorder } from "./recorder.ts";
import { type Advance, ScriptRunner, type Turn } from "../lib/script/script.ts";
import { type StubTokenModel, StubTokens } from "./token_api.ts";

/** A running stub; `stop()` shuts the server and flushes the recording. */
export interface RunningStub {
  /** The port it listens on. */
  port: number;
  /** Stops the server and flushes the recording. */
  stop(): Promise<void>;
  /** Requests recorded so far. */
  readonly count: number;
}

/** Where and how the stub serves. */
export interface StubServeOptions {
  /** The turn script. */
  turns: Turn[];
  /** The JSONL file request bodies are appended to. */
  out: string;
  /** The model name listed and answered. */
  model: string;
  /** The address to bind (e.g. 127.0.0.1). */
  hostname: string;
  /** Port (default 0: a free one). */
  port?: number;
  /** Empty `out` first (default true); false appends to it. */
  truncate?: boolean;
  /** How the script advances (default "requests", `ScriptRunner`'s; `pgs harness serve` defaults to "history"). */
  advance?: Advance;
  /** Speak as this model: token endpoints and real chat token ids (default: none). */
  tokens?: StubTokenModel;
}

/**
 * Starts the stub on `hostname`, recording to `out`. The address is bound before `out` is touched: a port in use
 * throws `Deno.errors.AddrInUse` and leaves no file behind.
 */
export async function startStub(opts: StubServeOptions): Promise<RunningStub> {
  const abort = new AbortController();
  // Requests that arrive before the recorder is open wait for it.
  const ready = Promise.withResolvers<HttpApp>();
  const server = Deno.serve(
    { hostname: opts.hostname, port: opts.port ?? 0, signal: abort.signal, onListen: () => {} },
    async (req) => (await ready.promise).fetch(req),
  );
  let recorder: Recorder;
  try {
    if (opts.truncate ?? true) await Deno.writeFile(opts.out, new Uint8Array());
    recorder = await Recorder.open(opts.out);
  } catch (e) {
    abort.abort();
    await server.finished;
    throw e;
  }
  ready.resolve(createStubApp({
    script: new ScriptRunner(opts.turns, opts.advance),
    recorder,
    model: opts.model,
    tokens: opts.tokens ? new StubTokens(opts.tokens) : undefined,
  }));
  let stopped = false;
  const stub: RunningStub = {
    port: server.addr.port,
    get count() {
      return recorder.count;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      abort.abort();
      await server.finished;
      await recorder.close();
    },
  };
  return stub;
}
