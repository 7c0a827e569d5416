/**
 * Which working directory a task's episodes use, as Harbor decides it: task.toml's `[environment] workdir`, else the
 * image's WORKDIR when it sets one other than `/`, else `/workdir` (pgs's default, docs/spec-notes.md).
 */
import { posix } from "node:path";
import type { ImageStore } from "./images.ts";
import type { Task } from "../task/task.ts";

/** The working directory when neither task.toml nor the image names one. */
export const DEFAULT_WORKDIR = "/workdir";

/** The working directory from task.toml's value and the image's WORKDIR ("" or "/" count as unset). */
export function effectiveWorkdir(configured: string | undefined, imageWorkdir: string | undefined): string {
  if (configured) return configured;
  if (imageWorkdir && imageWorkdir !== "/") return posix.normalize(imageWorkdir);
  return DEFAULT_WORKDIR;
}

/** A separate verifier's folder: its configured workdir, else its image's WORKDIR, else `/` (Docker's default). */
export function effectiveWorkdirOrRoot(configured: string | undefined, imageWorkdir: string | undefined): string {
  return configured || (imageWorkdir ? posix.normalize(imageWorkdir) : "/");
}

/**
 * The WORKDIR a Dockerfile leaves in its final stage, read without building: a path when the file decides it, "" when
 * it sets none and its base is `scratch`, and undefined when only the base image (or a variable) can tell.
 */
export function dockerfileWorkdir(text: string): string | undefined {
  const stages = new Map<string, string | undefined>();
  let current: string | undefined = undefined;
  let alias: string | undefined;
  for (const line of instructions(text)) {
    const m = /^(\w+)\s+(.*)$/s.exec(line);
    if (!m) continue;
    const [op, rest] = [m[1].toUpperCase(), m[2].trim()];
    if (op === "FROM") {
      const words = rest.split(/\s+/).filter((w) => !w.startsWith("--"));
      const base = (words[0] ?? "").toLowerCase();
      current = stages.has(base) ? stages.get(base) : base === "scratch" ? "" : undefined;
      alias = words[1]?.toUpperCase() === "AS" && words[2] ? words[2].toLowerCase() : undefined;
    } else if (op === "WORKDIR") {
      const dir = rest.replace(/^["'](.*)["']$/, "$1");
      if (dir.includes("$")) current = undefined; // a build ARG or ENV: only the built image can tell
      else if (dir.startsWith("/")) current = posix.normalize(dir);
      else if (current !== undefined) current = posix.join(current || "/", dir);
    } else continue;
    if (alias !== undefined) stages.set(alias, current);
  }
  return current;
}

/** A Dockerfile's instructions, one string each: comments dropped and `\` continuations joined. */
function instructions(text: string): string[] {
  const out: string[] = [];
  let acc = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith("#") && acc === "") continue;
    if (line.endsWith("\\")) {
      acc += line.slice(0, -1) + " ";
      continue;
    }
    out.push((acc + line).trim());
    acc = "";
  }
  if (acc.trim()) out.push(acc.trim());
  return out.filter(Boolean);
}

/**
 * The working directory of `task`'s episodes. task.toml's value and a Dockerfile that decides it need no engine;
 * otherwise the image is resolved (inspected, or built once) through `store`.
 */
export async function taskWorkdir(task: Task, store?: () => ImageStore): Promise<string> {
  const configured = task.config.environment.workdir;
  if (configured) return configured;
  if (task.paths.dockerfile && task.config.environment.dockerImage === undefined) {
    const fromFile = dockerfileWorkdir(await Deno.readTextFile(task.paths.dockerfile));
    if (fromFile !== undefined) return effectiveWorkdir(undefined, fromFile);
  }
  if (!store) return DEFAULT_WORKDIR;
  return effectiveWorkdir(undefined, (await store().resolve(task)).workdir);
}
