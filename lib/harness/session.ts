/** The state of one profile episode that tool bindings see: the runtime, the profile, and scratch state. */
import type { ExecEnv } from "../runtime/exec_env.ts";
import { abspath, exec_, type ExecOpOptions, type ExecOut } from "./tools/ops.ts";
import type { ChatMessage, HarnessProfile, Session } from "./types.ts";

/** One episode under one profile: the `Session` its tools see. */
export class EpisodeSession implements Session {
  /** Per-profile scratch state (files read, a pending review, ...). */
  readonly state: Map<string, unknown> = new Map();
  /** The last command's result (the sentinel stop rule reads it). */
  lastExec?: ExecOut;
  /** The finish_reason of the turn being processed, when the policy's endpoint gave one. */
  finishReason?: string;
  /** Set by a stop: the answer it captured (null: none). */
  stopped?: { answer: string | null };
  /** Messages to send after the current turn's tool results (see `Session.pendingMessages`). */
  readonly pendingMessages: ChatMessage[] = [];

  /** A session on a started runtime under `profile`. */
  constructor(
    readonly box: ExecEnv,
    readonly profile: HarnessProfile,
    /** Characters of command output a profile may keep when it has no limit of its own (HarborEnv max_output). */
    readonly maxOutput = 16000,
  ) {}

  /** The working directory. */
  get workdir(): string {
    return this.box.workdir;
  }

  /** `p` resolved against the working directory. */
  abspath(p: string): string {
    return abspath(this.box, p);
  }

  /** Runs a command with the profile's defaults (timeout, runtime cap) and records it as the last exec. */
  async exec(command: string, opts: Partial<ExecOpOptions> = {}): Promise<ExecOut> {
    const r = await exec_(this.box, command, {
      timeout: this.profile.execTimeout,
      maxBytes: this.profile.runtimeMaxOutput,
      ...opts,
    });
    this.lastExec = r;
    return r;
  }

  /** Ends the episode after the current call, with the answer the stop captured. */
  stop(answer: string | null = null): void {
    this.stopped = { answer };
  }
}
