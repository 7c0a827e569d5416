/**
 * Copies from the agent's box into a verifier's, streamed box to box (the one's `getArchive` into the other's
 * `putArchive`: for Docker `docker cp SRC -` into `docker cp - DST`), each side bounded; a failure says which side
 * failed, since reading the agent's box can fail by the agent's doing while writing the verifier's is the machinery's.
 */
import type { Box } from "./runtime.ts";

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
  const out = from.getArchive(path, COPY_TIMEOUT_MS);
  const stdin = head ? prepend(head, out.stream) : out.stream;
  const [copy, read] = await Promise.all([to.putArchive(into, stdin, COPY_TIMEOUT_MS), out.done]);
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
