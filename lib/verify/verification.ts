/** One verification: its timings, the script runs every verifier mode shares, and the way it ends. */
import type { Box } from "../runtime/runtime.ts";
import type { CopyFailure } from "./container_copy.ts";
import type { Neutralised } from "./input_guard.ts";
import { InfraError } from "../base/errors.ts";
import { exportLines } from "../runtime/channel.ts";
import { isRootUser } from "../runtime/users.ts";
import { runTied } from "./verifier_tied.ts";
import { parseReward } from "./reward.ts";
import type { Sandbox } from "../runtime/sandbox.ts";
import {
  parseFrames,
  PREPARE_SLACK_SEC,
  prepareScript,
  type ScriptFrames,
  type ScriptPlan,
  testScript,
  type VerifierBox,
} from "./verifier_container.ts";
import { inAgentState, type VerifierMode } from "../task/verifier_mode.ts";
import type { TaskStep } from "../task/task.ts";
import { EpisodeVerifier } from "./episode_verifier.ts";
import type { VerifierConfig } from "../task/task_config.ts";

/** Verifier options. */
export interface VerifyOptions {
  /** The reward.json key that is the reward (default "reward", else the first key). */
  rewardKey?: string;
  /** The step of a multi-step task being verified: its tests over the task's, its timeout, env and user. */
  step?: TaskStep;
  /**
   * The episode's last verification (default false): a mode that copies what it needs out of the agent's container
   * lets that container go as soon as the copy is taken.
   */
  final?: boolean;
  /**
   * The episode's verifier (`startBoxes`): its mode, the box it made ahead, the agent's process table. Default: one
   * planned now for the box's task in its own mode, with nothing made ahead.
   */
  verifier?: EpisodeVerifier;
}

/** What the verifier found. */
export interface VerifyResult {
  /** The reward (0 when the verifier failed). */
  reward: number;
  /** Every numeric reward.json component, plus `verifier_failed` (and `container_dead`) when it applies. */
  metrics: Record<string, number>;
  /** Why the verifier failed (the reward is then 0), if it did. */
  error?: string;
  /** The last 4 kB of test.sh's output. */
  testOutput: string;
  /** Where the tests ran. */
  mode: VerifierMode;
  /** The reward file's values as Harbor reads them (`{reward}` for reward.txt); absent when the tests gave none. */
  rewards?: Record<string, number>;
  /** Milliseconds spent capturing, copying, running the tests, and in total. */
  timings: { capture: number; copy: number; tests: number; total: number };
  /**
   * What was removed before the tests ran because it could make them read the verifier's inputs in place of the
   * agent's work, or block them (`input_guard.ts`): the first 50; the metric `inputs_neutralised` counts them all.
   */
  neutralised?: Neutralised[];
}

/**
 * The state one verification builds up: its timings and the way it ends. A failure is one of three kinds: the
 * tests' verdict (`fail`: 0 with `verifier_failed`), the agent's own container broken by the agent (`agentBroke`:
 * also 0), or the verifier's machinery (`infra`: an InfraError, reported apart and retried, never a 0).
 */
export class Verification {
  readonly t0 = performance.now();
  readonly timings = { capture: 0, copy: 0, tests: 0, total: 0 };
  /** Metrics that hold whatever the tests say (e.g. `container_dead`, `inputs_neutralised`). */
  readonly extra: Record<string, number> = {};
  /** What the input guard removed, as listed. */
  neutralised: Neutralised[] = [];
  /** The verifier settings in force: the task's `[verifier]`, with a step's timeout, env and user over it. */
  readonly cfg: VerifierConfig;
  /** Where the tests run. */
  readonly mode: VerifierMode;

  /** The episode's verifier. */
  readonly verifier: EpisodeVerifier;

  /** A verification of `box`'s episode (or of `opts.step`) in `mode` (default: the episode's). */
  constructor(readonly box: Sandbox, readonly opts: VerifyOptions, mode?: VerifierMode) {
    this.verifier = opts.verifier ?? new EpisodeVerifier(box.task, { storageMb: box.storageDefault });
    this.mode = mode ?? this.verifier.modeOf(opts.step);
    const base = box.task.config.verifier;
    const step = opts.step?.config.verifier;
    this.cfg = step ? { ...base, timeoutSec: step.timeoutSec, env: step.env, user: step.user } : base;
    if (box.dead) this.extra.container_dead = 1;
  }

  /** A reward of 0 with `verifier_failed`, and why. */
  fail(error: string, extra: Record<string, number> = {}, testOutput = ""): VerifyResult {
    this.timings.total = performance.now() - this.t0;
    return {
      reward: 0,
      metrics: { verifier_failed: 1, ...this.extra, ...extra },
      error,
      testOutput,
      mode: this.mode,
      timings: this.timings,
      ...this.#neutralisedField(),
    };
  }

  /** Takes what a script's frames say it neutralised. */
  #noteFrames(f: ScriptFrames): void {
    if (!f.neutralisedCount) return;
    this.extra.inputs_neutralised = (this.extra.inputs_neutralised ?? 0) + f.neutralisedCount;
    this.neutralised.push(...f.neutralised);
  }

  #neutralisedField(): { neutralised?: Neutralised[] } {
    return this.neutralised.length ? { neutralised: this.neutralised } : {};
  }

  /**
   * A failure of a container that holds the agent's state (its own, or a snapshot of it): scored 0 when the engine
   * still answers, since the agent may break its own container; an EngineDownError when it does not.
   */
  async agentBroke(error: string, extra: Record<string, number> = {}): Promise<VerifyResult> {
    await this.box.runtime.assertAnswering("verify");
    return this.fail(error, extra);
  }

  /** A failed copy: the agent's (reading its container) or the machinery's (writing the verifier's). */
  copyFailed(f: CopyFailure): Promise<VerifyResult> {
    return f.side === "agent" ? this.agentBroke(f.error) : this.infra(f.error);
  }

  /** A failure of the verifier's own machinery (a clean container, a copy into it): never a reward. */
  async infra(error: string): Promise<never> {
    await this.box.runtime.assertAnswering("verify");
    throw new InfraError(`${this.box.task.name}: ${error}`, "verify");
  }

  /** True when the tests run in a container holding the agent's state (shared, shared-clean, snapshot). */
  get inAgentState(): boolean {
    return inAgentState(this.mode);
  }

  /**
   * Runs the verifier script in `container`: the root part with `stdin`, then the tests (as `user` when it is not
   * root, through a second exec), under the task's verifier timeout; the reward from the framed files.
   */
  async run(
    container: Box,
    plan: ScriptPlan,
    stdin: Uint8Array,
    user: string,
    env: Record<string, string> = {},
  ): Promise<VerifyResult> {
    const vcfg = this.cfg;
    const t = performance.now();
    const root = isRootUser(user);
    // The host's bound covers the layout and the guard too; test.sh's own time is held against the timeout below.
    const timeoutMs = (vcfg.timeoutSec + PREPARE_SLACK_SEC) * 1000;
    const tests = testScript(plan.cwd, vcfg.timeoutSec);
    let run;
    if (plan.tied) {
      run = await runTied(
        container,
        `${exportLines(env)}${prepareScript(plan)}\n${tests}`,
        stdin,
        timeoutMs,
      );
      // The copy and the tests go through one pipe: a box that ended before the layout was done (removed under the
      // episode, or an archive it could not unpack) failed as the copy would have, the machinery's failure.
      const f = parseFrames(run.stdout);
      if (!run.timedOut && (f.untar || !f.ready)) {
        const why = f.untar ? `cannot unpack it: ${run.stderr}` : `the container ended (exit ${run.code})`;
        return await this.infra(`cannot copy ${plan.workdir ?? "the inputs"} into the verifier's container: ${why}`);
      }
    } else if (root) {
      const script = `${prepareScript(plan)}\n${tests}`;
      run = await container.exec(["/bin/sh", "-c", script], { user: "0", env, stdin, timeoutMs });
    } else {
      const prep = await container.exec(["/bin/sh", "-c", prepareScript(plan, user)], {
        user: "0",
        stdin,
        timeoutMs: 60_000,
      });
      const prepared = parseFrames(prep.stdout);
      this.#noteFrames(prepared);
      if (prepared.stopped !== undefined) this.extra.agent_processes_stopped = prepared.stopped;
      if (!prepared.ready) {
        this.timings.tests = performance.now() - t;
        const why = `the verifier's setup failed: ${prep.stderr.trim() || `exit ${prep.code}`}`;
        return this.inAgentState ? await this.agentBroke(why) : await this.infra(why);
      }
      run = await container.exec(["/bin/sh", "-c", tests], { user, env, timeoutMs });
    }
    this.timings.tests = performance.now() - t;
    const frames = parseFrames(run.stdout);
    this.#noteFrames(frames);
    const { exit, files, stopped } = frames;
    // shared-clean: how many of the agent's processes were stopped before the tests (a metric whatever they say).
    if (stopped !== undefined) this.extra.agent_processes_stopped = stopped;
    const testOutput = files["test-stdout.txt"] ?? "";
    if (run.timedOut || (frames.testsSec ?? 0) >= vcfg.timeoutSec) {
      return this.fail(`tests/test.sh timed out after ${vcfg.timeoutSec} s`, { verifier_timeout: 1 }, testOutput);
    }
    if (exit === undefined) {
      // The tests' container went away under them (test.sh may stop it): theirs to answer for, while the engine is up.
      await this.box.runtime.assertAnswering("verify");
      return this.fail(`the verifier container failed: ${run.stderr.trim() || `exit ${run.code}`}`, {}, testOutput);
    }
    const parsed = parseReward({ json: files["reward.json"], txt: files["reward.txt"] }, this.opts.rewardKey);
    if ("error" in parsed) return this.fail(parsed.error, {}, testOutput);
    this.timings.total = performance.now() - this.t0;
    return {
      reward: parsed.reward,
      rewards: Object.keys(parsed.metrics).length ? parsed.metrics : { reward: parsed.reward },
      metrics: { ...parsed.metrics, ...this.extra },
      testOutput,
      mode: this.mode,
      timings: this.timings,
      ...this.#neutralisedField(),
    };
  }

  /** Takes capture.json from the live container as root (when the task has a capture); an error string if it cannot. */
  async capture(): Promise<Uint8Array | { error: string; extra?: Record<string, number> }> {
    const vcfg = this.cfg;
    if (!vcfg.capture) return new Uint8Array();
    if (!await this.box.running()) {
      return { error: "the agent's container is not running, so it cannot be captured", extra: { container_dead: 1 } };
    }
    const r = await this.box.execRoot(["/bin/sh", "-c", vcfg.capture], vcfg.captureTimeoutSec);
    if (r.timedOut) return { error: `capture timed out after ${vcfg.captureTimeoutSec} s` };
    if (r.code !== 0 && !await this.box.running()) {
      return { error: "the agent's container died during capture", extra: { container_dead: 1 } };
    }
    this.timings.capture = performance.now() - this.t0;
    return r.stdout;
  }
}

const enc = new TextEncoder();

/** The script's stdin: the final message's length, the message, then capture.json. */
export function scriptInput(finalMessage: string, capture: Uint8Array): Uint8Array {
  const msg = enc.encode(finalMessage);
  return new Uint8Array([...enc.encode(`${msg.length}\n`), ...msg, ...capture]);
}

/**
 * Runs `fn` with a verifier container made ahead (`pending`) and the live capture, failing the verification when
 * either cannot be had; the container is removed afterwards on every path, off the critical path.
 */
export async function inVerifierBox<B extends VerifierBox>(
  v: Verification,
  pending: Promise<B>,
  fn: (vbox: B, capture: Uint8Array) => Promise<VerifyResult>,
): Promise<VerifyResult> {
  let vbox: B | undefined;
  try {
    const capture = await v.capture();
    if (!(capture instanceof Uint8Array)) return v.fail(capture.error, capture.extra);
    try {
      vbox = await pending;
    } catch (e) {
      return await v.infra((e as Error).message);
    }
    return await fn(vbox, capture);
  } finally {
    dropLater(v.box, vbox?.box ?? (await pending.catch(() => undefined))?.box);
  }
}

/** Removes a verifier container off the critical path (tracked, so it is finished at exit if need be). */
export function dropLater(box: Sandbox, container: Box | undefined): void {
  if (container) box.background(container.remove());
}
