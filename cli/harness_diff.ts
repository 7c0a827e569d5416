/** `pgs harness diff --profile NAME --recording DIR [--task DIR] [--json]`: a recording vs its profile, replayed. */
import { resolve } from "node:path";
import { compareRecording, compareRecordings } from "../lib/conformance/compare.ts";
import { loadRecording, recoverScript, taskFromArgv } from "../lib/conformance/load_recording.ts";
import { replayOnTask } from "../lib/conformance/replay.ts";
import { formatReport } from "../lib/conformance/report.ts";
import { createRuntime } from "../lib/runtime/registry.ts";
import { UsageError } from "../lib/base/errors.ts";
import { withHarnessModel } from "../lib/harness/model_dialect.ts";
import { getProfile, resolveProfileName } from "../lib/harness/registry.ts";
import type { HarnessProfile } from "../lib/harness/types.ts";
import { type Command, parseFlags } from "./args.ts";

const usage = `Usage: pgs harness diff --profile NAME[@VERSION] --recording DIR [--task DIR] [--cwd PATH]
                        [--harness-model NAME] [--json]
       pgs harness diff --baseline OLD_DIR --recording NEW_DIR [--json]

Replays a recording's script (recovered from requests.jsonl: each request echoes the stub's previous answer) through
the profile on the task in a real container, and compares request by request: tool names, order and parameter
schemas, the user message's shape and text, each tool result and error string, the echoed assistant turns' content
shape, and where the episode ends. Working directories, tool-call ids and dates are normalised; the system prompt and
long tool descriptions are reported as paraphrased. The profile speaks as its harness does with the model name the
recording was made with (command.json's), and its generation settings are compared with the request's own. Exits 1
on any difference, 0 when none.

With --baseline, two recordings of a harness made with the same script (two versions, or two model names) are
compared instead, no container needed: what the second sends differently, request by request, with every text exact
(system prompts and long descriptions too), the settings beside messages and tools, and the number of requests. It
tells what a new version changed: names, order, schemas, descriptions and the wording of results.

Options:
  --profile NAME    the profile (required)
  --recording DIR   the capture directory holding requests.jsonl (required)
  --task DIR        the task (default: the --task in the recording's command.json)
  --cwd PATH        the recording's working directory (default: from command.json or the system prompt); paths
                    under it in the replayed calls are pointed at the container's working directory
  --baseline DIR    a recording to compare --recording with (instead of a profile)
  --harness-model NAME   the model name the profile follows (default: the recording's, else the profile's own)
  --json            machine-readable report
  -h, --help        this help`;

/** Runs the diff; returns the report and its exit code. */
export async function runHarnessDiff(
  profileSpec: string,
  recordingDir: string,
  taskDir: string | undefined,
  runtime = createRuntime(),
  cwdOverride?: string,
  harnessModel?: string,
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
  const profile = withHarnessModel(getProfile(name), harnessModel ?? rec.model);
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
    profile.generation,
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
      "harness-model": { type: "string" },
      baseline: { type: "string" },
      json: { type: "boolean" },
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length) throw new UsageError(`harness diff: unexpected argument ${positionals[0]}`);
    if (!values.recording) throw new UsageError("harness diff: --recording is required");
    for (const dir of [values.recording, values.baseline]) {
      if (dir === undefined) continue;
      try {
        await Deno.stat(`${dir}/requests.jsonl`);
      } catch {
        throw new UsageError(`harness diff: ${dir} has no requests.jsonl`);
      }
    }
    if (values.baseline) {
      if (values.profile || values.task || values.cwd || values["harness-model"]) {
        throw new UsageError(
          "harness diff: --baseline compares two recordings; --profile, --task, --cwd and " +
            "--harness-model do not apply",
        );
      }
      const report = compareRecordings(await loadRecording(values.baseline), await loadRecording(values.recording));
      console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
      return report.differences ? 1 : 0;
    }
    if (!values.profile) throw new UsageError("harness diff: --profile is required (or --baseline)");
    const { report, code } = await runHarnessDiff(
      values.profile,
      values.recording,
      values.task,
      createRuntime(),
      values.cwd,
      values["harness-model"],
    );
    console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
    return code;
  },
};
