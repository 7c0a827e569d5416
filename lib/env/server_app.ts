/**
 * `pgs env serve`: HarborEnv over HTTP JSON, for trainers in any language. Create an episode from a row (and group)
 * → its first messages, tools, chat-template kwargs and drawn profile; post assistant turns → observations and
 * whether it ended; finish → reward and metrics (containers removed); or close it. Episodes left idle past a
 * timeout are closed by a sweeper.
 */
import { type Context, Hono } from "npm:hono@4.13.19";
import type { HttpApp } from "../base/http_app.ts";
import { EngineDownError, InfraError, TaskError } from "../base/errors.ts";
import type { HarborEnv, HarborEpisode } from "./harbor_env.ts";
import type { EpisodeTimings } from "../episode/mod.ts";
import { profileNames, resolveProfileName } from "../harness/registry.ts";
import { Semaphore } from "../base/semaphore.ts";
import { TokenEpisode, type TokenModeOptions } from "./token_episode.ts";
import { TokenIdError } from "../tokens/token_ids.ts";
import { HttpError, jsonBody, parseRow, parseTokenStep, parseTurn } from "./server_requests.ts";
import { EpisodeTable, type Live } from "./episode_table.ts";

/** Server settings. */
export interface EnvServerOptions {
  /** The environment episodes are drawn from. */
  env: HarborEnv;
  /** Bearer token every request but /v1/health must carry (default none: no auth). */
  token?: string;
  /** Seconds an episode may sit without a request before it is closed (default 600). */
  idleTimeoutSec?: number;
  /** Episodes open at once; more get 429 (default 256). */
  maxEpisodes?: number;
  /** Containers starting at once (default 8). */
  maxStarting?: number;
  /** Token mode: episodes take and give token ids (default: messages). */
  tokens?: TokenModeOptions;
}

/** A token episode's record at finish: the sequence, its loss mask, the logprobs on it, the rewrite turns. */
function tokenFields(tok: TokenEpisode, sampled: (number | null)[]): Record<string, unknown> {
  let k = 0;
  const logprobs = tok.lossMask.map((bit) => bit === 1 ? sampled[k++] ?? null : null);
  return {
    token_ids: tok.tokenIds,
    loss_mask: tok.lossMask,
    logprobs,
    template_rewrite_turns: tok.templateRewriteTurns,
  };
}

/** The server's app plus its lifecycle: `close()` closes every open episode and stops the sweeper. */
export interface EnvServer {
  /** The Hono app: serve it with `Deno.serve(server.app.fetch)`. */
  app: HttpApp;
  /** Open episodes. */
  readonly size: number;
  /** Closes episodes idle past the timeout; returns how many (the sweeper calls it). */
  sweep(now?: number): Promise<number>;
  /** Closes every open episode and stops the sweeper. */
  close(): Promise<void>;
}

/**
 * Builds the env server: its routes, each a named handler below (open, warm, look, step, finish, close), over one
 * table of open episodes, and a sweeper that closes idle ones.
 */
export function createEnvServer(opts: EnvServerOptions): EnvServer {
  const app = new Hono();
  const table = new EpisodeTable(opts.maxEpisodes ?? 256);
  const idleMs = (opts.idleTimeoutSec ?? 600) * 1000;
  const gate = new Semaphore(opts.maxStarting ?? 8);
  const ctx: Ctx = { opts, table, gate };

  app.onError(errorAnswer);
  app.get("/v1/health", (c) => c.json({ ok: true, episodes: table.size, warm: opts.env.pool.size }));
  app.use("/v1/*", async (c, next) => {
    if (opts.token && c.req.header("authorization") !== `Bearer ${opts.token}`) {
      throw new HttpError(401, "unauthorized", "missing or wrong bearer token (Authorization: Bearer ...)");
    }
    await next();
  });
  app.get(
    "/v1/profiles",
    (c) => c.json({ profiles: profileNames().map(resolveProfileName), mix: opts.env.profileKeys }),
  );
  app.post("/v1/episodes", async (c) => c.json(await openEpisode(ctx, await jsonBody(c)), 201));
  app.post("/v1/warm", async (c) => c.json(await warmBoxes(ctx, await jsonBody(c)), 202));
  app.get("/v1/episodes/:id", (c) => c.json(lookAt(table.get(c.req.param("id")))));
  app.post("/v1/episodes/:id/step", async (c) => {
    const e = table.get(c.req.param("id"));
    return c.json(await stepEpisode(ctx, e, await jsonBody(c)));
  });
  app.post("/v1/episodes/:id/finish", async (c) => c.json(await finishEpisode(ctx, table.get(c.req.param("id")))));
  app.delete("/v1/episodes/:id", async (c) => {
    const e = table.get(c.req.param("id"));
    await table.drop(e);
    return c.json({ episode_id: e.id, closed: true });
  });
  app.all("*", (c) => {
    throw new HttpError(
      404,
      "not_found",
      `no route ${c.req.method} ${new URL(c.req.url).pathname} (see GET /v1/health, POST /v1/episodes, ` +
        "POST /v1/episodes/ID/step, POST /v1/episodes/ID/finish, DELETE /v1/episodes/ID, POST /v1/warm)",
    );
  });

  const sweep = async (now = Date.now()) => {
    const idle = table.idle(now, idleMs);
    const how = `closed after ${idleMs / 1000} s idle (its containers are removed)`;
    await Promise.all([...idle.map((e) => table.drop(e, how)), opts.env.pool.sweep(now)]);
    return idle.length;
  };
  const timer = setInterval(() => void sweep(), Math.max(1000, Math.min(30_000, idleMs / 4)));
  Deno.unrefTimer(timer);
  return {
    app,
    get size() {
      return table.size;
    },
    sweep,
    async close() {
      clearInterval(timer);
      await Promise.all(table.all().map((e) => table.drop(e, "closed: the server stopped")));
    },
  };
}

/** What every handler works with. */
interface Ctx {
  opts: EnvServerOptions;
  table: EpisodeTable;
  /** Bounds the containers starting at once. */
  gate: Semaphore;
}

/** An error as the trainer reads it: its type, its message and the HTTP status that fits whose failure it is. */
function errorAnswer(err: Error, c: Context): Response {
  if (err instanceof HttpError) return c.json({ error: { type: err.type, message: err.message } }, err.status);
  // Refused before the episode stepped: the trainer may send a corrected completion.
  if (err instanceof TokenIdError) {
    return c.json({ error: { type: "invalid_request", message: `token mode: ${err.message}` } }, 400);
  }
  if (err instanceof TaskError) return c.json({ error: { type: "invalid_task", message: err.message } }, 400);
  if (err instanceof EngineDownError) return c.json({ error: { type: "engine_down", message: err.message } }, 503);
  if (err instanceof InfraError) return c.json({ error: { type: "infra_error", message: err.message } }, 503);
  return c.json({ error: { type: "internal_error", message: err.message } }, 500);
}

/** POST /v1/episodes: a fresh episode of the row under its group's profile; its first messages, tools and info. */
async function openEpisode(ctx: Ctx, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { opts, table } = ctx;
  const row = parseRow(body);
  const group = body.group;
  if (group !== undefined && typeof group !== "string" && typeof group !== "number") {
    throw new HttpError(400, "invalid_request", "group must be a string or a number");
  }
  table.admit();
  table.starting++;
  const release = await ctx.gate.acquire();
  let ep: HarborEpisode;
  try {
    ep = await opts.env.reset(row, group);
  } finally {
    release();
    table.starting--;
  }
  const tok = opts.tokens ? new TokenEpisode(ep, opts.tokens) : undefined;
  let promptIds: number[] | undefined;
  try {
    promptIds = tok?.start();
  } catch (e) {
    await ep.close();
    throw new HttpError(500, "template_error", `chat template: ${(e as Error).message}`);
  }
  const e = table.add(ep, tok);
  return {
    ...(promptIds ? { prompt_token_ids: promptIds } : {}),
    episode_id: e.id,
    messages: ep.firstMessages,
    tools: ep.tools,
    chat_template_kwargs: ep.chatTemplateKwargs,
    harness_profile: ep.harnessProfile,
    harness_model: ep.info.harness_model,
    profile_key: ep.profileKey,
    task: ep.task.name,
    container_id: ep.box.id,
    max_turns: row.max_turns ?? null,
    info: ep.info,
  };
}

/** POST /v1/warm: boxes started ahead for resets to come (a GRPO group's k resets of one task, the next batch's). */
async function warmBoxes(ctx: Ctx, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const env = ctx.opts.env;
  const row = parseRow(body);
  const n = body.n ?? 1;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 1024) {
    throw new HttpError(400, "invalid_request", "n must be an integer from 0 to 1024");
  }
  const queued = await env.warm(row, n);
  // This task's boxes (ready, and starting or queued), and every task's ready ones.
  const mine = await env.warmCount(row);
  return { task_dir: row.task_dir, queued, ...mine, ready_all: env.pool.size };
}

/** GET /v1/episodes/ID: where the episode stands. */
function lookAt(e: Live): Record<string, unknown> {
  return {
    episode_id: e.id,
    harness_profile: e.ep.harnessProfile,
    task: e.ep.task.name,
    turns: e.ep.state.turns,
    done: e.ep.done,
    exit_status: e.ep.exitStatus ?? null,
    messages: e.ep.episode.messages,
  };
}

/** Whether the episode ended: the state machine applies the turn limit, the agent timeout and the exit status. */
const ended = (e: Live) => ({ done: e.ep.done, exit_status: e.ep.exitStatus ?? null, turns: e.ep.state.turns });

/** POST /v1/episodes/ID/step: one assistant turn (or, in token mode, its completion's ids) → the observations. */
async function stepEpisode(ctx: Ctx, e: Live, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const tok = e.tok;
  if (tok) {
    const { ids, logprobs } = parseTokenStep(body);
    return await ctx.table.stepping(e, async () => {
      const r = await tok.step(ids);
      e.logprobs!.push(...(logprobs ?? ids.map(() => null)));
      return {
        observation_token_ids: r.observationTokenIds,
        template_rewrite: r.templateRewrite,
        assistant: r.assistant,
        observations: r.observations,
        ...ended(e),
      };
    });
  }
  if (body.completion_token_ids !== undefined) {
    throw new HttpError(400, "invalid_request", "completion_token_ids needs the server in token mode (--tokenizer)");
  }
  const turn = parseTurn(body);
  return await ctx.table.stepping(e, async () => ({ observations: (await e.ep.step(turn)).observations, ...ended(e) }));
}

/** POST /v1/episodes/ID/finish: the task's tests decide the reward; the episode's containers are removed. */
async function finishEpisode(ctx: Ctx, e: Live): Promise<Record<string, unknown>> {
  if (e.busy) throw new HttpError(409, "episode_busy", "a step of this episode is still running");
  ctx.table.end(e.id, "finished (its reward was the answer to that finish)");
  const r = await e.ep.finish();
  return {
    episode_id: e.id,
    reward: r.reward,
    metrics: r.metrics,
    answer: r.answer,
    verifier_error: r.verifierError ?? null,
    verifier_mode: r.verifierMode,
    // What the verifier removed before the tests (links into their inputs, FIFOs): absent when nothing was.
    ...(r.neutralised ? { neutralised: r.neutralised } : {}),
    exit_status: r.exitStatus,
    turns: r.turns,
    harness_profile: e.ep.harnessProfile,
    timings: roundTimings(e.ep.timings),
    ...(e.tok ? tokenFields(e.tok, e.logprobs!) : {}),
  };
}

/** An episode's timings in whole milliseconds. */
function roundTimings(t: EpisodeTimings): Record<string, number> {
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [k, Math.round(v)]));
}
