/**
 * Finds a Hugging Face hub id in the local HF cache (`$HF_HUB_CACHE`, `$HF_HOME/hub`, `~/.cache/huggingface/hub`),
 * the layout `huggingface_hub` writes: `models--org--name/refs/main` names a folder under `snapshots/`. Nothing is
 * ever downloaded.
 */
import { join } from "node:path";

/** The cache folders searched, in order. */
export function hubCacheDirs(env: (k: string) => string | undefined = (k) => Deno.env.get(k)): string[] {
  const dirs: string[] = [];
  const hub = env("HF_HUB_CACHE") ?? env("HUGGINGFACE_HUB_CACHE");
  if (hub) dirs.push(hub);
  const home = env("HF_HOME");
  if (home) dirs.push(join(home, "hub"));
  const user = env("HOME");
  if (user) dirs.push(join(user, ".cache", "huggingface", "hub"));
  return [...new Set(dirs)];
}

/** The snapshot folder of `id` (`org/name`, optionally `@revision`), or undefined when no cache holds it. */
export async function findInHubCache(id: string, dirs = hubCacheDirs()): Promise<string | undefined> {
  const [repo, revision = "main"] = id.split("@");
  const folder = `models--${repo.split("/").join("--")}`;
  for (const dir of dirs) {
    const base = join(dir, folder);
    let snapshot = revision;
    try {
      snapshot = (await Deno.readTextFile(join(base, "refs", revision))).trim();
    } catch { /* a revision given as a commit hash names the snapshot itself */ }
    const path = join(base, "snapshots", snapshot);
    try {
      if ((await Deno.stat(path)).isDirectory) return path;
    } catch { /* not in this cache */ }
  }
  return undefined;
}
