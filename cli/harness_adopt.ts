/** `pgs harness adopt RECORDING_DIR --profile NAME --out OVERLAY.json`: a user's own harness install as an overlay. */
import { join, resolve } from "node:path";
import { UsageError } from "../lib/base/errors.ts";
import { adoptRecording } from "../lib/conformance/adopt.ts";
import { loadRecording } from "../lib/conformance/load_recording.ts";
import { ProfileEpisode } from "../lib/harness/profile_episode.ts";
import { withHarnessModel } from "../lib/harness/model_dialect.ts";
import { getProfile, resolveProfileName } from "../lib/harness/registry.ts";
import type { HarnessProfile } from "../lib/harness/types.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import type { Runtime } from "../lib/runtime/runtime.ts";
import { Sandbox } from "../lib/runtime/sandbox.ts";
import { loadTask } from "../lib/task/task.ts";
import { answeringRuntime, type Command, parseFlags } from "./args.ts";
import { checkOutputFile } from "./output_path.ts";

const usage = `Usage: pgs harness adopt RECORDING_DIR --profile NAME[@VERSION] --out OVERLAY.json [--task DIR]
                         [--harness-install PATH] [--runtime R]

Reads a recording made with pgs harness capture (chat completions, Responses, Messages or Gemini) and writes an
overlay holding what that harness sent in its first request: every system, developer and user part in order (the
instruction's place marked), every tool exactly as sent, and its generation settings. The working directory, HOME,
the date, the harness's install folder and (with --task) the profile's own per-task values, such as a directory tree,
become slots filled per task. Apply it with --overlay FILE on harness show, eval and env serve. The overlay holds the
harness's own text: keep it with your recordings.

Options:
  --profile NAME           the profile whose bindings run the tools (required)
  --out FILE               the overlay to write (required)
  --task DIR               the recorded task: its instruction.md locates the instruction, and the profile's per-task
                           values are computed in its container to find them in the recording (default: the
                           instruction is the longest harness argument a user message holds; no per-task values)
  --harness-install PATH   what {harness_install} becomes in episodes (default /usr/local/lib/node_modules/<pkg>)
  --runtime R              the container runtime for --task (default docker)
  -h, --help               this help`;

/** The profile's own template values for the recorded task, computed in its container with the recorded workdir. */
async function profileValues(
  runtime: Runtime,
  profile: HarnessProfile,
  taskDir: string,
  cwd: string | undefined,
): Promise<{ instruction: string; values: Record<string, string> }> {
  const task = await loadTask(taskDir);
  if (!profile.start) return { instruction: task.instruction, values: {} };
  const box = await Sandbox.start(task, new ImageStore(runtime), { workdir: cwd });
  try {
    const ep = new ProfileEpisode(profile, box);
    const base = { instruction: task.instruction, workdir: ep.session.workdir };
    return { instruction: task.instruction, values: await profile.start(ep.session, base) };
  } finally {
    await box.remove();
  }
}

/** The `harness adopt` command. */
export const harnessAdopt: Command = {
  name: "harness adopt",
  summary: "turn a recording of your own harness install into an overlay (--overlay)",
  usage,
  async run(argv) {
    const { values, positionals } = parseFlags("harness adopt", argv, {
      profile: { type: "string" },
      out: { type: "string" },
      task: { type: "string" },
      "harness-install": { type: "string" },
      runtime: { type: "string" },
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length !== 1) throw new UsageError("harness adopt: expected one RECORDING_DIR");
    if (!values.profile) throw new UsageError("harness adopt: --profile is required");
    if (!values.out) throw new UsageError("harness adopt: --out is required");
    const dir = positionals[0];
    let mtime: Date | null = null;
    try {
      mtime = (await Deno.stat(join(dir, "requests.jsonl"))).mtime;
    } catch {
      throw new UsageError(`harness adopt: ${dir} has no requests.jsonl (a folder written by pgs harness capture)`);
    }
    await checkOutputFile("harness adopt", "--out", values.out);
    let full: string;
    try {
      full = resolveProfileName(values.profile);
    } catch (e) {
      throw new UsageError(`harness adopt: ${(e as Error).message}`);
    }
    const rec = await loadRecording(dir);
    const profile = withHarnessModel(getProfile(full), rec.model);
    const found = values.task
      ? await profileValues(
        await answeringRuntime("harness adopt", values.runtime),
        profile,
        resolve(values.task),
        rec.cwd,
      )
      : undefined;
    let overlay;
    try {
      overlay = adoptRecording(rec, profile, {
        instruction: found?.instruction,
        values: found?.values,
        date: mtime ?? undefined,
        installValue: values["harness-install"],
      });
    } catch (e) {
      throw new UsageError(`harness adopt: ${(e as Error).message}`);
    }
    const tmp = `${values.out}.tmp-${Deno.pid}`;
    await Deno.writeTextFile(tmp, JSON.stringify(overlay, null, 2) + "\n");
    await Deno.rename(tmp, values.out);
    const slots = Object.keys(overlay.slots).map((s) => `{${s}}`).join(", ") || "none";
    console.error(
      `pgs: ${values.out}: ${overlay.messages.length} message(s), ${overlay.tools.length} tool(s) ` +
        `(${overlay.unavailable.length} answered by rule), slots ${slots}`,
    );
    return 0;
  },
};
