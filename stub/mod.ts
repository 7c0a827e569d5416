/**
 * The stub endpoint: a Hono app that answers chat completions, Responses, Anthropic Messages and Gemini requests
 * from a turn script and records every request, so that real harnesses can be recorded and profiles diffed.
 * @module
 */
export { createStubApp, type StubOptions } from "./app.ts";
export type { HttpApp } from "../lib/base/http_app.ts";
export { Recorder } from "./recorder.ts";
export { type Sampled, type StubTokenModel, StubTokens } from "./token_api.ts";
export { type RunningStub, startStub, type StubServeOptions } from "./server.ts";
export {
  type Advance,
  parseScript,
  type Reply,
  type ReplyToolCall,
  ScriptRunner,
  type ScriptToolCall,
  type Turn,
} from "../lib/script/mod.ts";
