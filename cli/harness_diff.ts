/** `pgs harness diff --profile NAME --recording DIR [--task DIR] [--json]`: a recording vs its profile, replayed. */
import { resolve } from "node:path";
import { compareRecording } from "../lib/conformance/compare.ts";
import { loadRecording, recoverScript, taskFromArgv } from "../lib/conformance/load_recording.ts";
import { replayOnTask } from "../lib/conformance/replay.ts";
import { formatReport } from "../lib/conformance/report.ts";
import { createRuntime } from "../lib/runtime/registry.ts";
import { UsageError } from "../lib/base/errors.ts";
import { getProfile, resolveProfileName } from "../lib/harness/registry.ts";
import type { HarnessProfile } from "../lib/harness/types.ts";
import { type Command, parseFlags } from "./args.ts";

const usage = `Usage: pgs harness diff --profile NAME[@VERSION] --recording DIR [--task DIR] [--cwd PATH] [--json]

Replays a recording's script (recovered from requests.jsonl: each request echoes the stub's previous answer) through
the profile on the task in a real container, and compares request by request: tool names, order and parameter
schemas, the user message's shape and text, each tool result and error string, the echoed assistant turns' content
shape, and where the episode ends. Working directories, tool-call ids and dates are normalised; the system prompt and
long tool descriptions are reported as paraphrased. Exits 1 on any difference, 0 when none.

Options:
  --profile NAME    the profile (required)
  --recording DIR   the capture directory holding requests.jsonl (required)
  --task DIR        the task (default: the --task in the recording's command.json)
  --cwd PATH        the recording's working directory (default: from command.json or the system prompt); paths
                    under it in the replayed calls are pointed at the container's working directory
  --json            machine-readable report
  -h, --help        this help`;

/** Runs the diff; returns the report and its exit code. */
export async function runHarnessDiff(
  profileSpec: string,
  recordingDir: string,
  taskDir: string | undefined,
  runtime = createRuntime(),
  cwdOverride?: string,
) {
  const rec = await loadRecording(recordingDir);
  const cwd = cwdOverride ?? rec.cwd;
  if (rec.requests.length === 0) throw new UsageError(`harness diff: ${recordingDir}/requests.jsonl has no requests`);
  const task = taskDir ?? taskFromArgv(rec.argv);
  if (!task) throw new UsageError("harness diff: no --task given and none in the recording's command.json");
  let name: string;
  try {
    name = resolveProfileName(profileSpec);
  } catch (e) {
    throw new UsageError(`harness diff: ${(e as Error).message}`);
  }
  const profile = getProfile(name);
  const replay = await replayOnTask(
    runtime,
    profile,
    resolve(task),
    recoverScript(rec.requests),
    rec.finalTurn,
    cwd,
    rec.requests,
  );
  const report = compareRecording(
    name,
    recordingDir,
    rec.requests,
    replay,
    cwd,
    profile.omittedTools,
    profile.paraphrasedParts,
    paraphrasedPrelude(profile),
  );
  return { report, code: report.differences ? 1 : 0 };
}

/** The first-request indices of a profile's paraphrased prelude messages (after its system prompt, if any). */
function paraphrasedPrelude(p: HarnessProfile): number[] {
  const base = p.system ? 1 : 0;
  return (p.prelude ?? []).flatMap((m, i) => m.paraphrased ? [base + i] : []);
}

/** The `harness diff` command. */
export const harnessDiff: Command = {
  name: "harness diff",
  summary: "replay a recording through a profile and report where they differ",
  usage,
  async run(argv) {
    const { values, positionals } = parseFlags("harness diff", argv, {
      profile: { type: "string" },
      recording: { type: "string" },
      task: { type: "string" },
      cwd: { type: "string" },
      json: { type: "boolean" },
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length) throw new UsageError(`harness diff: unexpected argument ${positionals[0]}`);
    if (!values.profile) throw new UsageError("harness diff: --profile is required");
    if (!values.recording) throw new UsageError("harness diff: --recording is required");
    try {
      await Deno.stat(`${values.recording}/requests.jsonl`);
    } catch {
      throw new UsageError(`harness diff: ${values.recording} has no requests.jsonl`);
    }
    const { report, code } = await runHarnessDiff(
      values.profile,
      values.recording,
      values.task,
      createRuntime(),
      values.cwd,
    );
    console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
    return code;
  },
};
