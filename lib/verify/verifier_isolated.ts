/**
 * The isolated verifier (docs/spec-notes.md): the agent's working directory copied into a clean container from the
 * pristine image (made while the episode started), together with tests/ in the same archive. The container is tied
 * to a pipe: the archive, the script and the results go through it (`verifier_tied.ts`); an image without GNU tar
 * and head, a non-root verifier user, or a working directory past 16 MiB take the copy (`cp`) and exec path instead.
 */
import { COPY_TIMEOUT_MS, copyArchive, type CopyFailure, readFromAgent } from "./container_copy.ts";
import { inVerifierBox, scriptInput, type Verification, type VerifyResult } from "./verification.ts";
import { createVerifier, type ScriptPlan, STAGE_DIR, testsArchivePrefix } from "./verifier_container.ts";
import { tiedExact } from "./verifier_tied.ts";
import { diskBoundReached } from "./disk_room.ts";
import { isRootUser } from "../runtime/users.ts";

/**
 * The largest working directory that goes through the verifier's pipe in one piece: it is held in memory (its
 * length goes first), so this bounds what each verification holds, whatever the working directory holds.
 */
const TIED_MAX_BYTES = 16 << 20;
const enc = new TextEncoder();

/** Verifies `v`'s episode in a clean container holding only a copy of its working directory. */
export async function verifyIsolated(v: Verification, finalMessage: string): Promise<VerifyResult> {
  const box = v.box;
  const task = box.task;
  // Taken before anything can fail, so that the container is removed on every path.
  const pending = v.verifier.take() ??
    createVerifier(box.store, task, box.image.ref, box.storageDefault, v.opts.step);
  return await inVerifierBox(v, pending, async (vbox, capture) => {
    const t1 = performance.now();
    const full = await diskBoundReached(box);
    if (full) return v.fail(full, { disk_limit: 1 });
    const head = await testsArchivePrefix(task, v.opts.step);
    const user = v.cfg.user ?? "";
    const plan: ScriptPlan = {
      cwd: box.workdir,
      capture: Boolean(v.cfg.capture),
      stage: STAGE_DIR,
      tests: { to: "/tests", fresh: false },
      workdir: box.workdir,
      // Only the copy is the agent's here: its links into the inputs, and its FIFOs and devices, are neutralised.
      guard: { links: [box.workdir], specials: [box.workdir] },
    };
    // A copy past the episode's disk bound ends the verification as the policy's doing (disk_limit), not a retry.
    const cap = box.storageMb || undefined;
    const failed = (f: CopyFailure) => f.diskLimit ? v.fail(f.error, { disk_limit: 1 }) : v.copyFailed(f);
    if (tiedExact(vbox.box) && isRootUser(user)) {
      const read = await readFromAgent(box.box, box.workdir, head, TIED_MAX_BYTES, cap);
      if ("error" in read) return await failed(read);
      if ("bytes" in read) {
        v.timings.copy = performance.now() - t1;
        if (v.opts.final) box.releaseAgent(); // the tests have all they need of it
        const input = tiedInput(read.bytes, finalMessage, capture);
        return await v.run(vbox.box, { ...plan, tied: true }, input, user, v.cfg.env);
      }
      const copied = await copyArchive(read, box.workdir, vbox.box, STAGE_DIR, undefined, cap, head.length);
      if (copied) return await failed(copied);
    } else {
      const copied = await copyArchive(
        box.box.getArchive(box.workdir, COPY_TIMEOUT_MS),
        box.workdir,
        vbox.box,
        STAGE_DIR,
        head,
        cap,
      );
      if (copied) return await failed(copied);
    }
    v.timings.copy = performance.now() - t1;
    return await v.run(vbox.box, plan, scriptInput(finalMessage, capture), user, v.cfg.env);
  });
}

/** A tied verifier's stdin: the stage archive, the final message and capture.json, each as `N\n` + N bytes. */
function tiedInput(archive: Uint8Array, finalMessage: string, capture: Uint8Array): Uint8Array {
  const msg = enc.encode(finalMessage);
  const parts = [enc.encode(`${archive.length}\n`), archive, enc.encode(`${msg.length}\n`), msg];
  parts.push(enc.encode(`${capture.length}\n`), capture);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), at += p.length;
  return out;
}
