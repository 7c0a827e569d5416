/** Finds a harness binary: an explicit `--bin` path, else the first match on PATH. */
import { resolve } from "node:path";

async function isFile(p: string): Promise<boolean> {
  try {
    return (await Deno.stat(p)).isFile;
  } catch {
    return false;
  }
}

/** The binary's absolute path (the harness runs in another directory), or null when it is missing. `PATH` defaults to
 * the process's. */
export async function findBinary(name: string, explicit?: string, path = Deno.env.get("PATH") ?? ""): Promise<
  string | null
> {
  if (explicit !== undefined) return await isFile(explicit) ? resolve(explicit) : null;
  for (const dir of path.split(":").filter(Boolean)) {
    if (await isFile(`${dir}/${name}`)) return resolve(dir, name);
  }
  return null;
}
