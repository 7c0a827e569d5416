/**
 * The verifier's containers and scripts. In `isolated` and `separate` mode a container is created and started idle
 * ahead of time (while the episode starts), so that verifying costs only the copies and the test run; in `shared`
 * mode the tests run in the agent's own container, in `snapshot` mode in a container of its commit. One script shape
 * serves every mode: it lays out the inputs as root, runs `/tests/test.sh` (as the tests' user) and frames the results.
 */
import { posix } from "node:path";
import { shQuote } from "../runtime/channel.ts";
import { EngineDownError, InfraError } from "../base/errors.ts";
import { type Box, type BoxSpec, BoxStartError, type Runtime } from "../runtime/runtime.ts";
import type { ImageStore } from "../runtime/images.ts";
import { startInPod } from "../runtime/pod_box.ts";
import { boxLimits, withStorage } from "../runtime/limits.ts";
import { TIED_READY, TIED_VERIFIER_MAIN } from "./verifier_tied.ts";
import { stopAgentProcessesScript } from "./agent_processes.ts";
import { guardScript, type InputGuard, type Neutralised, NEUTRALISED_LISTED, readNeutralFrame } from "./input_guard.ts";
import { tarArchive, type TarEntry, treeEntries } from "../base/tar.ts";
import type { Task, TaskStep } from "../task/task.ts";
import type { EnvironmentConfig } from "../task/task_config.ts";
import { networkAllowed, networkPlan } from "../task/network_plan.ts";

/** Where the isolated verifier's copy of the working directory lands before the script moves it into place. */
export const STAGE_DIR = "/.pgs-stage";
/** The folder under a stage that carries tests/ in the same archive. */
export const TESTS_STAGE = ".pgs-tests";
/** Bytes of test.sh's output kept in the result. */
const TAIL_BYTES = 4000;

/** A verifier container made ahead, and the folder its tests start in. */
export interface VerifierBox {
  /** The container. */
  box: Box;
  /** Where test.sh runs; undefined: the episode's working directory. */
  workdir?: string;
}

/** What a verifier script lays out before running the tests. */
export interface ScriptPlan {
  /** Folder test.sh starts in (`/` when it does not exist). */
  cwd: string;
  /** Whether stdin carries capture.json after the final message. */
  capture: boolean;
  /** A stage folder the copies landed in, removed once they are in place; none: nothing was copied. */
  stage?: string;
  /** Copy `stage/TESTS_STAGE` into `to` (merged, or into an emptied folder when `fresh`). */
  tests?: { to: string; fresh: boolean };
  /** Move `stage/<basename>` over this working directory (the isolated copy). */
  workdir?: string;
  /** Move `stage/a<i>/<basename>` over each path, in order (a separate verifier's artifacts). */
  artifacts?: string[];
  /**
   * The input comes through a tied box's pipe (`verifier_tied.ts`): stdin starts with `N\n` and an N-byte tar that
   * is extracted into `stage`, and capture.json is `N\n` + N bytes too, since stdin does not end (default false).
   */
  tied?: boolean;
  /**
   * Stop every process outside this process table (`pid:starttime` entries, `agent_processes.ts`) before anything
   * else, and print `PGS-STOPPED n` (`shared-clean`; default: nothing stopped).
   */
  stopOutside?: string[];
  /** What to neutralise once the inputs are in place (`input_guard.ts`; default: nothing). */
  guard?: InputGuard;
}

/**
 * Makes /logs/agent a real folder holding neither file yet: a link the agent planted at /logs or /logs/agent is
 * removed first, and the two files are written as new inodes, so no link or hard link of the agent's reaches them.
 */
const LOGS_AGENT = [
  `for d in /logs /logs/agent; do if [ -L "$d" ] || { [ -e "$d" ] && [ ! -d "$d" ]; }; then rm -f "$d"; fi; done`,
  `mkdir -p /logs/agent && rm -rf /logs/agent/final_message.md /logs/agent/capture.json`,
].join("\n");

/**
 * The root part of a verifier script. Stdin carries `N\n`, the final message (N bytes), then capture.json (the rest,
 * when `capture`). It writes /logs/agent/{final_message.md,capture.json}, lays the copies out from the stage, and
 * makes /logs/verifier anew, owned by `user` (default root), so that no planted file survives. Prints PGS-READY.
 */
export function prepareScript(plan: ScriptPlan, user?: string): string {
  const S = plan.stage ? shQuote(plan.stage) : "";
  const stop = plan.stopOutside ? [stopAgentProcessesScript(plan.stopOutside)] : [];
  const lines = [
    ...stop,
    ...plan.tied
      ? [
        // The stage's archive comes first; GNU tar as root keeps its numeric owners and modes, as `docker cp` does.
        `read -r n && mkdir -p ${S} && head -c "$n" | tar -x --numeric-owner -C ${S} || { echo PGS-UNTAR; exit 97; }`,
        LOGS_AGENT,
        `read -r n && head -c "$n" > /logs/agent/final_message.md`,
        `read -r n && head -c "$n" > ${plan.capture ? "/logs/agent/capture.json" : "/dev/null"}`,
      ]
      : [
        LOGS_AGENT,
        `read -r n && head -c "$n" > /logs/agent/final_message.md`,
        plan.capture ? `cat > /logs/agent/capture.json` : `cat > /dev/null`,
      ],
  ];
  const moveOver = (from: string, to: string) => {
    const T = shQuote(to);
    lines.push(`rm -rf ${T} && mkdir -p ${shQuote(posix.dirname(to))} && mv ${from} ${T}`);
  };
  if (plan.stage && plan.tests) {
    const T = shQuote(plan.tests.to);
    if (plan.tests.fresh) lines.push(`rm -rf ${T}`);
    lines.push(`mkdir -p ${T} && cp -a ${S}/${TESTS_STAGE}/. ${T}/`);
  }
  if (plan.stage && plan.workdir) moveOver(`${S}/${shQuote(posix.basename(plan.workdir))}`, plan.workdir);
  plan.artifacts?.forEach((to, i) => {
    const from = `${S}/a${i}/${shQuote(posix.basename(to))}`;
    lines.push(`if [ -e ${from} ] || [ -L ${from} ]; then`);
    moveOver(from, to);
    lines.push(`fi`);
  });
  if (plan.stage) lines.push(`rm -rf ${S}`);
  if (plan.guard) lines.push(guardScript(plan.guard));
  lines.push(`rm -rf /logs/verifier && mkdir -p /logs/verifier && chmod 755 /logs/verifier`);
  if (user) lines.push(`chown ${shQuote(user)} /logs/verifier`);
  lines.push(`chmod +x /tests/test.sh 2>/dev/null; echo PGS-READY`);
  return lines.join("\n");
}

/**
 * Seconds the host allows a verifier script past the tests' own timeout: the layout and the input guard before them
 * (pgs's machinery, which Harbor's timeout does not cover either), and test.sh's own bound inside the box.
 */
export const PREPARE_SLACK_SEC = 30;

/**
 * The test part: runs /tests/test.sh in `cwd` with its output in /logs/verifier/test-stdout.txt, and prints
 * `PGS-EXIT rc`, `PGS-TESTS t0 t1` (the box's uptime around the tests, so that only their own time is held against
 * `timeoutSec`), then each result file framed as `PGS-FILE name size` + bytes (the output's last 4000 bytes only).
 * The box's `timeout` (coreutils or busybox) kills the tests' process group at `timeoutSec`; without one, the host's
 * bound (`timeoutSec` + `PREPARE_SLACK_SEC`) does.
 */
export function testScript(cwd: string, timeoutSec: number): string {
  return [
    `cd ${shQuote(cwd)} 2>/dev/null || cd /`,
    `pgs_to=; timeout -s KILL 5 true >/dev/null 2>&1 && pgs_to="timeout -s KILL ${Math.ceil(timeoutSec)}"`,
    `read -r pgs_t0 _ < /proc/uptime 2>/dev/null || pgs_t0=0`,
    // As Harbor runs it, `bash -c "(/tests/test.sh) > ..."`: its shebang decides, and bash reads one without any.
    `if command -v bash >/dev/null 2>&1; then $pgs_to bash -c /tests/test.sh; else $pgs_to /tests/test.sh; fi \\`,
    `  > /logs/verifier/test-stdout.txt 2>&1; pgs_rc=$?`,
    `read -r pgs_t1 _ < /proc/uptime 2>/dev/null || pgs_t1=0`,
    `echo "PGS-EXIT $pgs_rc"; echo "PGS-TESTS $pgs_t0 $pgs_t1"`,
    `for f in reward.json reward.txt test-stdout.txt; do`,
    `  p=/logs/verifier/$f; [ -f "$p" ] || continue`,
    `  s=$(wc -c < "$p"); [ $f = test-stdout.txt ] && [ "$s" -gt ${TAIL_BYTES} ] && s=${TAIL_BYTES}`,
    `  echo "PGS-FILE $f $s"; tail -c "$s" "$p"`,
    `done`,
  ].join("\n");
}

/** What a verifier script printed: its frames, the tests' exit status and result files, and what it neutralised. */
export interface ScriptFrames {
  /** The inputs were laid out (PGS-READY). */
  ready: boolean;
  /** The tied archive could not be unpacked. */
  untar: boolean;
  /** test.sh's exit status, when it ran. */
  exit?: number;
  /** Seconds test.sh ran, by the box's clock, when it ran. */
  testsSec?: number;
  /** The result files, by name. */
  files: Record<string, string>;
  /** shared-clean: how many of the agent's processes were stopped. */
  stopped?: number;
  /** What the input guard removed (the first NEUTRALISED_LISTED of them). */
  neutralised: Neutralised[];
  /** How many it removed in all. */
  neutralisedCount: number;
}

/** The files and exit status a verifier script printed. */
export function parseFrames(out: Uint8Array): ScriptFrames {
  const files: Record<string, string> = {};
  const neutralised: Neutralised[] = [];
  let neutralisedCount = 0;
  let exit: number | undefined;
  let ready = false;
  let untar = false;
  let stopped: number | undefined;
  let testsSec: number | undefined;
  let i = 0;
  const dec = new TextDecoder();
  while (i < out.length) {
    const nl = out.indexOf(10, i);
    if (nl < 0) break;
    const line = dec.decode(out.subarray(i, nl));
    i = nl + 1;
    const m = line.match(/^PGS-FILE (\S+) (\d+)$/);
    if (m) {
      files[m[1]] = dec.decode(out.subarray(i, i + Number(m[2])));
      i += Number(m[2]);
    } else if (line.startsWith("PGS-NEUTRAL ")) {
      const f = readNeutralFrame(line, out, i);
      if (!f) continue;
      i = f.next;
      neutralisedCount++;
      if (neutralised.length < NEUTRALISED_LISTED) neutralised.push(f.entry);
    } else if (line.startsWith("PGS-EXIT ")) exit = Number(line.slice(9));
    else if (line.startsWith("PGS-TESTS ")) {
      const [t0, t1] = line.slice(10).split(" ").map(Number);
      if (t0 > 0 && t1 >= t0) testsSec = t1 - t0;
    } else if (line === "PGS-READY") ready = true;
    else if (line === "PGS-UNTAR") untar = true;
    else if (line.startsWith("PGS-STOPPED ")) stopped = Number(line.slice(12));
  }
  return {
    ready,
    untar,
    exit,
    files,
    ...(stopped !== undefined ? { stopped } : {}),
    ...(testsSec !== undefined ? { testsSec } : {}),
    neutralised,
    neutralisedCount,
  };
}

/**
 * Starts a verifier container idle from `image`, with `limits` and the verifier's network and env, working directory
 * `cwd` (the runtime creates it, so a stage there exists however soon the copy comes). With `entrypoint` the image's
 * ENTRYPOINT runs first (as Harbor's compose services do: a separate verifier image may start a service there);
 * otherwise the shell replaces it. `tied`: the box is tied to a pipe (`verifier_tied.ts`; not with `entrypoint`).
 * With `sidecars`, a compose task's verifier box is the first member of a fresh pod of its services, from pristine
 * images (`startInPod`): the tests reach them as in the agent's pod, and none of the agent's sidecars' state.
 */
export async function startVerifierContainer(
  runtime: Runtime,
  task: Task,
  image: string,
  limits: EnvironmentConfig,
  cwd: string,
  network: boolean,
  entrypoint = false,
  tied = false,
  sidecars?: ImageStore,
): Promise<Box> {
  const v = task.config.verifier;
  const start = (spec: BoxSpec) => sidecars ? startInPod(sidecars, task, spec) : runtime.start(spec);
  const common = {
    image,
    limits: boxLimits(limits, network),
    role: "verifier",
    task: task.name,
    env: { ...limits.env, ...v.env },
    user: "0",
    workdir: cwd,
    stage: "verify",
  };
  try {
    if (tied) {
      const main = ["/bin/sh", "-c", TIED_VERIFIER_MAIN];
      return await start({ ...common, command: main, replaceEntrypoint: true, pipe: { ready: TIED_READY } });
    }
    return await start({
      ...common,
      // Idles until the verifier runs its script through an exec (stdin stays open if `sleep` is missing).
      command: ["/bin/sh", "-c", "sleep 2147483647 2>/dev/null || while read -r _; do :; done"],
      replaceEntrypoint: !entrypoint,
      stdinOpen: true,
    });
  } catch (e) {
    if (e instanceof EngineDownError || !(e instanceof BoxStartError)) throw e;
    throw new InfraError(`${task.name}: cannot start the verifier container: ${e.detail}`, "verify");
  }
}

/**
 * The isolated verifier's container: the pristine task image with the stage folder ready for the copy, tied to a
 * pipe whose main process takes the inputs and runs the tests (`verifier_tied.ts`).
 */
export async function createVerifier(
  store: ImageStore,
  task: Task,
  image: string,
  storageDefault?: number,
  step?: TaskStep,
): Promise<VerifierBox> {
  const env = withStorage(task.config.environment, storageDefault);
  const network = networkAllowed(networkPlan(task.config, "isolated", step?.config).verifier);
  return {
    box: await startVerifierContainer(store.runtime, task, image, env, STAGE_DIR, network, false, true, store),
  };
}

/**
 * The task's tests/ as tar entries under `TESTS_STAGE`, made once per loaded task (and step): for a step of a
 * multi-step task, the task's tests/ (when it exists) and then the step's own tests/ over it, as Harbor lays them.
 */
export function testsEntries(task: Task, step?: TaskStep): Promise<TarEntry[]> {
  const cache = cacheFor(testsTrees, task);
  let p = cache.get(step);
  if (!p) {
    p = (async () => {
      const root = await isDir(task.paths.testsDir) ? await treeEntries(task.paths.testsDir, TESTS_STAGE, 0, 0) : [];
      if (!step?.testsDir) return root;
      const own = await treeEntries(step.testsDir, TESTS_STAGE, 0, 0);
      return root.length ? [...root, ...own.slice(1)] : own;
    })();
    p.catch(() => cache.delete(step));
    cache.set(step, p);
  }
  return p;
}

/**
 * The task's tests/ as an archive without its end-of-archive blocks: the isolated verifier sends it ahead of the
 * working directory's archive in the one `docker cp` into STAGE_DIR.
 */
export function testsArchivePrefix(task: Task, step?: TaskStep): Promise<Uint8Array> {
  const cache = cacheFor(testsArchives, task);
  let p = cache.get(step);
  if (!p) {
    p = testsEntries(task, step).then((entries) => {
      const tar = tarArchive(entries);
      return tar.subarray(0, tar.length - 1024);
    });
    p.catch(() => cache.delete(step));
    cache.set(step, p);
  }
  return p;
}

type PerStep<T> = Map<TaskStep | undefined, Promise<T>>;
const testsTrees = new WeakMap<Task, PerStep<TarEntry[]>>();
const testsArchives = new WeakMap<Task, PerStep<Uint8Array>>();

function cacheFor<T>(caches: WeakMap<Task, PerStep<T>>, task: Task): PerStep<T> {
  let c = caches.get(task);
  if (!c) caches.set(task, c = new Map());
  return c;
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await Deno.stat(p)).isDirectory;
  } catch {
    return false;
  }
}
