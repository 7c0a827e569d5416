/**
 * Whether the agent's box is at its disk bound when the episode ends. A box the engine bounds (`storage_mb` on a
 * driver that enforces it) and that the policy filled would otherwise be copied whole into a verifier's box of the
 * same bound, doubling the episode's disk on the host at its peak: such an episode ends `disk_limit` instead (reward 0,
 * the policy's doing), its tests not run. The probe is one root write of `ROOM_PROBE_BYTES` into the box, under a
 * name the agent cannot know; a refusal that names the disk (ENOSPC, or EDQUOT under a btrfs qgroup) is the answer.
 */
import type { Sandbox } from "../runtime/sandbox.ts";

/** The room a box must still have not to count as full: 16 MiB. */
export const ROOM_PROBE_BYTES = 16 << 20;
/** What a write past a box's disk bound says. */
const DISK_FULL = /No space left on device|Disk quota exceeded/i;

/** The disk_limit error of a full box, or undefined when it has room (or its engine does not bound disks). */
export async function diskBoundReached(box: Sandbox): Promise<string | undefined> {
  const mb = box.storageMb;
  if (!mb || await box.runtime.diskBoundProblem() !== undefined) return undefined;
  const probe = `/.pgs-room-${crypto.randomUUID().replaceAll("-", "")}`;
  // noclobber: a name that exists (it cannot be guessed, but) is never written through.
  const script = `set -C; head -c ${ROOM_PROBE_BYTES} /dev/zero > ${probe}; r=$?; rm -f ${probe}; exit $r`;
  const r = await box.execRoot(["/bin/sh", "-c", script], 60);
  const said = new TextDecoder().decode(r.stdout) + r.stderr;
  if (r.code === 0 || !DISK_FULL.test(said)) return undefined;
  return `the agent's box is at its disk bound (storage_mb = ${mb}): fewer than ${ROOM_PROBE_BYTES >> 20} MB ` +
    `left, so its working directory was not copied and the tests did not run`;
}
