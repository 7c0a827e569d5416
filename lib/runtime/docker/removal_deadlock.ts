/**
 * Which Docker engines need their removals one at a time: dockerd before 20.10.27 can deadlock in its network
 * controller when two containers' network teardowns overlap (moby/moby#46661, fixed by moby/libnetwork#2679, in
 * 20.10.27 and in 23.0 onwards).
 */

/** True when a dockerd of `version` may have moby/moby#46661 (unknown versions are assumed to). */
export function hasRemovalDeadlock(version: string): boolean {
  const m = version.trim().match(/^v?(\d+)\.(\d+)\.(\d+)/);
  if (!m) return true;
  const [major, minor, patch] = m.slice(1).map(Number);
  if (major > 20) return false;
  if (major === 20 && minor === 10) return patch < 27;
  return true;
}
