/**
 * Policies: what answers each turn of an episode. An endpoint (any OpenAI-compatible server), a turn script (the
 * stub's turns.json, no server), the oracle (solve.sh through the profile's own tools), Harbor's oracle and the nop
 * (`harbor check`'s two), or a function.
 */
import { protocolDef } from "../harness/protocols/registry.ts";
import { dirname } from "node:path";
import { ContainerDeadError, InfraError } from "../base/errors.ts";
import type { HarborEpisode } from "../env/harbor_env.ts";
import type { AssistantTurn } from "../harness/profile_episode.ts";
import { type OracleTurn, oracleTurns } from "../harness/oracle_policy.ts";
import type { ChatMessage, HarnessProfile, ToolSchema } from "../harness/types.ts";
import { shQuote, text } from "../runtime/channel.ts";
import { DONE_TEXT, type Turn } from "../script/script.ts";
import { scriptProblem } from "./script_check.ts";

/** Sampling parameters sent with each request (unset ones are left to the server). */
export interface Sampling {
  /** Sampling temperature. */
  temperature?: number;
  /** Nucleus sampling. */
  topP?: number;
  /** vLLM's `top_k` extension. */
  topK?: number;
  /** Completion token limit per turn. */
  maxTokens?: number;
  /** Sent as `seed` (default none). */
  seed?: number;
}

/** What a policy is asked for one turn. */
export interface PolicyRequest {
  /** The whole history as the harness keeps it. */
  messages: ChatMessage[];
  /** Tool schemas (empty for text protocols). */
  tools: ToolSchema[];
  /** Chat-template kwargs for this episode (model < profile < row). */
  chatTemplateKwargs: Record<string, unknown>;
  /** The live episode (the oracle reads the container through it). */
  episode: HarborEpisode;
  /** 0-based turn index. */
  turn: number;
  /** 0-based sample index of the row (0..k-1). */
  sample: number;
  /** Aborted when the run stops or the episode times out. */
  signal?: AbortSignal;
}

/** Token ids and logprobs of one turn, when the endpoint returned them. */
export interface TurnTokens {
  /** The prompt's token ids. */
  prompt_token_ids: number[];
  /** The completion's token ids. */
  completion_token_ids: number[];
  /** One logprob per completion token. */
  logprobs: number[];
}

/** A policy's turn: the assistant turn plus what the endpoint reported. */
export interface PolicyTurn extends AssistantTurn {
  /** Token ids and logprobs, when the endpoint returned them. */
  tokens?: TurnTokens;
  /** Token counts the endpoint reported. */
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  /** The exit code of a program the policy ran in the container itself, not through the profile (Harbor's oracle). */
  exitCode?: number;
  /** The last 4 kB of that program's stderr (Harbor's oracle: solve.sh), for saying why it failed. */
  stderrTail?: string;
  /** Token mode: whether a chat endpoint would have re-rendered this turn's prompt differently (see TokenSession). */
  templateRewrite?: boolean;
}

/** Answers turns. `name` is recorded in trajectories and run.json. */
export interface Policy {
  /** Recorded in trajectories as `policy`. */
  readonly name: string;
  /** Answers one turn. */
  turn(req: PolicyRequest): Promise<PolicyTurn>;
  /** Called once per episode when it ends (frees per-episode state). */
  end?(episode: HarborEpisode): void;
  /** The model answering, when the policy is an endpoint (looked up once; fails when the endpoint is unreachable). */
  model?(): Promise<string>;
}

/** Why a policy could not answer: `context_length` ends the episode (it is scored); `infra` is an infrastructure error. */
export class PolicyError extends Error {
  /** Error name. */
  override name = "PolicyError";
  /**
   * `kind` says whether the episode is scored (context_length) or an infrastructure error; `stage` is recorded as the
   * episode's `infra_stage` (default: the runner's phase, "agent").
   */
  constructor(message: string, readonly kind: "context_length" | "infra", readonly stage?: string) {
    super(message);
  }
}

/** A turn from the stub's script format, with stable tool-call ids. */
export function scriptTurn(turn: Turn | undefined, index: number): AssistantTurn {
  if (!turn) return { content: DONE_TEXT, finish_reason: "stop" };
  const reasoning = turn.reasoning !== undefined ? { reasoning_content: turn.reasoning } : {};
  if ("content" in turn) return { content: turn.content, finish_reason: "stop", ...reasoning };
  return {
    ...reasoning,
    content: null,
    finish_reason: "tool_calls",
    tool_calls: turn.tool_calls.map((c, i) => ({
      id: `call_${index}_${i}`,
      type: "function" as const,
      function: {
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
      },
    })),
  };
}

/**
 * Plays a turn script (turns.json) from its start in every episode; past its end it replies "Done.". A script that
 * calls tools the episode's profile lacks (or calls tools under a text protocol) is an infrastructure error naming
 * them, never a silent 0 (`pgs eval` refuses it before any container starts), unless `allowUnknownTools`: then each
 * turn goes as written, as native tool calls whatever the protocol (`toolTurn` cannot say a tool the profile lacks
 * under a text protocol, whose block names no tool), and the profile answers it as its harness would an endpoint's
 * (`pgs eval --allow-unknown-tools`).
 */
export function scriptPolicy(turns: Turn[], name = "script", options: { allowUnknownTools?: boolean } = {}): Policy {
  const problems = new Map<string, string | undefined>();
  const allow = options.allowUnknownTools ?? false;
  return {
    name,
    turn(req) {
      const profile = req.episode.episode.profile;
      const key = `${profile.name}@${profile.version}`;
      if (!problems.has(key)) problems.set(key, scriptProblem(turns, profile, allow));
      const problem = problems.get(key);
      if (problem) return Promise.reject(new PolicyError(`${name}: ${problem}`, "infra"));
      return Promise.resolve(scriptTurn(turns[req.turn], req.turn));
    },
  };
}

/**
 * Solves each task with its solution/solve.sh through the profile's own shell tool and stop rule; a multi-step task
 * step by step, with each step's own solve.sh.
 */
export function oraclePolicy(): Policy {
  const running = new WeakMap<HarborEpisode, { step: number; gen: AsyncGenerator<OracleTurn, string> }>();
  return {
    name: "oracle",
    async turn(req) {
      const ep = req.episode;
      let cur = running.get(ep);
      if (!cur || cur.step !== ep.stepIndex) {
        const step = ep.task.steps?.[ep.stepIndex];
        const solve = step ? step.solveSh : ep.task.paths.solveSh;
        // A step without one ends unsolved and is still verified, as under Harbor's oracle.
        if (step && !solve) return { ...stopTurn(ep.episode.profile, "", req.turn), stderrTail: step.solveMissing };
        if (!solve) throw new PolicyError(`${ep.task.name}: no solution/solve.sh for the oracle`, "infra");
        cur = { step: ep.stepIndex, gen: oracleTurns(ep.episode, await Deno.readTextFile(solve)) };
        running.set(ep, cur);
      }
      const r = await cur.gen.next();
      return r.done ? { content: r.value } : r.value;
    },
    end(ep) {
      running.delete(ep);
    },
  };
}

/**
 * The turn that ends an episode, or the step of a multi-step one, under `profile`'s stop rule, with `answer` as its
 * answer where the rule carries one: a reply without a call (`no_call`), the submit or finish tool, the sentinel
 * through the shell tool, or `task_complete` (keystroke protocols, no answer). A submit tool that makes its own answer
 * (swe-agent's patch) keeps it; a rule that asks for confirmation takes the turn twice. `turn` (0-based) makes the
 * tool-call id.
 */
export function stopTurn(profile: HarnessProfile, answer: string, turn: number): AssistantTurn {
  const stop = profile.stop;
  if (stop.kind === "no_call") return { content: answer, finish_reason: "stop" };
  if (stop.kind === "flag") {
    const def = protocolDef(profile.protocol);
    if (!def.flagTurn) throw new PolicyError(`${profile.name}: protocol ${profile.protocol.kind} has no flag`, "infra");
    return def.flagTurn(profile.protocol);
  }
  const call = (tool: string, args: Record<string, string>, content = ""): AssistantTurn => {
    const t = toolTurn(profile, tool, args, turn, content);
    if (t) return t;
    const why = `no turn ends its episode (${stop.kind} under ${profile.protocol.kind})`;
    throw new PolicyError(`${profile.name}: ${why}`, "infra");
  };
  switch (stop.kind) {
    case "submit":
      return call(stop.tool, {}, answer);
    case "finish":
      return call(stop.tool, { [stop.field]: answer });
    case "sentinel": {
      // The submission is what follows the sentinel line.
      if (!profile.shell) throw new PolicyError(`${profile.name}: a sentinel stop needs a shell tool`, "infra");
      return call(profile.shell.tool, {
        [profile.shell.arg]: `${profile.shell.prefix ?? ""}echo ${shQuote(stop.text)}; printf '%s' ${shQuote(answer)}`,
      });
    }
  }
}

/**
 * One call of `tool` with `args` as `profile` writes it: a native tool call (id from `turn`, 0-based), or under a
 * fenced text protocol the block carrying its command argument; undefined where the protocol cannot say it. For the
 * profile's own tools: a fenced block names no tool, so a tool the profile lacks would be written as a call of the
 * protocol's one tool (the script policy sends such calls as native tool calls instead).
 */
export function toolTurn(
  profile: HarnessProfile,
  tool: string,
  args: Record<string, string>,
  turn: number,
  content = "",
): AssistantTurn | undefined {
  return protocolDef(profile.protocol).encode(profile.protocol, tool, args, `call_${turn}_0`, content);
}

/**
 * Does nothing: every turn is the profile's stop turn with an empty answer, so the task (each step of a multi-step
 * one) is scored as it started. `harbor check`'s nop: a task it passes gives a free reward.
 */
export function nopPolicy(): Policy {
  return {
    name: "nop",
    turn: (req) => Promise.resolve(stopTurn(req.episode.episode.profile, "", req.turn)),
  };
}

/**
 * How Harbor's oracle agent runs solve.sh (`bash -c "(/solution/solve.sh) ..."`): its shebang decides (a Python
 * solve.sh runs as Python), and bash reads one without any.
 */
const HARBOR_SOLVE = "chmod +x /solution/solve.sh 2>/dev/null; " +
  "if command -v bash >/dev/null 2>&1; then exec bash -c /solution/solve.sh; else exec /solution/solve.sh; fi";

/**
 * Harbor's oracle agent, `harbor check`'s: in each step, solution/ (the step's own, else the task's) is staged at
 * /solution and solve.sh runs as Harbor runs it, straight in the container rather than through the profile's tools:
 * by its shebang, as the agent's user in the working directory, with `DEBIAN_FRONTEND=noninteractive` and
 * `[solution] env`, under the step's `[agent] timeout_sec` (and what is left of the episode's). Then the profile's
 * stop turn ends the step, solve.sh's stdout its answer; the turn reports solve.sh's exit code (`exitCode`).
 */
export function harborOraclePolicy(): Policy {
  const solved = new WeakMap<HarborEpisode, { step: number; answer: string }>();
  return {
    name: "harbor-oracle",
    async turn(req) {
      const ep = req.episode;
      const profile = ep.episode.profile;
      const done = solved.get(ep);
      if (done?.step === ep.stepIndex) return stopTurn(profile, done.answer, req.turn); // a stop that confirms
      const { task, box } = ep;
      const step = task.steps?.[ep.stepIndex];
      const solveSh = step ? step.solveSh : task.paths.solveSh;
      if (step && !solveSh) {
        // Harbor's oracle records its FileNotFoundError on the step, whose tests still run: the step ends unsolved.
        const missing = step.solveMissing ?? `no solve.sh for step '${step.config.name}'`;
        solved.set(ep, { step: ep.stepIndex, answer: "" });
        return { ...stopTurn(profile, "", req.turn), stderrTail: missing };
      }
      if (!solveSh) throw new InfraError(`${task.name}: solution/solve.sh is missing`, "oracle");
      await box.stageDir(dirname(solveSh), "/solution");
      const timeoutSec = Math.min((step?.config.agent ?? task.config.agent).timeoutSec, ep.timeLeftMs() / 1000);
      let answer = "";
      let exitCode: number | undefined;
      let stderrTail = "";
      try {
        const r = await box.exec(HARBOR_SOLVE, {
          shell: "sh",
          timeoutSec,
          env: { DEBIAN_FRONTEND: "noninteractive", ...task.config.solution.env },
        });
        exitCode = r.exitCode;
        answer = text(r.stdout);
        stderrTail = text(r.stderr).slice(-4096);
        // A step that ran out of its own time ends the episode when it is the last; an earlier one is verified and
        // followed by the next, as in Harbor.
        const last = !task.steps || ep.stepIndex === task.steps.length - 1;
        if (r.timedOut && last) ep.end("timeout");
      } catch (e) {
        if (!(e instanceof ContainerDeadError)) throw e;
        box.dead = true; // solve.sh stopped its container: scored on what it left, like any agent
        ep.end("container_dead");
      }
      solved.set(ep, { step: ep.stepIndex, answer });
      return {
        ...stopTurn(profile, answer, req.turn),
        ...(exitCode !== undefined ? { exitCode } : {}),
        ...(stderrTail ? { stderrTail } : {}),
      };
    },
    end(ep) {
      solved.delete(ep);
    },
  };
}

/** A function engine: gets the request, returns the assistant turn (or just its text). */
export type PolicyFn = (req: PolicyRequest) => Promise<AssistantTurn | string> | AssistantTurn | string;

/** Wraps a function as a policy. */
export function functionPolicy(fn: PolicyFn, name = "function"): Policy {
  return {
    name,
    async turn(req) {
      const t = await fn(req);
      return typeof t === "string" ? { content: t } : t;
    },
  };
}
