/** `pgs eval`: k episodes per task against a policy, with trajectories, a summary and an HTML report. */
import { DEFAULT_RUNTIME, runtimeNames } from "../lib/runtime/registry.ts";
import { DEFAULT_STORAGE_MB } from "../lib/runtime/limits.ts";
import { NO_PROFILE_DIALECT } from "../lib/harness/registry.ts";
import { buildConfig, camel, DEFAULT_OUT, DEFAULT_SEED, type RawConfig, readConfigFile } from "../lib/eval/config.ts";
import { DEFAULT_REQUEST_TIMEOUT_SEC } from "../lib/policies/endpoint_policy.ts";
import { DEFAULT_MAX_TURNS } from "../lib/eval/episode_runner.ts";
import { evaluate } from "../lib/eval/eval_run.ts";
import { DEFAULT_K, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_STARTING } from "../lib/eval/run_episodes.ts";
import { DEFAULT_PASS_THRESHOLD } from "../lib/eval/records/summary.ts";
import { onSignal } from "./signals.ts";
import { type Command, parseFlags } from "./args.ts";
import { checkOutputFolder } from "./output_path.ts";
import { slurmRunJobs } from "./eval_slurm.ts";
import { UsageError } from "../lib/base/errors.ts";

/** Flags that are not config fields as they are named. */
const NOT_FIELDS = [
  "config",
  "json",
  "help",
  "docker-host",
  "request-timeout",
  "no-rewrite-check",
  "no-diff",
  "slurm",
  "nodes",
  "partition",
  "time",
];

/** `--slurm`, `--nodes`, `--partition`, `--time` over the file's `slurm:` (flags win, key by key), or undefined. */
function slurmFlags(values: Record<string, unknown>, file: unknown): unknown {
  const parts = { nodes: values.nodes, partition: values.partition, time: values.time };
  const given = Object.values(parts).some((v) => v !== undefined);
  if (!values.slurm && !given) return undefined;
  if (given && !values.slurm && !file) {
    throw new UsageError("eval: --nodes, --partition and --time go with --slurm");
  }
  const base = typeof file === "object" && file !== null ? file as Record<string, unknown> : {};
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(parts)) if (v !== undefined) out[k] = v;
  return out;
}

const usage = `Usage: pgs eval --tasks PATH (--endpoint URL | --policy oracle | --policy script:turns.json) [options]

Runs k episodes of every task under harness profiles against a policy, each in a fresh container scored by the
task's own tests, and writes to --out: trajectories.jsonl (as episodes end), summary.json and report.html. A re-run
with the same --out skips finished episodes; infrastructure errors are retried and never count as a reward of 0.

Options (a YAML file given by --config takes the same names, kebab- or snake-case; flags win):
  --config FILE              YAML settings
  --tasks PATH               a task, a folder of tasks, or a rows JSONL (harbor rows output)
  --endpoint URL             OpenAI-compatible base URL (vLLM, SGLang, Ollama, pgs harness serve), e.g.
                             http://127.0.0.1:8000/v1
  --model NAME               model name (default: the first the endpoint lists)
  --api-key-env NAME         environment variable holding the API key
  --policy P                 endpoint (default with --endpoint), oracle (solution/solve.sh), script:FILE (turns.json)
  --allow-unknown-tools      with script:FILE, let its turns call tools a profile lacks (and make tool calls under a
                             text protocol), to test the profile's answer to them (default: refused before any
                             container starts)
  --profiles a=1,b=2         weighted profile mix, one profile per task (group), drawn from sha256(seed, group, task)
  --cross                    run every profile of --profiles on every task, k samples each (each task × profile
                             its own group) instead of drawing one per task
  --profile NAME             one profile (default ${NO_PROFILE_DIALECT})
  --harness-model NAME       the model name the emulated harnesses are configured with (their -m); profiles whose
                             harness sends other prompts, tools or settings for it follow (default: each profile's
                             recorded name; in the YAML also {profile: name}; a row's harness_model wins)
  --overlay FILE             an overlay from pgs harness adopt, laid over its profile's episodes: the recorded
                             harness's own prompt, tools and settings (repeat for several profiles; a row's overlay
                             wins)
  -k N                       samples per task (default ${DEFAULT_K})
  --temperature X, --top-p X, --top-k N, --max-tokens N   sampling (default: the server's)
  --max-turns N              turns per episode; a row's max_turns wins (default ${DEFAULT_MAX_TURNS})
  --max-concurrent N         episodes alive at once, per Docker engine (default ${DEFAULT_MAX_CONCURRENT})
  --max-starting N           containers starting at once, per Docker engine (default ${DEFAULT_MAX_STARTING})
  --chat-template-kwargs J   JSON object sent as vLLM's chat_template_kwargs, e.g. '{"enable_thinking":false}'
  --profile-chat-template-kwargs J   JSON {profile: {kwargs}}, e.g. '{"my-agent": {"enable_thinking": true}}'
  --max-output N             characters of command output kept where a profile has no limit (default 16000)
  --token-ids                ask for logprobs and vLLM's return_token_ids; store rollout_details, flag drift
  --tokenizer DIR            token mode: render prompts with this model's chat template and tokenizer (a folder
                             with tokenizer.json and tokenizer_config.json, or a hub id in the local HF cache) and
                             send token ids; store rollout_details, template_rewrite_turns and loss_mask
  --token-api API            token mode's server API: vllm (/v1/completions, default) or sglang (/generate)
  --reasoning-parser P       token mode: split reasoning off the completion: qwen3, deepseek_r1 (default none)
  --tool-parser P            token mode: the model's tool-call format: hermes (default), qwen3_coder
  --no-rewrite-check         token mode: do not render the whole history each turn to count template_rewrite
  --seed N                   seed of the profile draw (default ${DEFAULT_SEED})
  --runtime R                the container runtime: ${runtimeNames().join(" or ")} (default ${DEFAULT_RUNTIME})
  --docker-host H            an engine of that runtime (repeat to spread episodes over several; default
                             DOCKER_HOST, CONTAINER_HOST for podman)
  --out DIR                  output folder (default ./${DEFAULT_OUT})
  --redo                     discard finished episodes in --out and run everything again
  --no-diff                  do not record the files each episode changed (workdir_diff; two copies of the
                             working directory an episode, off the agent's path)
  --request-timeout SEC      seconds one model request may take (default ${DEFAULT_REQUEST_TIMEOUT_SEC})
  --pass-threshold X         a reward at or above X passes (default ${DEFAULT_PASS_THRESHOLD})
  --verifier-mode M          where the tests run, for every task: isolated, shared, separate, snapshot or
                             shared-clean (default: the task's environment_mode, else isolated for pgs's own layout,
                             else Harbor's shared; see docs/verifier-modes.md)
  --storage-mb N             disk bound in MB of each box (the agent's and the verifier's) of a task that sets no
                             storage_mb; 0: none (default ${DEFAULT_STORAGE_MB}). Enforced where the engine can
                             (btrfs, zfs, overlay on XFS with pquota); elsewhere the run says so once
  --pod-cpus N               CPUs of a compose task's whole pod (main and its sidecars together): main keeps the
                             task's limits, the sidecars share the rest (default: no total)
  --pod-memory-mb N          memory in MB of a compose task's whole pod, shared the same way (default: no total)
  --slurm                    run the episodes on the nodes of a Slurm allocation, one pgs worker per node on its own
                             engine (inside an sbatch job: its nodes; else one pgs asks salloc for and releases);
                             --max-concurrent and --max-starting are per node; see docs/cluster.md
  --nodes N                  with --slurm outside a job: nodes to ask for (default 1)
  --partition P              with --slurm outside a job: the partition (default the cluster's)
  --time T                   with --slurm outside a job: the time limit, as salloc takes it (default the partition's)
  --profiles-module FILE     a module registering more profiles
  --json                     print summary.json to stdout at the end
  -h, --help                 this help

Exit code: 0 when every episode was scored, 1 when some hit an infrastructure error, 2 for bad usage.`;

/** The `eval` command. */
export const evalCommand: Command = {
  name: "eval",
  summary: "evaluate a policy on tasks under harness profiles (pass@k, trajectories, report)",
  usage,
  async run(argv) {
    const { values, positionals } = parseFlags("eval", argv, {
      config: { type: "string" },
      tasks: { type: "string" },
      endpoint: { type: "string" },
      model: { type: "string" },
      "api-key-env": { type: "string" },
      policy: { type: "string" },
      "allow-unknown-tools": { type: "boolean" },
      profiles: { type: "string" },
      profile: { type: "string" },
      "harness-model": { type: "string" },
      overlay: { type: "string", multiple: true },
      cross: { type: "boolean" },
      k: { type: "string", short: "k" },
      temperature: { type: "string" },
      "top-p": { type: "string" },
      "top-k": { type: "string" },
      "max-tokens": { type: "string" },
      "max-turns": { type: "string" },
      "max-concurrent": { type: "string" },
      "max-starting": { type: "string" },
      "chat-template-kwargs": { type: "string" },
      "profile-chat-template-kwargs": { type: "string" },
      "max-output": { type: "string" },
      "token-ids": { type: "boolean" },
      tokenizer: { type: "string" },
      "token-api": { type: "string" },
      "reasoning-parser": { type: "string" },
      "tool-parser": { type: "string" },
      "no-rewrite-check": { type: "boolean" },
      "no-diff": { type: "boolean" },
      seed: { type: "string" },
      "docker-host": { type: "string", multiple: true },
      out: { type: "string" },
      redo: { type: "boolean" },
      "request-timeout": { type: "string" },
      "pass-threshold": { type: "string" },
      "profiles-module": { type: "string" },
      "verifier-mode": { type: "string" },
      "storage-mb": { type: "string" },
      "pod-cpus": { type: "string" },
      "pod-memory-mb": { type: "string" },
      runtime: { type: "string" },
      slurm: { type: "boolean" },
      nodes: { type: "string" },
      partition: { type: "string" },
      time: { type: "string" },
      json: { type: "boolean" },
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length) {
      return console.error(`pgs: eval: unexpected argument ${positionals[0]} (give tasks with --tasks)`), 2;
    }
    const file = values.config ? await readConfigFile(values.config) : {};
    const flags: RawConfig = {};
    for (const [k, v] of Object.entries(values)) {
      if (NOT_FIELDS.includes(k)) {
        continue;
      }
      flags[camel(k)] = v;
    }
    if (values["no-rewrite-check"]) flags.rewriteCheck = false;
    if (values["no-diff"]) flags.workdirDiff = false;
    flags.requestTimeoutSec = values["request-timeout"];
    if (values["docker-host"]) flags.hosts = values["docker-host"];
    flags.slurm = slurmFlags(values, file.slurm);
    const cfg = buildConfig(file, flags, values.config);
    await checkOutputFolder("eval", "--out", cfg.out); // a folder that holds a run is resumed

    const stop = new AbortController();
    let flush: (() => void) | undefined;
    const offStart = onSignal("start", () => stop.abort());
    const interrupted = "pgs eval: interrupted; containers removed, finished episodes kept (re-run to resume)";
    // Written by the signal handler only if the run has not wound down by the time the containers are gone.
    const off = onSignal("exit", () => {
      flush?.();
      console.error(`\n${interrupted}`);
    });
    try {
      if (cfg.slurm && cfg.hosts.length) {
        throw new UsageError("eval: --slurm runs on the nodes' engines: drop --docker-host");
      }
      const note = (line: string) => console.error(`pgs eval: ${line}`);
      const runJobs = cfg.slurm ? slurmRunJobs(cfg, note) : undefined;
      const r = await evaluate(cfg, { signal: stop.signal, onFlush: (f) => flush = f, runJobs });
      const s = r.summary;
      if (stop.signal.aborted) {
        off();
        console.error(`\n${interrupted}: ${s.overall.episodes} of ${s.expected} scored → ${r.out}`);
        return 130;
      }
      const pct = (x: number | null) => x === null ? "-" : `${(x * 100).toFixed(1)}%`;
      if (values.json) console.log(JSON.stringify(s, null, 2));
      console.error(
        `pgs eval: ${s.overall.episodes} scored (${r.ran} run now, ${r.skipped} already done), pass@1 ${
          pct(s.overall["pass@1"])
        }${s.k > 1 ? `, pass@${s.k} ${pct(s["pass@k"])}` : ""}, ${s.overall.infra_errors} infra errors → ${r.out}`,
      );
      for (const [p, ps] of Object.entries(s.profiles)) {
        const atK = s.k > 1 ? `  pass@${s.k} ${pct(ps["pass@k"]).padStart(6)}` : "";
        console.error(`  ${p.padEnd(32)} pass@1 ${pct(ps["pass@1"]).padStart(6)}${atK}  (${ps.passes}/${ps.episodes})`);
      }
      return s.overall.infra_errors ? 1 : 0;
    } finally {
      off();
      offStart();
    }
  },
};
