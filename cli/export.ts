/** `pgs export atif RUN_DIR OUT_DIR` and `pgs export sft RUN_DIR OUT.jsonl [--min-reward X]`: an eval run, exported. */
import { dirname, join, resolve } from "node:path";
import { UsageError } from "../lib/base/errors.ts";
import { loadProfilesModule } from "../lib/harness/load_module.ts";
import { exportAtif } from "../lib/export/atif.ts";
import { partialPath } from "../lib/export/run_dir.ts";
import { DEFAULT_MIN_REWARD, exportSft } from "../lib/export/sft.ts";
import { type Command, numberFlag, parseFlags } from "./args.ts";
import { checkOutputFile } from "./output_path.ts";
import { onSignal } from "./signals.ts";

const atifUsage = `Usage: pgs export atif RUN_DIR OUT_DIR [--token-ids] [--profiles-module PATH]

Writes OUT_DIR/<task>__<profile>__s<sample>/trajectory.json for every episode of the eval run in RUN_DIR (a pgs eval
--out), in Harbor's trajectory format ATIF v1.7: the agent is the profile (name, version, tool definitions), steps are
the system prompt, the user turns, each agent turn with its tool calls and their results as its observation, per-step
token counts (and with --token-ids the token ids and logprobs) when the run recorded them, and final_metrics with the
reward. Every document is checked
against ATIF's rules before it is written. OUT_DIR must not exist; it appears only when every file is written.

Options:
  --token-ids              each agent step's metrics also has its turn's prompt_token_ids, completion_token_ids and
                           logprobs (the run must have recorded them: pgs eval --token-ids or --tokenizer)
  --profiles-module PATH   a module of your own profiles (text protocols are read with the profile's parser)
  -h, --help               this help`;

const sftUsage = `Usage: pgs export sft RUN_DIR OUT.jsonl [--min-reward X]

Writes one chat-format SFT row, {"messages", "tools"}, per passing episode of the eval run in RUN_DIR: the messages
exactly as the policy was sent them, ending with its final assistant turn (OpenAI format, tool-call arguments as
JSON text), and the tool schemas of its requests. Episodes with an infrastructure error never pass. OUT.jsonl is
replaced whole.

Options:
  --min-reward X   the lowest reward kept (default ${DEFAULT_MIN_REWARD})
  -h, --help       this help`;

/** RUN_DIR must hold a run; a usage error names it otherwise. */
async function runDir(cmd: string, dir: string): Promise<string> {
  try {
    await Deno.stat(join(dir, "trajectories.jsonl"));
  } catch {
    throw new UsageError(`${cmd}: ${dir}: no trajectories.jsonl (RUN_DIR is a pgs eval --out folder)`);
  }
  return dir;
}

async function parentExists(cmd: string, out: string): Promise<void> {
  const parent = dirname(resolve(out));
  const ok = await Deno.stat(parent).then((s) => s.isDirectory, () => false);
  if (!ok) throw new UsageError(`${cmd}: ${out}: the folder ${parent} does not exist`);
}

/** A library error about the run's contents (a bad line) as a one-line usage error naming the file. */
async function reported<T>(cmd: string, out: string, fn: () => Promise<T>): Promise<T> {
  // On Ctrl-C the partial output would outlive the process: the exit hook removes it.
  const off = onSignal("exit", () => {
    try {
      Deno.removeSync(partialPath(out), { recursive: true });
    } catch { /* nothing was written yet */ }
  });
  try {
    return await fn();
  } catch (e) {
    if (e instanceof Error && /trajectories\.jsonl/.test(e.message)) throw new UsageError(`${cmd}: ${e.message}`);
    throw e;
  } finally {
    off();
  }
}

/** The `export atif` command. */
export const exportAtifCommand: Command = {
  name: "export atif",
  summary: "write each episode of an eval run as an ATIF v1.7 trajectory.json (Harbor's trajectory format)",
  usage: atifUsage,
  async run(argv) {
    const { values, positionals } = parseFlags("export atif", argv, {
      "profiles-module": { type: "string" },
      "token-ids": { type: "boolean" },
    });
    if (values.help) return console.log(atifUsage), 0;
    if (positionals.length !== 2) throw new UsageError("export atif: expected RUN_DIR and OUT_DIR");
    const [run, out] = positionals;
    await runDir("export atif", run);
    if (await Deno.lstat(out).then(() => true, () => false)) {
      throw new UsageError(`export atif: ${out} exists (OUT_DIR must be a new folder)`);
    }
    await parentExists("export atif", out);
    if (values["profiles-module"]) await loadProfilesModule(values["profiles-module"]);
    const tokenIds = values["token-ids"] === true;
    const done = await reported("export atif", out, () => exportAtif(run, out, { tokenIds }));
    const skipped = done.skipped.length ? ` (${done.skipped.length} skipped: no prompt was ever sent)` : "";
    console.error(`wrote ${done.written.length} ATIF trajectories to ${out}${skipped}`);
    return 0;
  },
};

/** The `export sft` command. */
export const exportSftCommand: Command = {
  name: "export sft",
  summary: "write the passing episodes of an eval run as chat-format SFT rows (messages, tools)",
  usage: sftUsage,
  async run(argv) {
    const { values, positionals } = parseFlags("export sft", argv, { "min-reward": { type: "string" } });
    if (values.help) return console.log(sftUsage), 0;
    if (positionals.length !== 2) throw new UsageError("export sft: expected RUN_DIR and OUT.jsonl");
    const [run, out] = positionals;
    const minReward = numberFlag("export sft", "min-reward", values["min-reward"], DEFAULT_MIN_REWARD);
    await runDir("export sft", run);
    await checkOutputFile("export sft", "OUT.jsonl", out);
    const done = await reported("export sft", out, () => exportSft(run, out, { minReward }));
    const empty = done.empty.length ? `, ${done.empty.length} passing without an assistant turn` : "";
    console.error(
      `wrote ${done.rows} SFT rows to ${out} (reward ≥ ${minReward}; ${done.failed} below, ${done.infra} infrastructure errors${empty})`,
    );
    return 0;
  },
};
