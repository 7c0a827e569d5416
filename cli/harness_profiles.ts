/** `pgs harness profiles [--json]` and `pgs harness show NAME[@VERSION] --task DIR [--json]`. */
import { dialectGapWarning, withHarnessModel } from "../lib/harness/model_dialect.ts";
import { withOverlay } from "../lib/harness/overlay.ts";
import { UsageError } from "../lib/base/errors.ts";
import { type ProfileSummary, summarizeProfiles } from "../lib/harness/describe.ts";
import { ProfileEpisode } from "../lib/harness/profile_episode.ts";
import { loadProfilesModule } from "../lib/harness/load_module.ts";
import { getProfile, resolveProfileName } from "../lib/harness/registry.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import { Sandbox } from "../lib/runtime/sandbox.ts";
import { loadTask } from "../lib/task/task.ts";
import { answeringRuntime, type Command, parseFlags, readOverlays, RUNTIME_HELP } from "./args.ts";

const profilesUsage = `Usage: pgs harness profiles [--long | --json] [--profiles-module PATH]

Lists every harness profile, one line each: name@version (* = the name's default), protocol, and the harness and
version it emulates. --long adds tools, stop rule, answer, edit matching, the seed's pin where it differs and the
sources read or recorded.

Options:
  --long                    the detail of each profile
  --json                    machine-readable list (the detail)
  --profiles-module PATH    load a module of your own profiles first
${RUNTIME_HELP}
  -h, --help                this help`;

const showUsage = `Usage: pgs harness show NAME[@VERSION] --task DIR [--harness-model NAME] [--overlay FILE] [--json]
                        [--profiles-module PATH] [--runtime R]

Prints the first prompt (messages and tools) exactly as a model would receive it under the profile, for the task at
DIR (starts the task's container to render it, then removes it), and the harness's own generation settings.

Options:
  --task DIR                the task (required)
  --harness-model NAME      the model name the harness is configured with (its -m): the prompt, tools and settings
                            it sends for that name (default: the name the profile was recorded with)
  --overlay FILE            an overlay from pgs harness adopt: the recorded harness's own prompt, tools and settings
  --json                    {profile, harness_model, overlay, messages, tools, generation} as JSON
  --profiles-module PATH    load a module of your own profiles first
  -h, --help                this help`;

async function loadModule(path: unknown): Promise<void> {
  if (typeof path === "string") await loadProfilesModule(path);
}

/** One line a profile: name@version and the default marker, the protocol's kind, the harness (its name, without the
 * parenthesised detail) and version emulated; then what the marker means. */
export function shortList(all: ProfileSummary[]): string {
  const rows = all.map((p) => [
    `${p.name}@${p.version}${p.isDefault ? " *" : ""}`,
    p.protocol.split(" ")[0],
    `${p.emulates.harness.replace(/ \(.*$/, "")} ${p.emulates.version}`,
  ]);
  const w = [0, 1].map((i) => Math.max(...rows.map((r) => r[i].length)));
  return [
    ...rows.map((r) => `${r[0].padEnd(w[0])}  ${r[1].padEnd(w[1])}  ${r[2]}`),
    "",
    "* = the name's default version; --long (or --json) for tools, stop rule, answer and sources",
  ].join("\n");
}

/** The `harness profiles` command. */
export const harnessProfiles: Command = {
  name: "harness profiles",
  summary: "list the harness profiles and what each emulates",
  usage: profilesUsage,
  async run(argv) {
    const { values, positionals } = parseFlags("harness profiles", argv, {
      json: { type: "boolean" },
      long: { type: "boolean" },
      "profiles-module": { type: "string" },
    });
    if (values.help) return console.log(profilesUsage), 0;
    if (values.json && values.long) throw new UsageError("harness profiles: --json and --long exclude each other");
    if (positionals.length) throw new UsageError(`harness profiles: unexpected argument ${positionals[0]}`);
    await loadModule(values["profiles-module"]);
    const all = summarizeProfiles();
    if (values.json) return console.log(JSON.stringify(all, null, 2)), 0;
    if (!values.long) return console.log(shortList(all)), 0;
    for (const p of all) {
      const e = p.emulates;
      console.log(`${p.name}@${p.version}${p.isDefault ? " *" : ""}`);
      console.log(`  protocol ${p.protocol}; tools ${p.tools.join(", ") || "(keystrokes)"}`);
      console.log(`  ends on ${p.stop}; answer: ${p.answer}`);
      if (p.edits) {
        console.log(`  edits match by ${p.edits.chain.join(" → ")} (variants: ${p.edits.variants.join(", ")})`);
      }
      console.log(`  emulates ${e.harness} ${e.version}${e.seedPin ? ` (seed pin ${e.seedPin})` : ""}`);
      if (p.extends) {
        console.log(`  extends ${p.name}@${p.extends.version}:`);
        for (const c of p.extends.changes) console.log(`    - ${c}`);
      }
      for (const s of e.sources) console.log(`    from ${s}`);
      if (p.models) {
        console.log(`  model dependence (recorded with ${p.models.recordedWith}): ${p.models.note}`);
        for (const r of p.models.rules) console.log(`    ${r.name}: ${r.doc}`);
        for (const u of p.models.unmodeled) console.log(`    not followed: ${u}`);
      }
    }
    return 0;
  },
};

/** The `harness show` command. */
export const harnessShow: Command = {
  name: "harness show",
  summary: "print a profile's first prompt for a task",
  usage: showUsage,
  async run(argv) {
    const { values, positionals } = parseFlags("harness show", argv, {
      task: { type: "string" },
      json: { type: "boolean" },
      "profiles-module": { type: "string" },
      runtime: { type: "string" },
      "harness-model": { type: "string" },
      overlay: { type: "string" },
    });
    if (values.help) return console.log(showUsage), 0;
    if (positionals.length !== 1) throw new UsageError("harness show: expected one NAME[@VERSION]");
    if (typeof values.task !== "string") throw new UsageError("harness show: --task DIR is required");
    await loadModule(values["profiles-module"]);
    let full: string;
    try {
      full = resolveProfileName(positionals[0]);
    } catch (e) {
      throw new UsageError(`harness show: ${(e as Error).message}`);
    }
    // Bad input first (the model name, the overlay), then the engine, then a container.
    const model = values["harness-model"] as string | undefined;
    let profile = withHarnessModel(getProfile(full), model);
    const overlays = await readOverlays("harness show", values.overlay ? [values.overlay as string] : []);
    try {
      profile = withOverlay(profile, overlays, model);
    } catch (e) {
      throw new UsageError(`harness show: ${(e as Error).message}`);
    }
    if (overlays.length && !profile.overlay) {
      throw new UsageError(`harness show: --overlay ${values.overlay} was adopted for ${overlays[0].overlay.profile}`);
    }
    const task = await loadTask(values.task);
    const runtime = await answeringRuntime("harness show", values.runtime as string | undefined);
    const box = await Sandbox.start(task, new ImageStore(runtime));
    try {
      const ep = new ProfileEpisode(profile, box);
      const messages = await ep.begin(task.instruction);
      const harnessModel = profile.harnessModel ?? null, generation = profile.generation ?? null;
      const gap = profile.overlay ? undefined : dialectGapWarning(profile);
      if (gap) console.error(`pgs: warning: ${gap}`);
      if (values.json) {
        const overlay = profile.overlay ?? null;
        const shown = { profile: full, harness_model: harnessModel, overlay, messages, tools: ep.tools, generation };
        return console.log(JSON.stringify(shown, null, 2)), 0;
      }
      console.log(`# ${full} on ${task.name}${harnessModel ? ` (harness model ${harnessModel})` : ""}\n`);
      for (const m of messages) {
        const c = typeof m.content === "string" ? m.content : JSON.stringify(m.content, null, 2);
        console.log(`## ${m.role}\n${c}\n`);
      }
      console.log(`## tools\n${JSON.stringify(ep.tools, null, 2)}`);
      if (generation) {
        console.log(
          `\n## generation (the harness's own settings, not sent to the policy)\n${
            JSON.stringify(generation, null, 2)
          }`,
        );
      }
      return 0;
    } finally {
      await box.remove();
    }
  },
};
