/**
 * The verifier's clean container, created and started idle ahead of time (while the episode starts) from the pristine
 * image, so that verifying costs only one copy (tests/ and the working directory in one archive) and the test run.
 */
import { posix } from "node:path";
import { shQuote, text } from "./channel.ts";
import { envArgs, limitArgs } from "./docker_args.ts";
import type { Docker } from "./docker.ts";
import { InfraError } from "./errors.ts";
import { creatingContainer, labelArgs, removeContainer, track } from "./hygiene.ts";
import { tarArchive, treeEntries } from "./tar.ts";
import type { Task } from "./task.ts";

/** Where the working directory copy lands before the run script moves it over the pristine one. */
export const STAGE_DIR = "/.pgs-stage";
/** The folder under STAGE_DIR that carries tests/ in the same archive. */
const TESTS_STAGE = ".pgs-tests";

/**
 * The verifier's script. Stdin carries `N\n`, the final message (N bytes), then capture.json (the rest, when
 * `capture`). It replaces the pristine working directory with the agent's copy, empties /logs/verifier, runs the
 * tests as root in `/`, and prints `PGS-EXIT rc` and each result file framed as `PGS-FILE name size` + bytes.
 */
export function verifierScript(workdir: string, capture: boolean): string {
  const W = shQuote(workdir);
  return [
    `mkdir -p /logs/agent && read -r n && head -c "$n" > /logs/agent/final_message.md`,
    capture ? `cat > /logs/agent/capture.json` : `cat > /dev/null`,
    `mkdir -p /tests && cp -a ${STAGE_DIR}/${TESTS_STAGE}/. /tests/`,
    `rm -rf ${W} /logs/verifier && mkdir -p ${shQuote(posix.dirname(workdir))} /logs/verifier`,
    `mv ${STAGE_DIR}/${shQuote(posix.basename(workdir))} ${W} && rm -rf ${STAGE_DIR}`,
    `chmod +x /tests/test.sh 2>/dev/null; cd /`,
    `/tests/test.sh > /logs/verifier/test-stdout.txt 2>&1; echo "PGS-EXIT $?"`,
    `for f in reward.json reward.txt test-stdout.txt; do`,
    `  p=/logs/verifier/$f; [ -f "$p" ] || continue`,
    `  if [ $f = test-stdout.txt ]; then tail -c 4000 "$p" > /tmp/.pgs-tail; p=/tmp/.pgs-tail; fi`,
    `  echo "PGS-FILE $f $(wc -c < "$p")"; cat "$p"`,
    `done`,
  ].join("\n");
}

/**
 * Starts the verifier container of an episode idle and stages /tests in it, so that verifying costs a `docker exec`
 * rather than a container start; returns its id.
 */
export async function createVerifier(docker: Docker, task: Task, image: string): Promise<string> {
  const v = task.config.verifier;
  const env = task.config.environment;
  const r = await creatingContainer(docker, () =>
    docker.call([
      "run",
      "-d",
      "-i",
      ...limitArgs(env, v.allowInternet),
      ...labelArgs("verifier", task.name),
      ...envArgs({ ...env.env, ...v.env }),
      "-u",
      "0",
      // Docker creates the working directory, so STAGE_DIR exists for the copy however soon it comes.
      "-w",
      STAGE_DIR,
      "--entrypoint",
      "/bin/sh",
      image,
      "-c",
      // Idles until the verifier runs its script through `docker exec` (stdin stays open if `sleep` is missing).
      "sleep 2147483647 2>/dev/null || while read -r _; do :; done",
    ]));
  const vid = text(r.stdout).trim();
  if (r.code !== 0) {
    if (/^[0-9a-f]{64}$/.test(vid)) await removeContainer(docker, vid); // created but not started
    throw new InfraError(`${task.name}: cannot start the verifier container: ${r.stderr}`, "verify");
  }
  track(docker, vid);
  return vid;
}

/**
 * The task's tests/ as tar entries under TESTS_STAGE, without the end-of-archive blocks: the verifier sends them
 * ahead of the working directory's archive in the one `docker cp` into STAGE_DIR.
 */
export function testsArchivePrefix(task: Task): Promise<Uint8Array> {
  // Made once per loaded task: every episode of it sends the same bytes.
  let p = testsArchives.get(task);
  if (!p) {
    p = treeEntries(task.paths.testsDir, TESTS_STAGE, 0, 0).then((entries) => {
      const tar = tarArchive(entries);
      return tar.subarray(0, tar.length - 1024);
    });
    p.catch(() => testsArchives.delete(task));
    testsArchives.set(task, p);
  }
  return p;
}

const testsArchives = new WeakMap<Task, Promise<Uint8Array>>();
