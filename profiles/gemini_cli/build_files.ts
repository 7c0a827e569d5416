/**
 * gemini-cli 0.61.0's Build File Protection (`npm:@google/gemini-cli@0.61.0:bundle/chunk-JDPZ4CE3.js`,
 * buildFileUtils.js and PolicyEngine.check): in a non-interactive run, even with --yolo, write_file and replace on a
 * build configuration file are denied by policy (the shell may still write them). The file is known by the basename of
 * its real path. Recorded: tests/golden/gemini-cli/replay_build_files.json (0.60.0 had no such rule:
 * tests/golden/gemini-cli@0.60.0/replay_build_files.json).
 */
import { posix } from "node:path";
import type { Session } from "../../lib/harness/types.ts";
import { probe } from "./fs.ts";
import { type Args, str } from "./tool.ts";

const EXACT = new Set([
  "BUILD",
  "BUILD.bazel",
  "WORKSPACE",
  "WORKSPACE.bazel",
  "MODULE.bazel",
  ".bazelrc",
  ".blazerc",
  "Makefile",
  "makefile",
  "GNUmakefile",
  "CMakeLists.txt",
  "package.json",
  "package-lock.json",
  "pnpm-lock.yaml",
  "yarn.lock",
  "bun.lockb",
  "setup.py",
  "setup.cfg",
  "pyproject.toml",
  "go.mod",
  "go.sum",
  "Cargo.toml",
  "Cargo.lock",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "settings.gradle",
  "settings.gradle.kts",
  "Dockerfile",
  "Containerfile",
]);
const EXTENSIONS = new Set([".bzl", ".bazel", ".bzlmod", ".mk", ".cmake"]);

/** The error a denied call gets (recorded). */
const BUILD_FILE_DENIED =
  "Tool execution denied by policy. Modifying build configuration files requires explicit user confirmation";

/** isBuildFile on a basename. */
export function isBuildFile(base: string): boolean {
  if (EXACT.has(base) || base.startsWith("Dockerfile.") || base.startsWith("Containerfile.")) return true;
  return EXTENSIONS.has(posix.extname(base).toLowerCase());
}

/** The policy check of a file-editing call: the denial when its `file_path` is a build file, else null. */
export async function buildFilePolicy(s: Session, a: Args): Promise<string | null> {
  const target = str(a.file_path).trim().replace(/\0/g, "");
  if (!target) return null;
  const real = (await probe(s, posix.resolve(s.workdir, target))).real;
  return isBuildFile(posix.basename(real)) ? BUILD_FILE_DENIED : null;
}
