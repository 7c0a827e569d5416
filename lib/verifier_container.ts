/**
 * The verifier's clean container, created and started idle ahead of time (while the episode starts) from the pristine
 * image with /tests staged, so that verifying costs only the working-directory copy and the test run.
 */
import { posix } from "node:path";
import { shQuote, text } from "./channel.ts";
import { envArgs, limitArgs } from "./docker_args.ts";
import type { Docker } from "./docker.ts";
import { InfraError } from "./errors.ts";
import { creatingContainer, labelArgs, removeContainer, track } from "./hygiene.ts";
import { tarArchive, type TarEntry, treeEntries } from "./tar.ts";
import type { Task } from "./task.ts";

/** Where the working directory copy lands before the run script moves it over the pristine one. */
export const STAGE_DIR = "/.pgs-stage";

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
      "-w",
      "/",
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
  const staged: TarEntry[] = [
    { name: STAGE_DIR.slice(1), type: "dir", mode: 0o755, uid: 0, gid: 0 },
    ...(await treeEntries(task.paths.testsDir, "tests", 0, 0)),
  ];
  const put = await docker.call(["cp", "-", `${vid}:/`], { stdin: tarArchive(staged) });
  if (put.code !== 0) {
    await removeContainer(docker, vid);
    throw new InfraError(`${task.name}: cannot stage tests/ into the verifier container: ${put.stderr}`, "verify");
  }
  return vid;
}
