/**
 * `pgs worker`: runs the episodes a runner sends it on this node's own engine (see lib/cluster/worker_app.ts). Slurm
 * starts one per node as a job step; it is a plain process, usable without Slurm.
 */
import { hostname } from "node:os";
import { UsageError } from "../lib/base/errors.ts";
import { createWorkerApp } from "../lib/cluster/worker_app.ts";
import { localRunner } from "../lib/cluster/worker_runner.ts";
import { creationsSettled, refuseNewContainers, removeOwnContainers } from "../lib/runtime/hygiene.ts";
import { DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_STARTING } from "../lib/eval/run_episodes.ts";
import { answeringRuntime, type Command, parseFlags, positiveInt, RUNTIME_HELP } from "./args.ts";
import { listenError } from "./listen.ts";

const usage = `Usage: pgs worker --token-env NAME [--host 127.0.0.1] [--port 0] [options]
       pgs worker --sweep [--runtime R]

Runs the episodes a runner (pgs eval, harbor check or harbor audit with --slurm) sends it, on this node's own
engine, up to --max-concurrent at once, and answers each one's trajectory with the node's name on it. Prints one
line on stdout once it listens:
  pgs-worker ready http://HOST:PORT node=NAME capacity=N
SIGTERM or Ctrl-C: takes no more episodes, ends the running ones as infrastructure errors, removes its boxes and
exits 0.

  GET  /v1/health     node, capacity, inFlight, runtime, version
  POST /v1/episodes   {settings, row, rowId, sample[, policy]} → the trajectory (lib/cluster/worker_protocol.ts)
  POST /v1/stop       {reason}: stop as on SIGTERM (a runner that wrote this worker off)

--sweep removes the boxes pgs processes that died on this node left on its engine (a worker killed outright) and
exits: the runner starts one on a node whose worker it lost without an answer.

Options:
  --token-env NAME      require "Authorization: Bearer <value of $NAME>" on every request (required)
  --host HOST           address to bind (default 127.0.0.1; on a cluster, the node's own address)
  --port N              port (default 0: a free one, printed on the ready line)
  --node NAME           the name trajectories record (default: $SLURMD_NODENAME, else the host name)
  --max-concurrent N    episodes run at once; more get HTTP 429 (default ${DEFAULT_MAX_CONCURRENT})
  --max-starting N      boxes starting at once (default ${DEFAULT_MAX_STARTING})
${RUNTIME_HELP}
  -h, --help            this help`;

/** How long a stop waits for the running episodes' requests to be answered, and for box creations in flight. */
const STOP_MS = 30_000;

/** `--sweep`: the boxes of dead pgs processes on this node's engine removed, said in one line. */
async function sweep(runtimeName: string | undefined, node: string | undefined): Promise<number> {
  const runtime = await answeringRuntime("worker", runtimeName);
  const gone = await runtime.sweepOrphans();
  const name = node ?? (Deno.env.get("SLURMD_NODENAME") || hostname());
  console.log(`pgs-worker swept ${gone.length} box(es) of dead pgs processes on ${name} (${runtime.engine})`);
  return 0;
}

/** The `worker` command. */
export const workerCommand: Command = {
  name: "worker",
  summary: "run the episodes a runner sends, on this node's own engine (Slurm starts one per node)",
  usage,
  ownSignals: true,
  async run(argv) {
    const { values, positionals } = parseFlags("worker", argv, {
      host: { type: "string" },
      port: { type: "string" },
      "token-env": { type: "string" },
      node: { type: "string" },
      "max-concurrent": { type: "string" },
      "max-starting": { type: "string" },
      runtime: { type: "string" },
      sweep: { type: "boolean" },
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length) throw new UsageError(`worker: unexpected argument ${positionals[0]}`);
    if (values.sweep) return await sweep(values.runtime as string | undefined, values.node);
    const tokenEnv = values["token-env"];
    if (!tokenEnv) throw new UsageError("worker: give --token-env NAME (the variable holding the run's token)");
    const token = Deno.env.get(tokenEnv);
    if (!token) throw new UsageError(`worker: --token-env: environment variable ${tokenEnv} is not set`);
    const port = values.port === undefined ? 0 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(`worker: --port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}`);
    }
    if (values.node !== undefined && !/^\S+$/.test(values.node)) {
      throw new UsageError(`worker: --node must be a name without spaces, got ${JSON.stringify(values.node)}`);
    }
    const node = values.node ?? (Deno.env.get("SLURMD_NODENAME") || hostname());
    const capacity = positiveInt("worker", "max-concurrent", values["max-concurrent"], DEFAULT_MAX_CONCURRENT);
    const maxStarting = positiveInt("worker", "max-starting", values["max-starting"], DEFAULT_MAX_STARTING);
    const runtime = await answeringRuntime("worker", values.runtime as string | undefined);
    await runtime.sweepOrphans().catch(() => []); // boxes of dead pgs processes on this engine

    const runner = localRunner({ runtime, maxStarting });
    const worker = createWorkerApp({
      token,
      node,
      capacity,
      runtime: runtime.kind,
      runner: runner.run,
      onStopRequest: (why) => stop(why),
    });
    const host = values.host ?? "127.0.0.1";
    let http: Deno.HttpServer<Deno.NetAddr>;
    try {
      http = Deno.serve({ hostname: host, port, onListen: () => {} }, worker.app.fetch);
    } catch (e) {
      throw listenError("worker", host, port, e);
    }
    const at = host.includes(":") ? `[${host}]` : host;
    console.log(`pgs-worker ready http://${at}:${http.addr.port} node=${node} capacity=${capacity}`);

    // SIGTERM / SIGINT: no more episodes, the running ones end as infrastructure errors, every box goes, exit 0.
    let stopping: Promise<void> | undefined;
    const stop = (sig: string, fromSignal = false) => {
      // A second Ctrl-C does not wait. A second SIGTERM does: Slurm and the runner may each send one (a cancelled
      // step, then the runner writing it off), and the boxes must go first; Slurm's SIGKILL after KillWait is the force.
      if (stopping && fromSignal && sig === "SIGINT") Deno.exit(130);
      if (stopping) return;
      stopping = (async () => {
        console.error(
          `pgs worker: ${sig}: stopping; ${worker.inFlight} running episode(s) end as infrastructure errors`,
        );
        worker.stop(`${sig} on ${node}`);
        refuseNewContainers();
        await runner.close(); // removes the boxes under the running episodes, which then end at once
        await worker.settled(STOP_MS);
        await creationsSettled(STOP_MS);
        await removeOwnContainers();
        await http.shutdown();
      })();
    };
    const handlers = (["SIGTERM", "SIGINT"] as const).map((sig) => {
      const fn = () => stop(sig, true);
      Deno.addSignalListener(sig, fn);
      return [sig, fn] as const;
    });
    await http.finished;
    await stopping;
    for (const [sig, fn] of handlers) Deno.removeSignalListener(sig, fn);
    console.error(
      runtime.down
        ? `pgs worker: stopped; ${runtime.engine} does not answer, so boxes of this worker may be left there ` +
          "(the next pgs on this node, or pgs worker --sweep, removes them)"
        : `pgs worker: stopped; no box of this worker is left on ${runtime.engine}`,
    );
    return 0;
  },
};
