/**
 * A podman container as a `Box`: Docker's, except for the copies. `podman cp -` chowns what it extracts to the box's
 * user unless told `--archive=false`, and `podman cp CONTAINER:PATH -` writes every owner as 0/0; so a tree is read
 * with the box's own `tar` (as root), its stream checked on the host (`tarGuard`: the box may have replaced `tar`),
 * and `podman cp` is the fallback when that `tar` cannot run (none in the image, the box stopped, no free pid).
 */
import { posix } from "node:path";
import { DockerBox } from "../docker/mod.ts";
import type { ArchiveRead, Done } from "../runtime.ts";
import { tarGuard } from "./tar_guard.ts";

type ReadDone = Done & { missing?: boolean };

/**
 * `podman cp` on a box that just stopped can race podman's own cleanup, which unmounts the box's root under it
 * ("changing to intended-new-root directory ...: no such file or directory"); the copy is tried again then.
 */
const CLEANUP_RACE = /intended-new-root directory .*no such file or directory/;
const RACE_TRIES = 4;
const RACE_PAUSE_MS = 250;
const pause = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** A container of a podman engine. */
export class PodmanBox extends DockerBox {
  /** `cp --archive=false - ID:PARENT`: the archive's owners and modes are kept. */
  override async putArchive(
    parent: string,
    archive: Uint8Array | ReadableStream<Uint8Array>,
    timeoutMs?: number,
  ): Promise<Done> {
    // A stream can be fed once: only bytes are copied again after the cleanup race.
    const tries = archive instanceof Uint8Array ? RACE_TRIES : 1;
    for (let i = 1;; i++) {
      const r = await this.runtime.call(["cp", "--archive=false", "-", `${this.id}:${parent}`], {
        stdin: archive,
        timeoutMs,
      });
      if (r.code === 0) return { ok: true };
      if (i < tries && CLEANUP_RACE.test(r.stderr)) {
        await pause(RACE_PAUSE_MS);
        continue;
      }
      return { ok: false, error: r.stderr || `podman cp exited ${r.code}` };
    }
  }

  /** `podman cp ID:PATH -`, tried again when it lost the race with podman's cleanup before writing anything. */
  async #engineRead(path: string, timeoutMs?: number): Promise<ArchiveRead> {
    for (let i = 1;; i++) {
      const read = super.getArchive(path, timeoutMs);
      const reader = read.stream.getReader();
      const first = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (first.done) {
        const d = await read.done;
        if (!d.ok && i < RACE_TRIES && CLEANUP_RACE.test(d.error)) {
          await pause(RACE_PAUSE_MS);
          continue;
        }
      }
      const stream = new ReadableStream<Uint8Array>({
        start: (c) => {
          if (first.done) c.close();
          else c.enqueue(first.value);
        },
        pull: async (c) => {
          const next = await reader.read();
          if (next.done) c.close();
          else c.enqueue(next.value);
        },
        cancel: () => reader.cancel(),
      });
      return { stream, done: read.done, cancel: read.cancel };
    }
  }

  /** The box's `tar -cf - -C PARENT BASE` (owners kept), checked; `podman cp ID:PATH -` when that tar cannot run. */
  override getArchive(path: string, timeoutMs?: number): ArchiveRead {
    const clean = posix.normalize(path).replace(/(.)\/+$/, "$1");
    const base = posix.basename(clean);
    if (!base || base === "/" || base === "." || base === ".." || base.startsWith("-")) {
      return super.getArchive(path, timeoutMs);
    }
    const tar = this.runtime.spawn(["exec", "-u", "0", this.id, "tar", "-cf", "-", "-C", posix.dirname(clean), base], {
      timeoutMs,
    });
    const stderr = new Response(tar.stderr).text();
    const reader = tar.stdout.getReader();
    let settle!: (d: ReadDone) => void;
    const done = new Promise<ReadDone>((ok) => settle = ok);
    let fallback: ArchiveRead | undefined;
    let cancelled = false;
    const kill = () => {
      try {
        tar.kill("SIGKILL");
      } catch { /* gone */ }
    };
    const outcome = async (guardError?: string): Promise<ReadDone> => {
      const [status, err] = await Promise.all([tar.status, stderr]);
      if (guardError) {
        return { ok: false, error: `the container's tar wrote an archive that cannot be copied: ${guardError}` };
      }
      // GNU tar: 1 is "a file changed as we read it" (the archive is whole), 2 a fatal error such as a missing path.
      if (status.code === 0 || status.code === 1) return { ok: true };
      const error = err.trim() || `tar exited ${status.code}`;
      return { ok: false, error, missing: /no such file|cannot stat|can't stat/i.test(err) };
    };
    /** Decides on the first read: the checked tar stream, or (no archive came) the engine's own copy. */
    const open = async (): Promise<{ src: ReadableStreamDefaultReader<Uint8Array>; guarded: boolean }> => {
      const first = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (first.done) {
        if ((await tar.status).success) {
          settle({ ok: true });
          return { src: new ReadableStream<Uint8Array>({ start: (c) => c.close() }).getReader(), guarded: false };
        }
        // tar could not run here; `podman cp` can (on a stopped box too), with every owner 0/0.
        fallback = await this.#engineRead(path, timeoutMs);
        fallback.done.then(settle);
        if (cancelled) fallback.cancel();
        return { src: fallback.stream.getReader(), guarded: false };
      }
      const whole = new ReadableStream<Uint8Array>({
        start: (c) => c.enqueue(first.value),
        pull: async (c) => {
          const next = await reader.read();
          if (next.done) c.close();
          else c.enqueue(next.value);
        },
        cancel: () => reader.cancel(),
      });
      // Settled once tar has exited and the checked stream reached its end block (a reader may stop there), ended,
      // or failed the check.
      Promise.all([tar.status, checkedUpTo]).then(([, why]) => outcome(why)).then(settle);
      return { src: whole.pipeThrough(tarGuard(base, () => checkEnd())).getReader(), guarded: true };
    };
    let checkEnd!: (why?: string) => void;
    const checkedUpTo = new Promise<string | undefined>((ok) => checkEnd = ok);
    let opened: Promise<{ src: ReadableStreamDefaultReader<Uint8Array>; guarded: boolean }> | undefined;
    const stream = new ReadableStream<Uint8Array>({
      async pull(c) {
        const { src, guarded } = await (opened ??= open());
        try {
          const { done: end, value } = await src.read();
          if (!end) return c.enqueue(value);
          if (guarded) checkEnd();
          c.close();
        } catch (e) {
          if (!guarded) return c.error(e);
          const why = (e as Error).message;
          kill();
          checkEnd(why);
          c.error(new Error(why));
        }
      },
      // The reader went away (its side failed): the archive is still read to its end, unseen, so that `done` says
      // what the box gave, not that the reader left (an engine's own `cp` writes on into its pipe the same way).
      async cancel() {
        const { src, guarded } = await (opened ??= open());
        try {
          while (!(await src.read()).done) { /* discarded */ }
          if (guarded) checkEnd();
        } catch (e) {
          if (!guarded) return;
          kill();
          checkEnd((e as Error).message);
        }
      },
    });
    return {
      stream,
      done,
      cancel: () => {
        cancelled = true;
        fallback?.cancel();
        kill();
        outcome().then(settle);
      },
    };
  }
}
