/**
 * A box tied to a pipe (`BoxSpec.pipe`) on a docker-like engine: `run -i --rm --cidfile F ...` spawned and held, the
 * box ready once its main process printed its ready line. The CLI writes the box's id into F as soon as it created
 * it, so a start that fails after the create still finds (and removes) what it made.
 */
import { ByteReader } from "../../base/byte_reader.ts";
import { type BoxPipe, BoxStartError } from "../runtime.ts";
import { type DockerCli, lastWords } from "./cli.ts";

/** How long a tied box may take to print its ready line (as long as a `run -d` may take). */
const READY_MS = 120_000;

/** A started tied box: its id and its pipe. */
export interface PipedStart {
  /** The engine's id of the box. */
  id: string;
  /** The main process's pipe, past the ready line. */
  pipe: BoxPipe;
}

/** Why a tied box did not start: the CLI's last line, and the id of what it created (to be removed), if any. */
export interface PipedFailure {
  /** The box's id when the engine created it. */
  id?: string;
  /** The CLI's whole stderr. */
  stderr: string;
  /** True when no ready line came within the bound. */
  timedOut: boolean;
}

/**
 * Spawns `argv` (a `run -i --rm ...` whose main process first prints a line starting with `ready`) on `cli`; resolves with the box, or
 * with the failure once the CLI is killed (the caller removes the created box and raises).
 */
export async function launchPiped(
  cli: DockerCli,
  argv: string[],
  ready: string,
  removedWithPipe: boolean,
): Promise<PipedStart | PipedFailure> {
  // The CLI refuses a cidfile that exists: a fresh folder per box, removed once read.
  const dir = await Deno.makeTempDir({ prefix: "pgs-cid-" });
  const cidfile = `${dir}/id`;
  const child = cli.spawn([argv[0], "--cidfile", cidfile, ...argv.slice(1)], { stdin: true });
  // Drained all along: a CLI blocked on a full stderr pipe would never print the ready line.
  const stderr = new Response(child.stderr).text().catch(() => "");
  const reader = new ByteReader(child.stdout.getReader());
  const first = await reader.readLineWithin(READY_MS);
  const id = (await Deno.readTextFile(cidfile).catch(() => "")).trim();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  if (first?.startsWith(ready) && id) {
    const writer = child.stdin.getWriter();
    // An idle box must not keep a library user's process alive (it would never exit on its own); a request does.
    child.unref();
    let holds = 0;
    const hold = () => {
      if (holds++ === 0) child.ref();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--holds === 0) child.unref();
      };
    };
    return { id, pipe: { hello: first, busy: false, removedWithPipe, reader, writer, status: child.status, hold } };
  }
  try {
    child.kill("SIGKILL");
  } catch { /* gone */ }
  await child.status.catch(() => {});
  return { id: id || undefined, stderr: (await stderr).trim(), timedOut: first === null };
}

/** True when a `launchPiped` result is its failure. */
export function pipedFailed(r: PipedStart | PipedFailure): r is PipedFailure {
  return !("pipe" in r);
}

/** The start error of a failed tied box, in the CLI's last words. */
export function pipedStartError(binary: string, f: PipedFailure, stage: string): BoxStartError {
  const last = lastWords(f.stderr);
  const why = f.timedOut && !last
    ? `printed nothing within ${READY_MS} ms`
    : `failed: ${last ?? "the box ended at once"}`;
  return new BoxStartError(`${binary} run ${why}`, stage, f.stderr);
}
