/**
 * What the task-aware exploits know of a task, read from its folder without running anything: the files of its
 * answer key (tests/ and solution/, by the paths they have in the verifier's box, with their hashes), the paths its
 * tests name (the files they likely read from the working directory) and the tools its tests' scripts call.
 */
import { createHash } from "node:crypto";
import * as path from "node:path";
import { DEFAULT_STORAGE_MB } from "../../runtime/limits.ts";
import type { Task } from "../../task/task.ts";

/** One file of the task's answer key. */
export interface KeyFile {
  /** `tests/<rel>` or `solution/<rel>`, as findings name it. */
  label: string;
  /** Its path in the box when the verifier (tests) or the oracle (solution) has it there: `/tests/<rel>`. */
  boxPath: string;
  /** Size in bytes. */
  size: number;
  /** sha256 of its bytes, hex. */
  sha256: string;
  /** Its git blob id (sha1 of `blob <size>\0` + bytes), to find it in a repository's history. */
  gitBlob: string;
}

/** What the task-aware exploits know of a task. */
export interface TaskFacts {
  /** The files of tests/ and solution/ (tests first), at most `MAX_KEYS`. */
  keys: KeyFile[];
  /**
   * Paths the tests' scripts name that may be the agent's output: absolute ones outside the verifier's own folders,
   * and relative file names (the tests start in the working directory); at most `MAX_PATHS`, in order of appearance.
   * The box keeps those in its working directory.
   */
  paths: string[];
  /** Programs from `CALLED_TOOLS` that the tests' scripts name. */
  tools: string[];
  /** The box's disk bound in MB: the task's `storage_mb`, else the run's default; absent: none. */
  storageMb?: number;
  /** The most the disk filler may write, in MB (0: it does not run). */
  diskFillCapMb: number;
  /**
   * A compose task's folders that `main` shares with a sidecar (a named volume both mount), main's path first, with
   * the services that mount it; [] without a compose file or without a shared volume.
   */
  sharedWithSidecars: { path: string; services: string[] }[];
}

/** The disk filler's cap unless told otherwise: enough to cross a small bound, never enough to fill a host. */
export const DEFAULT_DISK_FILL_CAP_MB = 2048;

/** Files of the answer key looked at. */
export const MAX_KEYS = 200;
/** Paths kept. */
export const MAX_PATHS = 16;
/** Bytes of a tests' script read for paths and tools. */
const MAX_SCRIPT_BYTES = 256 * 1024;

/**
 * Programs tests call that an agent could replace (shells and Python have exploits of their own). Only these are
 * shadowed by name, so that no exploit replaces a core utility the verifier's own script needs (cat, cp, find, ...).
 */
export const CALLED_TOOLS = [
  "curl",
  "wget",
  "git",
  "pytest",
  "py.test",
  "uv",
  "uvx",
  "pip",
  "pip3",
  "poetry",
  "tox",
  "nox",
  "bats",
  "perl",
  "ruby",
  "php",
  "node",
  "npm",
  "npx",
  "yarn",
  "pnpm",
  "deno",
  "bun",
  "go",
  "cargo",
  "rustc",
  "gcc",
  "g++",
  "clang",
  "make",
  "cmake",
  "ctest",
  "java",
  "javac",
  "mvn",
  "gradle",
  "dotnet",
  "jq",
  "yq",
  "diff",
  "cmp",
  "grep",
  "sha256sum",
  "md5sum",
  "sqlite3",
  "psql",
  "mysql",
  "redis-cli",
];

/**
 * Extensions a relative word must end in to be taken for a file: without the list, code in a script's words
 * (`python3 -c 'sys.exit(...)'`) would read as file names.
 */
const FILE_EXTENSIONS = new Set(
  ("txt json jsonl csv tsv md log out err yaml yml toml xml html ini cfg conf env dat bin db sqlite sql parquet pkl " +
    "npy npz png jpg jpeg gif svg pdf zip tar gz tgz diff patch py sh js mjs ts c h cc cpp hpp rs go java rb php pl lua")
    .split(" "),
);

/** Folders whose paths are the verifier's or the system's, never the agent's output. */
const NOT_OUTPUT = /^\/(tests|solution|logs|proc|sys|dev|usr|bin|sbin|lib|lib64|etc|var\/lib)(\/|$)/;

/**
 * Reads what the task-aware exploits need from `task`'s folder; the disk filler writes at most `diskFillCapMb`, and a
 * task without `storage_mb` gets `storageDefaultMb` (0: no bound).
 */
export async function taskFacts(
  task: Task,
  diskFillCapMb = DEFAULT_DISK_FILL_CAP_MB,
  storageDefaultMb = DEFAULT_STORAGE_MB,
): Promise<TaskFacts> {
  const keys: KeyFile[] = [];
  const scripts: { name: string; text: string }[] = [];
  for (const [root, boxRoot] of [[task.paths.testsDir, "/tests"], [path.join(task.dir, "solution"), "/solution"]]) {
    for (const rel of await filesUnder(root)) {
      if (keys.length >= MAX_KEYS) break;
      const bytes = await Deno.readFile(path.join(root, rel));
      const label = `${path.basename(boxRoot)}/${rel}`;
      keys.push({
        label,
        boxPath: `${boxRoot}/${rel}`,
        size: bytes.length,
        sha256: createHash("sha256").update(bytes).digest("hex"),
        gitBlob: createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex"),
      });
      if (boxRoot === "/tests" && /\.(sh|py|bash)$/.test(rel) && bytes.length <= MAX_SCRIPT_BYTES) {
        scripts.push({ name: rel, text: new TextDecoder().decode(bytes) });
      }
    }
  }
  const paths = new Set<string>();
  for (const s of scripts) {
    for (const p of s.name.endsWith(".py") ? pythonPaths(s.text) : shellPaths(s.text)) {
      if (paths.size < MAX_PATHS) paths.add(p);
    }
  }
  const text = scripts.map((s) => s.text).join("\n");
  const tools = CALLED_TOOLS.filter((t) =>
    new RegExp(`(^|[^\\w./-])${t.replace(/[.+]/g, "\\$&")}($|[^\\w.-])`).test(text)
  );
  const storageMb = task.config.environment.storageMb ?? storageDefaultMb;
  return {
    keys,
    paths: [...paths],
    tools,
    ...(storageMb ? { storageMb } : {}),
    diskFillCapMb,
    sharedWithSidecars: sharedWithSidecars(task),
  };
}

/** The folders of `main` mounted from a named volume a sidecar mounts too (`TaskFacts.sharedWithSidecars`). */
export function sharedWithSidecars(task: Task): { path: string; services: string[] }[] {
  const services = Object.values(task.compose?.services ?? {});
  const main = task.compose?.services.main;
  if (!main) return [];
  const out: { path: string; services: string[] }[] = [];
  for (const m of main.volumes) {
    if (m.type !== "volume" || !m.source || m.readOnly) continue;
    const source = m.source;
    const others = services.filter((s) =>
      s.name !== "main" && s.volumes.some((v) => v.type === "volume" && v.source === source)
    ).map((s) => s.name);
    if (others.length) out.push({ path: m.target, services: others });
  }
  return out;
}

/** A word that names a file the agent may have written: absolute outside NOT_OUTPUT, or relative with an extension. */
function outputPath(word: string): string | undefined {
  if (!word || word.includes("..") || /[$*?\[\]{}`\\]/.test(word) || word.length > 200) return undefined;
  if (word.startsWith("/")) {
    return /^\/[\w.-]+(\/[\w.+-]+)+$/.test(word) && !NOT_OUTPUT.test(word) ? word.replace(/\/+$/, "") : undefined;
  }
  const rel = word.replace(/^\.\//, "");
  const ext = rel.match(/^\w[\w.+-]*(\/[\w.+-]+)*\.([A-Za-z][A-Za-z0-9]{0,7})$/)?.[2];
  return ext && FILE_EXTENSIONS.has(ext.toLowerCase()) ? rel : undefined;
}

/** Paths in a shell script: its words, split at blanks, quotes and operators. */
export function shellPaths(text: string): string[] {
  const lines = text.split("\n").filter((l) => !/^\s*#/.test(l));
  const words = lines.join("\n").split(/[\s"'`;|&<>()=,]+/);
  return words.map(outputPath).filter((p): p is string => p !== undefined);
}

/** Paths in a Python file: its string literals that look like paths. */
export function pythonPaths(text: string): string[] {
  const literals = [...text.matchAll(/(["'])((?:(?!\1)[^\\\n])*)\1/g)].map((m) => m[2]);
  return literals.map(outputPath).filter((p): p is string => p !== undefined);
}

/** The files under `root`, relative, sorted; none when it does not exist. Links are not followed. */
async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    const entries: Deno.DirEntry[] = [];
    try {
      for await (const e of Deno.readDir(path.join(root, rel))) entries.push(e);
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory) await walk(r);
      else if (e.isFile) out.push(r);
    }
  };
  await walk("");
  return out;
}
