/**
 * `pgs view RUN_DIR [RUN_B] [--out FILE] [--port N]`: the trajectory viewer of an eval run (or two compared), served
 * live or written once.
 */
import { dirname, join, resolve } from "node:path";
import { UsageError } from "../lib/base/errors.ts";
import { serveView, watchRuns } from "../lib/report/view_server.ts";
import { viewerHtml } from "../lib/report/viewer_html.ts";
import { partialPath, writeWhole } from "../lib/export/run_dir.ts";
import { type Command, parseFlags } from "./args.ts";
import { listenError } from "./listen.ts";
import { onSignal } from "./signals.ts";

/** The port `pgs view` serves on unless told. */
export const DEFAULT_VIEW_PORT = 8300;

const usage = `Usage: pgs view RUN_DIR [RUN_B] [--port N] [--out FILE]

Shows the episodes of the eval run in RUN_DIR (a pgs eval --out folder): a list with filters (profile, task,
reward, exit status, infrastructure error, text), and each episode as a transcript: the system prompt and tools
(collapsed), every assistant turn with its reasoning, text and tool calls, every tool result in the harness's words
(long ones folded, truncation marks kept in view), format errors and unknown tools highlighted, token counts per turn
with drift and template-rewrite turns, the answer, the files it changed (a diff), the verifier's output, the
reward, metrics and timings. Two episodes open side by side. The list shows each episode's prompt and completion
tokens and why it ended (a timeout, the turn limit, ...), and sorts by any column (click its header; the sort is in
the URL like the filters). The folders are only read.

Given two run folders (e.g. the same tasks under a profile and under its +exact-edit variant), the page
compares them: every episode labelled A or B, the same task × profile × sample of both runs paired (one click
opens the pair side by side), and the pass rates of A and B per task and profile.

Without --out it serves the page on http://127.0.0.1:PORT/ until Ctrl-C, and the page picks up new episodes while a
run is still going. With --out it writes one self-contained HTML file (nothing fetched when opened) and exits.

Options:
  --port N     the loopback port to serve on (default ${DEFAULT_VIEW_PORT}; 0 picks a free one)
  --out FILE   write the page to FILE instead of serving it
  -h, --help   this help`;

/** The `view` command. */
export const viewCommand: Command = {
  name: "view",
  summary: "open an eval run's episodes in the trajectory viewer (served on 127.0.0.1, or written with --out)",
  usage,
  async run(argv) {
    const { values, positionals } = parseFlags("view", argv, { port: { type: "string" }, out: { type: "string" } });
    if (values.help) return console.log(usage), 0;
    if (positionals.length < 1 || positionals.length > 2) {
      throw new UsageError("view: expected RUN_DIR, or RUN_A RUN_B to compare two runs");
    }
    for (const run of positionals) {
      const ok = await Deno.stat(join(run, "trajectories.jsonl")).then((s) => s.isFile, () => false);
      if (!ok) throw new UsageError(`view: ${run}: no trajectories.jsonl (RUN_DIR is a pgs eval --out folder)`);
    }
    const run = positionals.join(" and ");
    if (values.out !== undefined && values.port !== undefined) {
      throw new UsageError("view: --out and --port exclude each other");
    }
    const watch = watchRuns(positionals);
    let data;
    try {
      data = watch.current().data;
    } catch (e) {
      throw new UsageError(`view: ${(e as Error).message}`);
    }
    if (values.out !== undefined) {
      const out = values.out;
      if (await Deno.stat(out).then((s) => s.isDirectory, () => false)) {
        throw new UsageError(`view: --out ${out} is a folder; give a file path (e.g. ${join(out, "viewer.html")})`);
      }
      const parent = dirname(resolve(out));
      if (!await Deno.stat(parent).then((s) => s.isDirectory, () => false)) {
        throw new UsageError(`view: --out ${out}: the folder ${parent} does not exist`);
      }
      // On Ctrl-C the partial page would outlive the process: the exit hook removes it.
      const off = onSignal("exit", () => {
        try {
          Deno.removeSync(partialPath(out));
        } catch { /* nothing was written yet */ }
      });
      try {
        await writeWhole(out, (tmp) => Deno.writeTextFile(tmp, viewerHtml(data)));
      } finally {
        off();
      }
      console.error(`wrote the viewer of ${data.episodes.length} episodes to ${out}`);
      return 0;
    }
    const raw = values.port;
    const port = raw === undefined ? DEFAULT_VIEW_PORT : Number(raw);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(`view: --port must be an integer from 0 to 65535, got ${JSON.stringify(raw)}`);
    }
    let server;
    try {
      server = serveView(positionals, { port });
    } catch (e) {
      // A busy port is the machine's state, not a usage error: exit 1 with one line, as env serve and harness serve.
      throw listenError("view", "127.0.0.1", port, e);
    }
    console.error(`viewing ${data.episodes.length} episodes of ${run} on ${server.url} (Ctrl-C stops)`);
    await server.finished;
    return 0;
  },
};
