/**
 * Copies from the agent's box into a verifier's, streamed box to box (the one's `getArchive` into the other's
 * `putArchive`: for Docker `docker cp SRC -` into `docker cp - DST`), each side bounded; a failure says which side
 * failed, since reading the agent's box can fail by the agent's doing while writing the verifier's is the machinery's.
 * A copy may carry a cap (the episode's `storage_mb`): past it the copy stops, and the failure is the agent's
 * (`diskLimit`), as is a verifier's box that runs out of its own bound (the agent's) while it takes the copy.
 */
import type { ArchiveRead, Box } from "../runtime/runtime.ts";

/** The bound of one copy into or out of a container. */
export const COPY_TIMEOUT_MS = 600_000;

/** A failed copy, and whose side failed: the agent's container (read) or the verifier's (written). */
export interface CopyFailure {
  /** What failed, naming the path. */
  error: string;
  /** `agent`: reading the agent's container; `verifier`: writing the verifier's. */
  side: "agent" | "verifier";
  /** True when the source path does not exist in the agent's container. */
  missing: boolean;
  /** True when the copy passed the episode's disk bound (`storage_mb`): the verification ends `disk_limit`. */
  diskLimit?: boolean;
}

const MB = 1024 * 1024;
/** What a write past a box's disk bound says (ENOSPC, or EDQUOT under a btrfs qgroup). */
const DISK_FULL = /no space left on device|disk quota exceeded/i;

/** The failure of a copy of `path` stopped at its cap of `capMb`. */
function overCap(path: string, capMb: number): CopyFailure {
  const error = `the working directory ${path} exceeded storage_mb = ${capMb}: its copy for the verifier ` +
    `passed ${capMb} MB and was stopped`;
  return { error, side: "agent", missing: false, diskLimit: true };
}

/**
 * `stream` passed on while it stays within `capBytes` (its first `exempt` bytes not counted); past that, the source
 * is cancelled and the stream errors (`over()` then says so).
 */
function capped(
  stream: ReadableStream<Uint8Array>,
  capBytes: number,
  exempt: number,
  cancel?: () => void,
): { stream: ReadableStream<Uint8Array>; over: () => boolean } {
  const reader = stream.getReader();
  let seen = -exempt;
  let over = false;
  const out = new ReadableStream<Uint8Array>({
    async pull(c) {
      const next = await reader.read();
      if (next.done) return c.close();
      seen += next.value.length;
      if (seen > capBytes) {
        over = true;
        reader.cancel().catch(() => {});
        cancel?.();
        return c.error(new Error("past the disk bound"));
      }
      c.enqueue(next.value);
    },
    cancel: (why) => reader.cancel(why),
  });
  return { stream: out, over: () => over };
}

/**
 * Streams `path` of box `from` into folder `into` of box `to`, with `head` (the start of an archive without its end
 * blocks) sent first when given. Returns undefined when it worked.
 */
export async function copyFromAgent(
  from: Box,
  path: string,
  to: Box,
  into: string,
  head?: Uint8Array,
): Promise<CopyFailure | undefined> {
  return await copyArchive(from.getArchive(path, COPY_TIMEOUT_MS), path, to, into, head);
}

/**
 * Streams an archive read out of the agent's box (`out`, of `path`) into folder `into` of box `to`; see copyFromAgent.
 * With `capMb` (default none) the copy stops past that many MB of `out.stream`, its first `exempt` bytes not counted
 * (an archive's start already prepended to it), and the failure is `diskLimit`.
 */
export async function copyArchive(
  out: Pick<ArchiveRead, "stream" | "done"> & { cancel?: () => void },
  path: string,
  to: Box,
  into: string,
  head?: Uint8Array,
  capMb?: number,
  exempt = 0,
): Promise<CopyFailure | undefined> {
  const cap = capMb ? capped(out.stream, capMb * MB, exempt, out.cancel) : undefined;
  const source = cap?.stream ?? out.stream;
  const stdin = head ? prepend(head, source) : source;
  const [copy, read] = await Promise.all([to.putArchive(into, stdin, COPY_TIMEOUT_MS), out.done]);
  if (cap?.over()) return overCap(path, capMb!);
  if (capMb && !copy.ok && DISK_FULL.test(copy.error)) return overCap(path, capMb);
  if (!read.ok) {
    const error = `cannot copy ${path} out of the agent's container: ${read.error}`;
    return { error, side: "agent", missing: read.missing ?? false };
  }
  if (!copy.ok) {
    return {
      error: `cannot copy ${path} into the verifier's container: ${copy.error}`,
      side: "verifier",
      missing: false,
    };
  }
}

/** `head`, then every chunk of `rest`: one archive from our tests entries and the engine's stream. */
export function prepend(head: Uint8Array, rest: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
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

/** An archive read whole from the agent's box (with `head` first), or the stream to go on with past `maxBytes`. */
export type ArchiveBytes = { bytes: Uint8Array } | Pick<ArchiveRead, "stream" | "done" | "cancel"> | CopyFailure;

/**
 * Reads `path` of box `from` as one archive with `head` (an archive's start without its end blocks) first, into
 * memory while it stays within `maxBytes` (for a verifier that takes its inputs through a pipe, which needs the
 * length first); past that, the stream of the whole archive (`head` included), to be copied the usual way. With
 * `capMb` (default none) a read past that many MB of the agent's archive stops there, a `diskLimit` failure.
 */
export async function readFromAgent(
  from: Box,
  path: string,
  head: Uint8Array,
  maxBytes: number,
  capMb?: number,
): Promise<ArchiveBytes> {
  const out = from.getArchive(path, COPY_TIMEOUT_MS);
  const reader = out.stream.getReader();
  const chunks: Uint8Array[] = [head];
  let size = head.length;
  for (;;) {
    const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (next.done) break;
    chunks.push(next.value);
    size += next.value.length;
    if (capMb && size - head.length > capMb * MB) {
      reader.cancel().catch(() => {});
      out.cancel();
      out.done.catch(() => {});
      return overCap(path, capMb);
    }
    if (size > maxBytes) {
      const rest = new ReadableStream<Uint8Array>({
        start: (c) => chunks.forEach((b) => c.enqueue(b)),
        pull: async (c) => {
          const more = await reader.read();
          if (more.done) c.close();
          else c.enqueue(more.value);
        },
        cancel: (why) => reader.cancel(why),
      });
      return { stream: rest, done: out.done, cancel: out.cancel };
    }
  }
  const read = await out.done;
  if (!read.ok) {
    const error = `cannot copy ${path} out of the agent's container: ${read.error}`;
    return { error, side: "agent", missing: read.missing ?? false };
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const b of chunks) bytes.set(b, at), at += b.length;
  return { bytes };
}
