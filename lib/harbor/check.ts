/**
 * `harbor check`: per task, an oracle episode (Harbor's oracle agent: solution/solve.sh) and a nop episode (nothing
 * done), both run as `pgs eval` runs its episodes: the same episode runner and EpisodeState, the same worker pool and
 * engine watching (`runJobs`), through the real verifier path. A task is valid when the oracle scores 1 and the nop
 * below 1.
 */
import type { EnvRow } from "../env/harbor_env.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { PodBudget } from "../runtime/pod_budget.ts";
import type { ExitStatus } from "../harness/episode_state.ts";
import { loadTask, type Task } from "../task/task.ts";
import { resolveVerifierMode, type VerifierMode } from "../task/verifier_mode.ts";
import { harborOraclePolicy, nopPolicy } from "../policies/policy.ts";
import { type PolicyJob, rowIds, runJobs } from "../eval/run_episodes.ts";
import { type Trajectory, trajectoryId } from "../eval/records/trajectory.ts";

/** Which of the check's two episodes: Harbor's oracle, or the nop. */
export type CheckAgent = "nop" | "oracle";

/** One episode's outcome; `error` set means infrastructure failed and `reward` is null, never a 0. */
export interface CheckOutcome {
  /** The agent that ran. */
  agent: CheckAgent;
  /** The verifier's reward; null when infrastructure failed. */
  reward: number | null;
  /** The verifier's metrics (empty when infrastructure failed). */
  metrics: Record<string, number>;
  /** The infrastructure failure, if any. */
  error?: string;
  /** Stage that failed (build, start, setup, healthcheck, ...), with `error`. */
  stage?: string;
  /** The verifier's complaint when it failed (the reward is then 0). */
  verifierError?: string;
  /** The oracle's exit code (solve.sh, the last step's in a multi-step task), when it ran. */
  agentExitCode?: number;
  /** How the episode ended: `stop_rule`, `timeout` or `container_dead` (absent on an infra error). */
  exitStatus?: ExitStatus;
  /** Milliseconds spent starting the container, in the agent, verifying, and in total. */
  timings: { start: number; agent: number; verify: number; total: number };
  /**
   * The last 4 kB of test.sh's output. Absent for now: the episode's score (HarborEnv's `EpisodeReward`) does not
   * carry it yet.
   */
  testOutput?: string;
  /** Where the tests ran, when the container started. */
  verifierMode?: VerifierMode;
  /** The episode's record, as `pgs eval` writes it to trajectories.jsonl. */
  trajectory: Trajectory;
}

/** The verdict on one task. */
export interface CheckResult {
  /** The task's name (`[task] name`, else its directory name). */
  name: string;
  /** The task directory as given. */
  dir: string;
  /** True when the oracle scores 1 and the nop below 1. */
  valid: boolean;
  /** The oracle episode's outcome; null when the task did not load. */
  oracle: CheckOutcome | null;
  /** The nop episode's outcome; null when the task did not load. */
  nop: CheckOutcome | null;
  /** Why the task is invalid, in one line. */
  error?: string;
  /** Where its tests ran (absent when the task did not load). */
  verifierMode?: VerifierMode;
  /** Notes on a likely cause when the task is invalid (e.g. the network Harbor would have allowed). */
  hints?: string[];
  /** Wall time of the task's two episodes in seconds (0 when the task did not load). */
  seconds: number;
}

/** One of the check's episodes, as `CheckOptions.runJobs` gets it: sample 0 is the task's oracle, 1 its nop. */
export interface CheckJob {
  /** The row: the task directory as given. */
  row: EnvRow;
  /** The row's id (`rowIds`). */
  rowId: string;
  /** 0 for the oracle, 1 for the nop. */
  sample: number;
  /** The episode's agent. */
  agent: CheckAgent;
}

/** Options of `checkTasks`. */
export interface CheckOptions {
  /** Tasks checked at once, each with its two episodes (default `DEFAULT_CHECK_WORKERS`). */
  workers?: number;
  /** Where the episodes run (default: the registry's default runtime on the environment's engine). */
  runtime?: Runtime;
  /** Image mapping, task image → replacement (default none). */
  images?: Record<string, string>;
  /** Where the tests run, for every task (default: each task's own mode). */
  verifierMode?: VerifierMode;
  /** Disk bound in MB of the boxes of a task that sets no `storage_mb` (default 10240; 0: none). */
  storageMb?: number;
  /** The most a compose task's whole pod may use (`HarborEnvOptions.podBudget`; default: no total). */
  podBudget?: PodBudget;
  /** Called as each task finishes (at once for a task that does not load). */
  onResult?: (r: CheckResult) => void;
  /** Called with each loaded task before it runs (the CLI counts tasks that leave the network unset). */
  onTask?: (t: Task) => void;
  /**
   * Runs the episodes somewhere else than on `runtime` (`harbor check --slurm`: on the workers of a Slurm allocation,
   * lib/cluster/check_jobs.ts), reporting each record through `onEpisode`; a record of stage `node` (an episode its
   * lost node took with it, run again elsewhere) is superseded by the re-run's. Default: `runJobs` here.
   */
  runJobs?: (jobs: CheckJob[], onEpisode: (t: Trajectory) => void) => Promise<void>;
}

/** Tasks checked at once, unless told otherwise. */
export const DEFAULT_CHECK_WORKERS = 4;

/** No turn limit, as Harbor's oracle has none: the task's `[agent] timeout_sec` bounds each episode. */
const NO_TURN_LIMIT = Number.POSITIVE_INFINITY;

/** The runner's phase leading an infrastructure error (`start: `, `verify: `); the stage names it here. */
const PHASE = /^(start|verify): /;

/** The verifier's own metrics of a trajectory: its `metric/<key>` values, without the profile's. */
function verifierMetrics(t: Trajectory): Record<string, number> {
  const profile = new Set([`metric/profile/${t.profile_key}`, `metric/profile/${t.profile_key}/reward`]);
  const own = Object.entries(t.metrics).filter(([k]) => k.startsWith("metric/") && !profile.has(k));
  return Object.fromEntries(own.map(([k, v]) => [k.slice("metric/".length), v]));
}

function outcome(agent: CheckAgent, t: Trajectory): CheckOutcome {
  const ms = t.timings;
  const base = {
    agent,
    timings: { start: ms.start_ms, agent: ms.policy_ms + ms.tools_ms, verify: ms.verify_ms, total: ms.total_ms },
    ...(t.verifier_mode ? { verifierMode: t.verifier_mode } : {}),
    trajectory: t,
  };
  if (t.exit_status === "infra_error") {
    const error = (t.error ?? "infrastructure error").replace(PHASE, "");
    return { ...base, reward: null, metrics: {}, error, stage: t.infra_stage ?? "internal" };
  }
  return {
    ...base,
    reward: t.reward,
    metrics: verifierMetrics(t),
    exitStatus: t.exit_status,
    ...(t.error !== undefined ? { verifierError: t.error } : {}),
    ...(t.agent_exit_code !== undefined ? { agentExitCode: t.agent_exit_code } : {}),
    ...(t.test_output !== undefined ? { testOutput: t.test_output } : {}),
  };
}

/** Why an episode ended, when that explains a score: the agent timeout, or a container the agent stopped. */
function ending(o: CheckOutcome, task: Task): string | undefined {
  if (o.exitStatus === "timeout") return `agent timed out after ${task.config.agent.timeoutSec} s`;
  if (o.exitStatus === "container_dead") return "solve.sh stopped its own container";
}

function verdict(task: Task, oracle: CheckOutcome, nop: CheckOutcome): string | undefined {
  for (const o of [oracle, nop]) {
    if (o.error) return `${o.agent}: ${o.stage} failed: ${o.error}`;
  }
  if (oracle.reward !== 1) {
    const why = [ending(oracle, task), oracle.verifierError].filter(Boolean).join("; ");
    return `oracle scored ${oracle.reward}, must be 1${why ? ` (${why})` : ""}`;
  }
  if ((nop.reward ?? 0) >= 1) return `nop scored ${nop.reward}: doing nothing passes, a free reward`;
}

/** The verdict on a loaded task from its oracle and nop episodes (`harbor check`'s, and the audit's per mode). */
export function checkVerdict(
  dir: string,
  task: Task,
  verifierMode: VerifierMode,
  o: Trajectory,
  n: Trajectory,
): CheckResult {
  const oracle = outcome("oracle", o), nop = outcome("nop", n);
  const error = verdict(task, oracle, nop);
  const started = Math.min(Date.parse(o.started_at), Date.parse(n.started_at));
  const ended = Math.max(Date.parse(o.ended_at), Date.parse(n.ended_at));
  const result: CheckResult = {
    name: task.name,
    dir,
    valid: !error,
    oracle,
    nop,
    error,
    verifierMode,
    seconds: (ended - started) / 1000,
  };
  const failed = error && oracle.reward !== null && oracle.reward !== 1;
  if (failed && task.config.environment.networkUnset && wantedNetwork(o)) {
    // Harbor's default network is public; pgs's is none. Said only where the episode shows a failed network call.
    result.hints = [
      "the task leaves allow_internet unset and the oracle's output shows a failed network call: Harbor would " +
      "allow the network, pgs runs it with none (set [environment] allow_internet = true to match Harbor)",
    ];
  }
  return result;
}

/** What programs print when they reach for a network that is not there (DNS, connect, package managers). */
const NETWORK_FAILURE = new RegExp(
  [
    "Temporary failure in name resolution",
    "Could not resolve host",
    "Name or service not known",
    "Network is unreachable",
    "No address associated with hostname",
    "getaddrinfo",
    "Failed to establish a new connection",
    "Could not connect to",
    "Failed to fetch",
    "Connection timed out",
    "curl: \\((6|7)\\)",
    "wget: unable to resolve",
    "ENOTFOUND",
    "EAI_AGAIN",
  ].join("|"),
);

/** True when the oracle's episode (its tool output, its answer, test.sh's output) shows a failed network call. */
function wantedNetwork(t: Trajectory): boolean {
  const seen = [
    t.answer,
    t.agent_stderr ?? "",
    t.test_output ?? "",
    ...t.messages.filter((m) => m.role === "tool" || m.role === "user").map((m) =>
      typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")
    ),
  ];
  return seen.some((s) => NETWORK_FAILURE.test(s));
}

/**
 * Checks task directories: each task's oracle and nop episodes go to one worker pool, task by task, `workers` tasks
 * at once; results come back in input order. A task that does not load is an invalid result, never a throw; an
 * engine that stops answering stops the check (an EngineDownError), as it stops `pgs eval`.
 */
export async function checkTasks(dirs: string[], opts: CheckOptions = {}): Promise<CheckResult[]> {
  const results: CheckResult[] = new Array(dirs.length);
  const loaded: { i: number; task: Task; verifierMode: VerifierMode }[] = [];
  for (const [i, dir] of dirs.entries()) {
    try {
      const task = await loadTask(dir);
      opts.onTask?.(task);
      loaded.push({ i, task, verifierMode: resolveVerifierMode(task, opts.verifierMode) });
    } catch (e) {
      results[i] = { name: dir, dir, valid: false, oracle: null, nop: null, error: (e as Error).message, seconds: 0 };
      opts.onResult?.(results[i]);
    }
  }
  const rows = loaded.map(({ i }) => ({ task_dir: dirs[i] }));
  const ids = rowIds(rows);
  const oracle = harborOraclePolicy(), nop = nopPolicy();
  const jobs: PolicyJob[] = [];
  const checkJobs: CheckJob[] = [];
  const of = new Map<string, { at: number; agent: CheckAgent }>();
  loaded.forEach((_, at) => {
    const row = rows[at], rowId = ids[at];
    jobs.push({ row, rowId, sample: 0, policy: oracle }, { row, rowId, sample: 1, policy: nop });
    checkJobs.push({ row, rowId, sample: 0, agent: "oracle" }, { row, rowId, sample: 1, agent: "nop" });
    of.set(trajectoryId(rowId, 0), { at, agent: "oracle" }).set(trajectoryId(rowId, 1), { at, agent: "nop" });
  });
  const ran = loaded.map((): Partial<Record<CheckAgent, Trajectory>> => ({}));
  const onEpisode = (t: Trajectory) => {
    if (t.exit_status === "infra_error" && t.infra_stage === "node") return; // its re-run's record follows
    const { at, agent } = of.get(t.id)!;
    const got = ran[at];
    got[agent] = t;
    if (!got.oracle || !got.nop) return;
    const { i, task, verifierMode } = loaded[at];
    results[i] = checkVerdict(dirs[i], task, verifierMode, got.oracle, got.nop);
    opts.onResult?.(results[i]);
  };
  if (opts.runJobs) {
    if (checkJobs.length) await opts.runJobs(checkJobs, onEpisode);
    return results;
  }
  // Both episodes of a task at once, as many tasks as workers; no extra limit on containers starting.
  const episodes = 2 * Math.max(1, opts.workers ?? DEFAULT_CHECK_WORKERS);
  await runJobs(jobs, {
    images: opts.images,
    verifierMode: opts.verifierMode,
    storageMb: opts.storageMb,
    podBudget: opts.podBudget,
  }, {
    maxConcurrent: episodes,
    maxStarting: episodes,
    maxTurns: NO_TURN_LIMIT,
    hosts: [{ host: opts.runtime?.host, runtime: opts.runtime }],
    onEpisode,
  });
  return results;
}

/** Checks one task directory; never throws for a broken task (the error is in the result). */
export async function checkTask(dir: string, opts: Omit<CheckOptions, "workers"> = {}): Promise<CheckResult> {
  const [r] = await checkTasks([dir], opts);
  return r;
}
