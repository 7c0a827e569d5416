/**
 * The verifier: the task's own tests/test.sh, run as root in a NEW container from the pristine image that holds only a
 * copy of the agent's working directory, /tests, and /logs/agent/{final_message.md,capture.json}. Nothing the agent
 * left elsewhere (processes, patched tools, a planted reward file) reaches it.
 */
import { removeContainer } from "./hygiene.ts";
import { parseReward } from "./reward.ts";
import type { Sandbox } from "./sandbox.ts";
import { createVerifier, STAGE_DIR, testsArchivePrefix, verifierScript } from "./verifier_container.ts";

/** Verifier options. */
export interface VerifyOptions {
  /** The reward.json key that is the reward (default "reward", else the first key). */
  rewardKey?: string;
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
  /** Milliseconds spent capturing, copying, running the tests, and in total. */
  timings: { capture: number; copy: number; tests: number; total: number };
}

const enc = new TextEncoder();

function parseFrames(out: Uint8Array): { exit?: number; files: Record<string, string> } {
  const files: Record<string, string> = {};
  let exit: number | undefined;
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
    } else if (line.startsWith("PGS-EXIT ")) exit = Number(line.slice(9));
  }
  return { exit, files };
}

/** Captures live state, copies the working directory into a clean container and runs the tests there. */
export async function verify(box: Sandbox, finalMessage: string, opts: VerifyOptions = {}): Promise<VerifyResult> {
  const task = box.task;
  const vcfg = task.config.verifier;
  const docker = box.docker;
  const t0 = performance.now();
  const timings = { capture: 0, copy: 0, tests: 0, total: 0 };
  const fail = (error: string, extra: Record<string, number> = {}, testOutput = ""): VerifyResult => {
    timings.total = performance.now() - t0;
    return { reward: 0, metrics: { verifier_failed: 1, ...extra }, error, testOutput, timings };
  };
  // Taken before anything can fail, so that the container is removed on every path.
  const pending = box.takeVerifier() ?? createVerifier(docker, task, box.image.ref);
  let vid: string | undefined;
  try {
    let capture: Uint8Array = new Uint8Array();
    if (vcfg.capture) {
      if (!await box.running()) {
        return fail("the agent's container is not running, so it cannot be captured", { container_dead: 1 });
      }
      const r = await box.execRoot(["/bin/sh", "-c", vcfg.capture], vcfg.captureTimeoutSec);
      if (r.timedOut) return fail(`capture timed out after ${vcfg.captureTimeoutSec} s`);
      if (r.code !== 0 && !await box.running()) {
        return fail("the agent's container died during capture", { container_dead: 1 });
      }
      capture = r.stdout;
      timings.capture = performance.now() - t0;
    }
    try {
      vid = await pending;
    } catch (e) {
      return fail((e as Error).message);
    }

    // Stream the working directory container-to-container through the CLI; ownership and modes are kept.
    const t1 = performance.now();
    const tests = await testsArchivePrefix(task);
    const out = docker.spawn(["cp", `${box.id}:${box.workdir}`, "-"]);
    const [copy, outStatus, outErr] = await Promise.all([
      docker.call(["cp", "-", `${vid}:${STAGE_DIR}`], { stdin: prepend(tests, out.stdout) }),
      out.status,
      new Response(out.stderr).text(),
    ]);
    if (!outStatus.success) return fail(`cannot copy ${box.workdir} out of the agent's container: ${outErr.trim()}`);
    if (copy.code !== 0) return fail(`cannot copy ${box.workdir} into the verifier container: ${copy.stderr}`);
    timings.copy = performance.now() - t1;

    const t2 = performance.now();
    const msg = enc.encode(finalMessage);
    const stdin = new Uint8Array([...enc.encode(`${msg.length}\n`), ...msg, ...capture]);
    const script = verifierScript(box.workdir, Boolean(vcfg.capture));
    const run = await docker.call(["exec", "-i", vid, "/bin/sh", "-c", script], {
      stdin,
      timeoutMs: vcfg.timeoutSec * 1000,
    });
    timings.tests = performance.now() - t2;
    const { exit, files } = parseFrames(run.stdout);
    const testOutput = files["test-stdout.txt"] ?? "";
    if (run.timedOut) {
      return fail(`tests/test.sh timed out after ${vcfg.timeoutSec} s`, { verifier_timeout: 1 }, testOutput);
    }
    if (exit === undefined) {
      return fail(`the verifier container failed: ${run.stderr || `exit ${run.code}`}`, {}, testOutput);
    }
    const parsed = parseReward({ json: files["reward.json"], txt: files["reward.txt"] }, opts.rewardKey);
    if ("error" in parsed) return fail(parsed.error, {}, testOutput);
    timings.total = performance.now() - t0;
    return { reward: parsed.reward, metrics: parsed.metrics, testOutput, timings };
  } finally {
    // Off the critical path: the reward is known; removal is tracked and finished at exit if need be.
    const id = vid ?? await pending.catch(() => undefined);
    if (id) box.background(removeContainer(docker, id));
  }
}

/** `head`, then every chunk of `rest`: one archive from our tests entries and the engine's stream. */
function prepend(head: Uint8Array, rest: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = rest.getReader();
  let first = true;
  return new ReadableStream({
    async pull(c) {
      if (first) {
        first = false;
        c.enqueue(head);
        return;
      }
      const { value, done } = await reader.read();
      if (done) c.close();
      else c.enqueue(value);
    },
    cancel(why) {
      return reader.cancel(why);
    },
  });
}
