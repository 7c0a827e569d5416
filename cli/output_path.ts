/** Checks of a command's output path before any work: one line naming the flag or argument, exit 2. */
import { dirname, resolve } from "node:path";
import { UsageError } from "../lib/base/errors.ts";

async function kind(path: string): Promise<"file" | "folder" | "none"> {
  try {
    return (await Deno.stat(path)).isDirectory ? "folder" : "file";
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return "none";
    throw new UsageError(`${path}: ${(e as Error).message}`);
  }
}

async function parentExists(cmd: string, label: string, path: string): Promise<void> {
  const parent = dirname(resolve(path));
  if (await kind(parent) !== "folder") {
    throw new UsageError(`${cmd}: ${label} ${path}: the folder ${parent} does not exist`);
  }
}

/**
 * An output file (`label` names it: `--out`, `OUT.jsonl`): not a folder, in a folder that exists. What an existing
 * file means (replaced whole, appended to) is the command's to say.
 */
export async function checkOutputFile(cmd: string, label: string, path: string): Promise<"file" | "none"> {
  const k = await kind(path);
  if (k === "folder") throw new UsageError(`${cmd}: ${label} ${path} is a folder; give a file`);
  await parentExists(cmd, label, path);
  return k;
}

/** An output folder: not a file (its parents are created). */
export async function checkOutputFolder(cmd: string, label: string, path: string): Promise<"folder" | "none"> {
  const k = await kind(path);
  if (k === "file") throw new UsageError(`${cmd}: ${label} ${path} is a file; give a folder`);
  return k;
}
