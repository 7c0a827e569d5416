/** `pgs harbor export --steps SRC OUT`. */
import { UsageError } from "../lib/base/errors.ts";
import { exportSteps } from "../lib/harbor/export_steps.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import { createRuntime } from "../lib/runtime/registry.ts";
import { findTasks } from "../lib/task/task.ts";
import { type Command, parseFlags } from "./args.ts";

const usage = `Usage: pgs harbor export --steps SRC OUT

Converts every task under SRC (or the one task at SRC) from pgs's own layout into Harbor's single-step [[steps]]
layout, for publishing a task set to the Harbor CLI: steps/main/instruction.md, steps/main/workdir/ (the starting
files, from environment/workdir/) with steps/main/workdir/setup.sh (environment/setup.sh, removing itself after it
ran), tests/ and solution/. task.toml names the working directory and, when the task left it unset, no network.
Tasks graded on the reply (their tests read /logs/agent/final_message.md, which Harbor never writes) and a
[verifier] capture (which Harbor ignores) are flagged. OUT must not exist; it appears only when every task exported.

Options:
  --steps      the [[steps]] layout (the only export so far)
  -h, --help   this help`;

/** The `harbor export` command. */
export const harborExport: Command = {
  name: "harbor export",
  summary: "convert tasks of pgs's own layout into Harbor's [[steps]] layout, flagging reply-graded tasks",
  usage,
  async run(argv) {
    const { values, positionals } = parseFlags("harbor export", argv, { steps: { type: "boolean" } });
    if (values.help) return console.log(usage), 0;
    if (!values.steps) throw new UsageError("harbor export: give --steps (the [[steps]] layout)");
    if (positionals.length !== 2) throw new UsageError("harbor export: expected SRC and OUT");
    const dirs = await findTasks(positionals[0]);
    let store: ImageStore | undefined;
    const exported = await exportSteps(dirs, positionals[1], () => store ??= new ImageStore(createRuntime()));
    let flagged = 0;
    for (const t of exported) {
      console.error(`${t.flags.length ? "FLAG" : "ok  "} ${t.name} → ${t.dir}`);
      for (const f of t.flags) console.error(`     ${f}`);
      if (t.flags.length) flagged++;
    }
    console.error(`exported ${exported.length} tasks to ${positionals[1]} (${flagged} flagged)`);
    return 0;
  },
};
