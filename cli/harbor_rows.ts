/** `pgs harbor rows PATH OUT.jsonl [--no-system]`. */
import { UsageError } from "../lib/base/errors.ts";
import { harborRows, writeJsonl } from "../lib/harbor/rows.ts";
import { type Command, parseFlags } from "./args.ts";
import { checkOutputFile } from "./output_path.ts";

const usage = `Usage: pgs harbor rows PATH OUT.jsonl [--no-system]

Writes one row per task under PATH: {"task_dir", "messages": [system, user]}, with the default dialect's system
prompt and the task's instruction (instruction.md, else [task] description). An existing OUT.jsonl is replaced whole.

Options:
  --no-system   leave the system message out
  -h, --help    this help`;

/** The `harbor rows` command. */
export const harborRowsCommand: Command = {
  name: "harbor rows",
  summary: "write training rows (system + instruction) for a task set",
  usage,
  async run(argv) {
    const { values, positionals } = parseFlags("harbor rows", argv, { "no-system": { type: "boolean" } });
    if (values.help) return console.log(usage), 0;
    if (positionals.length !== 2) throw new UsageError("harbor rows: expected PATH and OUT.jsonl");
    await checkOutputFile("harbor rows", "OUT.jsonl", positionals[1]);
    const rows = await harborRows(positionals[0], { noSystem: Boolean(values["no-system"]) });
    await writeJsonl(positionals[1], rows);
    console.error(`wrote ${rows.length} rows to ${positionals[1]}`);
    return 0;
  },
};
