/** The `pgs` command line: dispatch, help, version and error reporting. */
import denoJson from "../deno.json" with { type: "json" };
import { InfraError, TaskError, UsageError } from "../lib/base/errors.ts";
import { PolicyError } from "../lib/policies/policy.ts";
import type { Command } from "./args.ts";
import { installSignalCleanup } from "./signals.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { harborCheck } from "./harbor_check.ts";
import { harborAudit } from "./harbor_audit.ts";
import { harborRowsCommand } from "./harbor_rows.ts";
import { harborExport } from "./harbor_export.ts";
import { harborPodCommand } from "./harbor_pod.ts";
import { harnessProfiles, harnessShow } from "./harness_profiles.ts";
import { harnessServe } from "./harness_serve.ts";
import { harnessCapture } from "./harness_capture.ts";
import { harnessDiff } from "./harness_diff.ts";
import { harnessAdopt } from "./harness_adopt.ts";
import { evalCommand } from "./eval.ts";
import { envServe } from "./env_serve.ts";
import { exportAtifCommand, exportSftCommand } from "./export.ts";
import { viewCommand } from "./view.ts";
import { workerCommand } from "./worker.ts";

/** The version printed by `pgs --version`. */
export const VERSION: string = denoJson.version;

/** Every command, in help order. */
export const COMMANDS: Command[] = [
  harborCheck,
  harborAudit,
  harborRowsCommand,
  harborExport,
  harborPodCommand,
  harnessProfiles,
  harnessShow,
  harnessServe,
  harnessCapture,
  harnessDiff,
  harnessAdopt,
  evalCommand,
  exportAtifCommand,
  exportSftCommand,
  viewCommand,
  envServe,
  workerCommand,
];

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `pgs ${VERSION}: train and evaluate coding agents on Harbor tasks under real harness dialects`,
    "",
    "Usage: pgs COMMAND [options]      (pgs COMMAND --help for a command's options)",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Options:",
    "  -h, --help     this help",
    "  -V, --version  print the version",
    "",
    "Environment: DOCKER_HOST selects the Docker engine.",
  ].join("\n");
}

/** Runs the CLI on `argv`; returns the exit code (0 ok, 1 a failed check, 2 a usage error). */
export async function runCli(argv: string[]): Promise<number> {
  registerBuiltins(); // the CLI knows pgs's own profiles; a --profiles-module adds to them
  let running = "";
  try {
    if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
      console.log(help());
      return argv.length === 0 ? 2 : 0;
    }
    if (argv[0] === "--version" || argv[0] === "-V") return console.log(`pgs ${VERSION}`), 0;
    for (const cmd of COMMANDS) {
      const words = cmd.name.split(" ");
      if (words.every((w, i) => argv[i] === w)) {
        // Signals are the process's: the CLI takes them (never the library), unless the command handles its own.
        if (!cmd.ownSignals) installSignalCleanup();
        running = `${cmd.name}: `;
        return await cmd.run(argv.slice(words.length));
      }
    }
    const group = COMMANDS.filter((c) => c.name.startsWith(`${argv[0]} `));
    if (group.length && (argv.length === 1 || argv[1].startsWith("-"))) {
      console.log(group.map((c) => c.usage.split("\n")[0]).join("\n"));
      return argv.length === 1 ? 2 : 0;
    }
    throw new UsageError(`unknown command: ${argv.slice(0, 2).join(" ")} (see pgs --help)`);
  } catch (e) {
    // One line, whatever the message quotes (a file's text with its newlines).
    const line = (msg: string) => msg.trim().replace(/\s*\n\s*/g, " ");
    if (e instanceof UsageError) {
      console.error(`pgs: ${line(e.message)}`);
      return 2;
    }
    if (e instanceof TaskError || e instanceof InfraError || e instanceof PolicyError) {
      console.error(`pgs: ${line(e.message)}`);
      return e instanceof TaskError ? 2 : 1;
    }
    // Anything else is a failure no check foresaw: still one line (the trace with PGS_DEBUG=1), exit 1.
    if (Deno.env.get("PGS_DEBUG")) throw e;
    const what = e instanceof Error ? `${e.name}: ${e.message.split("\n")[0]}` : line(String(e));
    console.error(`pgs: ${running}${what} (PGS_DEBUG=1 shows where)`);
    return 1;
  }
}
