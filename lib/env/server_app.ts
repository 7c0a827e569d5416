/**
 * `pgs env serve`: HarborEnv over HTTP JSON, for trainers in any language. Create an episode from a row (and group)
 * → its first messages, tools, chat-template kwargs and drawn profile; post assistant turns → observations and
 * whether it ended; finish → reward and metrics (containers removed); or close it. Episodes left idle past a
 * timeout are closed by a sweeper.
 */
import { Hono } from "npm:hono@4.13.19";
import type { HttpApp } from "../base/http_app.ts";
import { EngineDownError, InfraError, TaskError } from "../base/errors.ts";
import type { HarborEnv, HarborEpisode } from "./harbor_env.ts";
import type { EpisodeTimings } from "../episode/mod.ts";
import { profileNames, resolveProfileName } from "../harness/registry.ts";
import { Semaphore } from "../base/semaphore.ts";
import { TokenEpisode, type TokenModeOptions } from "./token_episode.ts";
import { TokenIdError } from "../tokens/token_ids.ts";
import { HttpError, jsonBody, parseRow, parseTokenStep, parseTurn } from "./server_requests.ts";

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

interface Live {
  id: string;
  ep: HarborEpisode;
  busy: boolean;
  lastUsed: number;
  tok?: TokenEpisode;
  /** Per sampled token, its logprob (null where the trainer sent none), in order. */
  logprobs?: (number | null)[];
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

/** Ended episodes remembered, so that a late call on one says how it ended. */
const ENDED_KEPT = 10_000;

/** Builds the env server. */
export function createEnvServer(opts: EnvServerOptions): EnvServer {
  const app = new Hono();
  const live = new Map<string, Live>();
  const idleMs = (opts.idleTimeoutSec ?? 600) * 1000;
  const gate = new Semaphore(opts.maxStarting ?? 8);
  const maxEpisodes = opts.maxEpisodes ?? 256;
  let starting = 0;

  // How the last ENDED_KEPT episodes ended: a call on one of them is a 409 that says how, not an unknown id's 404.
  const endedHow = new Map<string, string>();
  const end = (id: string, how: string) => {
    live.delete(id);
    endedHow.set(id, how);
    if (endedHow.size > ENDED_KEPT) endedHow.delete(endedHow.keys().next().value!);
  };
  const get = (id: string): Live => {
    const e = live.get(id);
    if (!e) {
      const how = endedHow.get(id);
      if (how) throw new HttpError(409, "episode_ended", `episode ${JSON.stringify(id)} has ended: ${how}`);
      throw new HttpError(404, "not_found", `no episode ${JSON.stringify(id)}`);
    }
    e.lastUsed = Date.now();
    return e;
  };
  const drop = async (e: Live, how = "closed (DELETE)") => {
    end(e.id, how);
    await e.ep.close();
  };

  app.onError((err, c) => {
    if (err instanceof HttpError) return c.json({ error: { type: err.type, message: err.message } }, err.status);
    // Refused before the episode stepped: the trainer may send a corrected completion.
    if (err instanceof TokenIdError) {
      return c.json({ error: { type: "invalid_request", message: `token mode: ${err.message}` } }, 400);
    }
    if (err instanceof TaskError) return c.json({ error: { type: "invalid_task", message: err.message } }, 400);
    if (err instanceof EngineDownError) return c.json({ error: { type: "engine_down", message: err.message } }, 503);
    if (err instanceof InfraError) return c.json({ error: { type: "infra_error", message: err.message } }, 503);
    return c.json({ error: { type: "internal_error", message: (err as Error).message } }, 500);
  });

  app.get("/v1/health", (c) => c.json({ ok: true, episodes: live.size, warm: opts.env.pool.size }));
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

  app.post("/v1/episodes", async (c) => {
    const body = await jsonBody(c);
    const row = parseRow(body);
    const group = body.group;
    if (group !== undefined && typeof group !== "string" && typeof group !== "number") {
      throw new HttpError(400, "invalid_request", "group must be a string or a number");
    }
    if (live.size + starting >= maxEpisodes) {
      throw new HttpError(429, "too_many_episodes", `${maxEpisodes} episodes are open; finish or close some first`);
    }
    starting++;
    const release = await gate.acquire();
    let ep: HarborEpisode;
    try {
      ep = await opts.env.reset(row, group);
    } finally {
      release();
      starting--;
    }
    const id = crypto.randomUUID();
    const tok = opts.tokens ? new TokenEpisode(ep, opts.tokens) : undefined;
    let promptIds: number[] | undefined;
    try {
      promptIds = tok?.start();
    } catch (e) {
      await ep.close();
      throw new HttpError(500, "template_error", `chat template: ${(e as Error).message}`);
    }
    live.set(id, { id, ep, busy: false, lastUsed: Date.now(), tok, ...(tok ? { logprobs: [] } : {}) });
    return c.json({
      ...(promptIds ? { prompt_token_ids: promptIds } : {}),
      episode_id: id,
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
    }, 201);
  });

  // Boxes started ahead for resets to come (a GRPO group's k resets of one task, the next batch's rows).
  app.post("/v1/warm", async (c) => {
    const body = await jsonBody(c);
    const row = parseRow(body);
    const n = body.n ?? 1;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 1024) {
      throw new HttpError(400, "invalid_request", "n must be an integer from 0 to 1024");
    }
    const queued = await opts.env.warm(row, n);
    // This task's boxes (ready, and starting or queued), and every task's ready ones.
    const mine = await opts.env.warmCount(row);
    return c.json({ task_dir: row.task_dir, queued, ...mine, ready_all: opts.env.pool.size }, 202);
  });

  app.get("/v1/episodes/:id", (c) => {
    const e = get(c.req.param("id"));
    return c.json({
      episode_id: e.id,
      harness_profile: e.ep.harnessProfile,
      task: e.ep.task.name,
      turns: e.ep.state.turns,
      done: e.ep.done,
      exit_status: e.ep.exitStatus ?? null,
      messages: e.ep.episode.messages,
    });
  });

  /** Runs one step of `e` alone: refused when the episode has ended or another step of it runs. */
  const stepping = async <T>(e: Live, fn: () => Promise<T>): Promise<T> => {
    if (e.ep.done) throw new HttpError(409, "episode_done", "the episode has ended; POST .../finish for its reward");
    if (e.busy) throw new HttpError(409, "episode_busy", "a step of this episode is still running");
    e.busy = true;
    try {
      return await fn();
    } finally {
      e.busy = false;
      e.lastUsed = Date.now();
    }
  };
  // The episode's state machine applies the turn limit, the task's agent timeout and the exit status.
  const ended = (e: Live) => ({ done: e.ep.done, exit_status: e.ep.exitStatus ?? null, turns: e.ep.state.turns });

  app.post("/v1/episodes/:id/step", async (c) => {
    const e = get(c.req.param("id"));
    const body = await jsonBody(c);
    const tok = e.tok;
    if (tok) {
      const { ids, logprobs } = parseTokenStep(body);
      return c.json(
        await stepping(e, async () => {
          const r = await tok.step(ids);
          e.logprobs!.push(...(logprobs ?? ids.map(() => null)));
          return {
            observation_token_ids: r.observationTokenIds,
            template_rewrite: r.templateRewrite,
            assistant: r.assistant,
            observations: r.observations,
            ...ended(e),
          };
        }),
      );
    }
    if (body.completion_token_ids !== undefined) {
      throw new HttpError(400, "invalid_request", "completion_token_ids needs the server in token mode (--tokenizer)");
    }
    const turn = parseTurn(body);
    return c.json(await stepping(e, async () => ({ observations: (await e.ep.step(turn)).observations, ...ended(e) })));
  });

  app.post("/v1/episodes/:id/finish", async (c) => {
    const e = get(c.req.param("id"));
    if (e.busy) throw new HttpError(409, "episode_busy", "a step of this episode is still running");
    end(e.id, "finished (its reward was the answer to that finish)");
    const r = await e.ep.finish();
    return c.json({
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
    });
  });

  app.delete("/v1/episodes/:id", async (c) => {
    const e = get(c.req.param("id"));
    await drop(e);
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
    const idle = [...live.values()].filter((e) => !e.busy && now - e.lastUsed > idleMs);
    const how = `closed after ${idleMs / 1000} s idle (its containers are removed)`;
    await Promise.all([...idle.map((e) => drop(e, how)), opts.env.pool.sweep(now)]);
    return idle.length;
  };
  const timer = setInterval(() => void sweep(), Math.max(1000, Math.min(30_000, idleMs / 4)));
  Deno.unrefTimer(timer);
  return {
    app,
    get size() {
      return live.size;
    },
    sweep,
    async close() {
      clearInterval(timer);
      await Promise.all([...live.values()].map((e) => drop(e, "closed: the server stopped")));
    },
  };
}

/** An episode's timings in whole milliseconds. */
function roundTimings(t: EpisodeTimings): Record<string, number> {
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [k, Math.round(v)]));
}
