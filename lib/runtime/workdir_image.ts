/**
 * Episode images with the task's starting state already in them: the task image plus one layer holding
 * `environment/workdir/` exactly as staging would write it (same tar, same owner and modes) and Harbor's
 * `/logs/agent` and `/logs/artifacts`, owned by the agent's user. Made once per engine and content (the runtime's
 * `commitArchive`: `docker create` + `cp` + `commit`), so an episode starts with one start instead of a start and a copy. The
 * verifier still starts from the task image itself, which never holds the workdir.
 */
import { isRootUser } from "./users.ts";
import { createHash } from "node:crypto";
import { posix } from "node:path";
import type { ImageFacts, Runtime } from "./runtime.ts";
import { InfraError } from "../base/errors.ts";
import { tarArchive, type TarEntry, treeEntries } from "../base/tar.ts";

/** Where the working directory goes and who owns it. */
export interface WorkdirLayer {
  /** Host directory copied in (the task's `environment/workdir/`); none: only the `/logs` folders. */
  hostDir?: string;
  /** Absolute path in the container. */
  dest: string;
  /** Owner of every copied entry. */
  uid: number;
  /** Group of every copied entry. */
  gid: number;
}

/** The owner of an image's USER when it can be known without running the image: root or a numeric `uid:gid`. */
export function staticOwner(user: string): { uid: number; gid: number } | undefined {
  if (isRootUser(user)) return { uid: 0, gid: 0 };
  const m = user.match(/^(\d+):(\d+)$/);
  return m ? { uid: Number(m[1]), gid: Number(m[2]) } : undefined;
}

/**
 * A tag naming the layer's content: every entry's name, type, mode, owner and bytes, over the base image's id. Times
 * are left out: the files carry the time the layer was made, as staged files carried the episode's start.
 */
export function workdirTag(baseId: string, entries: TarEntry[]): string {
  const h = createHash("sha256").update(`${baseId}\0`);
  for (const e of entries) {
    h.update(
      `${e.type} ${e.name} ${e.mode.toString(8)} ${e.uid}:${e.gid} ${e.linkname ?? ""} ${e.data?.length ?? 0}\0`,
    );
    if (e.data) h.update(e.data);
  }
  return `pgs-work:${h.digest("hex").slice(0, 16)}`;
}

/**
 * The folders Harbor mounts into the agent's container, `/logs/agent`, `/logs/artifacts` and `/logs/verifier`: owned
 * by the agent's user and, as Harbor makes them, writable by every user (a service the agent starts may run as
 * another); `/logs` itself is root's. Whatever the agent leaves in `/logs/verifier` is wiped before the tests run.
 */
export function logsEntries(uid: number, gid: number): TarEntry[] {
  return [
    { name: "logs", type: "dir", mode: 0o755, uid: 0, gid: 0 },
    { name: "logs/agent", type: "dir", mode: 0o777, uid, gid },
    { name: "logs/artifacts", type: "dir", mode: 0o777, uid, gid },
    { name: "logs/verifier", type: "dir", mode: 0o777, uid, gid },
  ];
}

/**
 * The layer's archive members, named from `/`: the `/logs` folders, then the working directory (its parents are
 * made by the engine's extraction when missing and left as they are when present).
 */
export async function layerEntries(layer: WorkdirLayer): Promise<TarEntry[]> {
  const entries = logsEntries(layer.uid, layer.gid);
  if (layer.hostDir) {
    entries.push(...await treeEntries(layer.hostDir, layer.dest.replace(/^\/+/, ""), layer.uid, layer.gid));
  }
  return entries;
}

/** True when `a` and `b` are the same path or one holds the other. */
function overlaps(a: string, b: string): boolean {
  const [x, y] = [posix.resolve(a), posix.resolve(b)];
  return x === y || x.startsWith(y === "/" ? "/" : `${y}/`) || y.startsWith(x === "/" ? "/" : `${x}/`);
}

/**
 * Makes (or finds) the image `base` + the working directory; returns its tag, or undefined when the image declares a
 * VOLUME over the working directory (a commit leaves volumes out, so the tree must be staged into each container).
 */
export async function buildWorkdirImage(
  runtime: Runtime,
  base: string,
  layer: WorkdirLayer,
  taskName: string,
  inspect: (ref: string) => Promise<ImageFacts | undefined> = (ref) => runtime.inspectImage(ref),
): Promise<string | undefined> {
  const facts = await inspect(base);
  if (!facts) throw new InfraError(`${taskName}: cannot inspect image ${base}`, "image");
  if (facts.volumes.some((v) => (layer.hostDir && overlaps(v, layer.dest)) || overlaps(v, "/logs"))) return undefined;
  const entries = await layerEntries(layer);
  const tag = workdirTag(facts.id, entries);
  if (await runtime.inspectImage(tag)) return tag;
  const made = await runtime.commitArchive(base, tarArchive(entries), tag, taskName);
  if (!made.ok) throw new InfraError(`${taskName}: ${made.error}`, "image");
  return tag;
}
