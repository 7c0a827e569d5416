/** `pgs env serve`: HarborEnv over HTTP JSON for trainers in any language. */
import { objectValue, parseWeights } from "../lib/eval/config.ts";
import { NO_PROFILE_DIALECT } from "../lib/harness/registry.ts";
import { createEnvServer } from "../lib/env/server_app.ts";
import { UsageError } from "../lib/base/errors.ts";
import { HarborEnv } from "../lib/env/harbor_env.ts";
import { loadProfilesModule } from "../lib/harness/load_module.ts";
import { onSignal } from "./signals.ts";
import { TOKEN_FLAGS, TOKEN_FLAGS_HELP, tokenModeFlags } from "./token_flags.ts";
import {
  answeringRuntime,
  type Command,
  harnessModelFlag,
  parseFlags,
  POD_BUDGET_FLAGS,
  podBudgetFlags,
  positiveInt,
  readOverlays,
  storageMbFlag,
  verifierModeFlag,
} from "./args.ts";
import { listenError } from "./listen.ts";
import { createEnvRouter, ENV_NODE_READY, startEnvNodes } from "../lib/cluster/env_router.ts";
import { stopAllSync } from "../lib/cluster/slurm.ts";

const usage = `Usage: pgs env serve [--host 127.0.0.1] [--port 8100] [--token-env NAME] [options]

Serves HarborEnv as an HTTP JSON API (see docs/env-serve.md):
  POST   /v1/episodes             {"row": {"task_dir", ...}, "group"}  → episode_id, messages, tools,
                                  chat_template_kwargs, harness_profile
  POST   /v1/episodes/ID/step     an assistant message {"content", "tool_calls"} → observations, done, exit_status
  POST   /v1/episodes/ID/finish   → reward, metrics, answer (the episode's containers are removed)
  DELETE /v1/episodes/ID          close without scoring
  GET    /v1/episodes/ID, GET /v1/profiles, GET /v1/health
Episodes idle past --idle-timeout are closed. Ctrl-C (SIGINT) or SIGTERM removes every open episode's containers
and exits (130 / 143).

Options:
  --host HOST               address to bind (default 127.0.0.1)
  --port N                  port (default 8100; 0 picks a free one, printed on stderr)
  --token-env NAME          require "Authorization: Bearer <value of $NAME>" on every request but /v1/health
  --slurm                   serve from the nodes of a Slurm allocation (inside an sbatch job: its nodes; else one
                            pgs asks salloc for and releases): a pgs env serve per node on its own engine, this one
                            a router in front; each new episode goes to the node with the fewest open (its answer
                            says which: "node"); a lost node's episodes answer 503 node_lost naming it. The options
                            below apply on every node (--max-episodes: per node)
  --nodes N                 with --slurm outside a job: nodes to ask for (default 1)
  --partition P             with --slurm outside a job: the partition (default the cluster's)
  --time T                  with --slurm outside a job: the time limit, as salloc takes it (default the partition's)
  --profiles a=1,b=1        weighted profile mix, one profile per group (default: ${NO_PROFILE_DIALECT})
  --profile NAME            one profile
  --harness-model NAME      the model name the emulated harnesses are configured with (their -m), or JSON
                            {profile: name}; profiles whose harness changes what it sends with it follow; a row's
                            harness_model wins (default: each profile's recorded name)
  --overlay FILE            an overlay from pgs harness adopt, laid over its profile's episodes (repeatable; a
                            row's overlay, a file on this machine, wins)
  --seed N                  seed of the profile draw (default 0)
  --chat-template-kwargs J  JSON object: the model's chat-template kwargs (lowest precedence)
  --images JSON             task image → replacement, e.g. '{"my-base:1": "my-base:1-tmux"}'
  --verifier-mode M         where the tests run, for every task: isolated, shared, separate, snapshot or
                            shared-clean (default: the task's environment_mode, else isolated for pgs's own layout,
                            else Harbor's shared; see docs/verifier-modes.md)
  --storage-mb N            disk bound in MB of each box (the agent's and the verifier's) of a task that sets no
                            storage_mb; 0: none (default 10240). Enforced where the engine can (btrfs, zfs, overlay
                            on XFS with pquota); elsewhere the server says so once
  --pod-cpus N              CPUs of a compose task's whole pod (main and its sidecars together): main keeps the
                            task's limits, the sidecars share the rest (default: no total)
  --pod-memory-mb N         memory in MB of a compose task's whole pod, shared the same way (default: no total)
  --runtime R               the container runtime: docker (default) or podman (its engine: DOCKER_HOST's,
                            CONTAINER_HOST's)
  --max-output N            characters of command output kept where a profile has no limit (default 16000)
  --idle-timeout SEC        close episodes idle this long (default 600)
  --max-episodes N          episodes open at once; more get HTTP 429 (default 256)
  --max-starting N          containers starting at once (default 8)
  --profiles-module FILE    a module registering more profiles
${TOKEN_FLAGS_HELP}
  --no-rewrite-check        token mode: do not render the whole history each step to count template_rewrite
  -h, --help                this help

Token mode (--tokenizer): creating an episode also returns prompt_token_ids; a step takes
{"completion_token_ids": [...], "logprobs"?: [...]} and returns observation_token_ids (the delta to append, ending
with the generation prompt) and template_rewrite; finish also returns token_ids, loss_mask, logprobs (null where not
sampled) and template_rewrite_turns. The trainer never tokenises.`;

function jsonObject(flag: string, v: string | undefined): Record<string, unknown> | undefined {
  return v === undefined ? undefined : objectValue(`env serve: ${flag}`, v);
}

/** The `env serve` command. */
export const envServe: Command = {
  name: "env serve",
  summary: "serve HarborEnv as an HTTP JSON API (create episode, step, finish) for trainers in any language",
  usage,
  async run(argv) {
    const { values, positionals } = parseFlags("env serve", argv, {
      host: { type: "string" },
      port: { type: "string" },
      "token-env": { type: "string" },
      profiles: { type: "string" },
      profile: { type: "string" },
      "harness-model": { type: "string" },
      overlay: { type: "string", multiple: true },
      seed: { type: "string" },
      "chat-template-kwargs": { type: "string" },
      images: { type: "string" },
      "verifier-mode": { type: "string" },
      "storage-mb": { type: "string" },
      ...POD_BUDGET_FLAGS,
      runtime: { type: "string" },
      "max-output": { type: "string" },
      "idle-timeout": { type: "string" },
      "max-episodes": { type: "string" },
      "max-starting": { type: "string" },
      "profiles-module": { type: "string" },
      "no-rewrite-check": { type: "boolean" },
      ...TOKEN_FLAGS,
      slurm: { type: "boolean" },
      nodes: { type: "string" },
      partition: { type: "string" },
      time: { type: "string" },
      "slurm-node": { type: "boolean" },
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length) throw new UsageError(`env serve: unexpected argument ${positionals[0]}`);
    let token: string | undefined;
    if (values["token-env"]) {
      token = Deno.env.get(values["token-env"]);
      if (!token) {
        throw new UsageError(`env serve: --token-env: environment variable ${values["token-env"]} is not set`);
      }
    }
    const port = values.port === undefined ? 8100 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(`env serve: --port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}`);
    }
    if (values.profile && values.profiles) {
      throw new UsageError("env serve: --profile and --profiles exclude each other");
    }
    const seed = values.seed === undefined ? 0 : Number(values.seed);
    if (!Number.isInteger(seed)) throw new UsageError(`env serve: --seed must be an integer, got ${values.seed}`);
    if (!values.slurm && (values.nodes || values.partition || values.time)) {
      throw new UsageError("env serve: --nodes, --partition and --time go with --slurm");
    }
    if (values.slurm) return await serveSlurm(values, token, values.host ?? "127.0.0.1", port);
    if (values["profiles-module"]) await loadProfilesModule(values["profiles-module"]);
    const overlays = await readOverlays("env serve", values.overlay as string[] | undefined);
    const storageMb = storageMbFlag("env serve", values["storage-mb"] as string | undefined);
    const podBudget = podBudgetFlags("env serve", values);
    const runtime = await answeringRuntime("env serve", values.runtime as string | undefined);
    let env: HarborEnv;
    try {
      env = new HarborEnv({
        profile: values.profile,
        profiles: values.profiles ? parseWeights("--profiles", values.profiles) : undefined,
        profileSeed: seed,
        harnessModel: harnessModelFlag("env serve", values["harness-model"]),
        overlays,
        chatTemplateKwargs: jsonObject("--chat-template-kwargs", values["chat-template-kwargs"]),
        images: jsonObject("--images", values.images) as Record<string, string> | undefined,
        maxOutput: values["max-output"]
          ? positiveInt("env serve", "max-output", values["max-output"], 16000)
          : undefined,
        runtime,
        verifierMode: verifierModeFlag("env serve", values["verifier-mode"]),
        storageMb,
        podBudget,
      });
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`env serve: ${(e as Error).message}`);
    }
    const t = await tokenModeFlags("env serve", values);
    const server = createEnvServer({
      env,
      ...(t ? { tokens: { ...t, rewriteCheck: !values["no-rewrite-check"] } } : {}),
      token,
      idleTimeoutSec: positiveInt("env serve", "idle-timeout", values["idle-timeout"], 600),
      maxEpisodes: positiveInt("env serve", "max-episodes", values["max-episodes"], 256),
      maxStarting: positiveInt("env serve", "max-starting", values["max-starting"], 8),
    });
    const host = values.host ?? "127.0.0.1";
    let http;
    try {
      http = Deno.serve({ hostname: host, port, onListen: () => {} }, server.app.fetch);
    } catch (e) {
      throw listenError("env serve", host, port, e);
    }
    // A node of `--slurm` (started by its router): the line the router waits for.
    if (values["slurm-node"]) {
      console.log(`${ENV_NODE_READY}http://${host.includes(":") ? `[${host}]` : host}:${http.addr.port}`);
    }
    console.error(
      `pgs env serve: listening on http://${host}:${http.addr.port}/v1${token ? " (bearer token required)" : ""}${
        t ? ` (token mode: ${t.tokenizer.source})` : ""
      }`,
    );
    // Ctrl-C / SIGTERM: the hygiene handler removes every container of ours (all open episodes), then exits.
    onSignal("exit", () => {
      const warm = env.pool.size + env.pool.pending;
      console.error(
        `pgs env serve: stopped; closed ${server.size} open episode(s) and removed ${warm} warm box(es) started ahead`,
      );
    });
    await http.finished;
    return 0;
  },
};

/** Flags that are the router's own under --slurm; every other one is passed to each node's server. */
const ROUTER_FLAGS = new Set([
  "help",
  "host",
  "port",
  "token-env",
  "slurm",
  "nodes",
  "partition",
  "time",
  "slurm-node",
]);

/**
 * `--slurm`: a `pgs env serve` per node of the allocation, with every settings flag given here, and a router on
 * `host:port` in front (lib/cluster/env_router.ts); Ctrl-C / SIGTERM ends the node servers (each removes its
 * episodes' boxes) and releases an allocation pgs asked for.
 */
async function serveSlurm(
  values: Record<string, unknown>,
  token: string | undefined,
  host: string,
  port: number,
): Promise<number> {
  const nodes = values.nodes === undefined ? 1 : positiveInt("env serve", "nodes", values.nodes as string, 1);
  const serveArgs: string[] = [];
  for (const [k, v] of Object.entries(values)) {
    if (ROUTER_FLAGS.has(k) || v === undefined || v === false) continue;
    if (v === true) serveArgs.push(`--${k}`);
    else for (const x of Array.isArray(v) ? v : [v]) serveArgs.push(`--${k}=${x}`);
  }
  // A signal ends every node's step and the allocation, synchronously, whatever the router is doing then.
  const off = onSignal("exit", () => {
    console.error("pgs env serve: stopping the node servers (each removes its episodes' boxes)");
    stopAllSync(8_000);
  });
  const en = await startEnvNodes({
    nodes,
    partition: values.partition as string | undefined,
    time: values.time as string | undefined,
    serveArgs,
  });
  const router = createEnvRouter({ nodes: en.nodes, token, nodeToken: en.token });
  let http;
  try {
    http = Deno.serve({ hostname: host, port, onListen: () => {} }, router.app.fetch);
  } catch (e) {
    await en.close();
    off();
    throw listenError("env serve", host, port, e);
  }
  const names = en.nodes.map((n) => n.name).join(", ");
  console.error(
    `pgs env serve: ${en.nodes.length} node(s) of Slurm job ${en.allocation.jobId}: ${names}`,
  );
  console.error(
    `pgs env serve: listening on http://${host}:${http.addr.port}/v1${token ? " (bearer token required)" : ""}`,
  );
  await http.finished;
  await en.close();
  off();
  return 0;
}
