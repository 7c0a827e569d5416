/**
 * The viewer served from a run's folder on loopback, live: `/` is the page with the data read now, `/data.json` the
 * data alone, `/stamp` the size and time of `trajectories.jsonl`, which the page polls to reload while the run goes on,
 * and `/report` the report of what finished so far, linked into `/`. Given two folders, the page compares them
 * (`viewer_compare.ts`) and each run's report is `/report/A`, `/report/B`. The folders are only read.
 */
import { join } from "node:path";
import { readRunInfo, readRunTrajectories, runTitle } from "../eval/records/run_dir.ts";
import { summarize } from "../eval/records/summary.ts";
import type { Trajectory } from "../eval/records/trajectory.ts";
import { reportHtml } from "./report_html.ts";
import { compareViewerData } from "./viewer_compare.ts";
import { packViewerData, type ViewerData, viewerData } from "./viewer_data.ts";
import { viewerHtml } from "./viewer_html.ts";

/** Options of `serveView`. */
export interface ViewServerOptions {
  /** The port (default 0: any free port; the URL says which). */
  port?: number;
  /** Stops the server. */
  signal?: AbortSignal;
}

/** A running view server. */
export interface ViewServer {
  /** Where the page is, `http://127.0.0.1:PORT/`. */
  url: string;
  /** Settles when the server has stopped. */
  finished: Promise<void>;
  /** Stops the server. */
  shutdown(): Promise<void>;
}

/** The run's data and its stamp; the file is read again only when the stamp changed. */
export class RunWatch {
  #stamp = "";
  #data: ViewerData | undefined;
  #trajectories: Trajectory[] = [];
  /** Watches the run in `runDir`. */
  constructor(readonly runDir: string) {}

  /** `size:mtime` of trajectories.jsonl ("none" while it does not exist). */
  stamp(): string {
    try {
      const s = Deno.statSync(join(this.runDir, "trajectories.jsonl"));
      return `${s.size}:${s.mtime?.getTime() ?? 0}`;
    } catch {
      return "none";
    }
  }

  /** The data as of now, with its stamp and the records it was made from. */
  current(): { stamp: string; data: ViewerData; trajectories: Trajectory[] } {
    const stamp = this.stamp();
    if (!this.#data || stamp !== this.#stamp) {
      const info = readRunInfo(this.runDir);
      const ts = stamp === "none" ? [] : readRunTrajectories(this.runDir);
      this.#data = viewerData(ts, { title: runTitle(this.runDir, info), passThreshold: info.passThreshold, k: info.k });
      this.#trajectories = ts;
      this.#stamp = stamp;
    }
    return { stamp: this.#stamp, data: this.#data, trajectories: this.#trajectories };
  }

  /**
   * The report of what finished so far (k from run.json, else the most samples any task has); its links lead to the
   * viewer at `viewer` (default "./", the page beside it).
   */
  report(viewer = "./"): string {
    const { data, trajectories } = this.current();
    const samples = new Map<string, number>();
    for (const t of trajectories) samples.set(t.row_id, (samples.get(t.row_id) ?? 0) + 1);
    const k = data.k ?? Math.max(1, ...samples.values());
    const summary = summarize(trajectories, { k, passThreshold: data.pass_threshold });
    return reportHtml(summary, data.title, trajectories, { viewer });
  }
}

/** The labels of compared runs, in order. */
export const RUN_LABELS = ["A", "B"] as const;

/** Two runs watched together: the comparing page's data, read again when either run has written more. */
export class CompareWatch {
  /** One watch per run. */
  readonly runs: [RunWatch, RunWatch];
  #stamp = "";
  #data: ViewerData | undefined;
  /** Watches the runs in `dirs` (A, then B). */
  constructor(dirs: [string, string]) {
    this.runs = [new RunWatch(dirs[0]), new RunWatch(dirs[1])];
  }

  /** Both runs' stamps. */
  stamp(): string {
    return this.runs.map((r) => r.stamp()).join("|");
  }

  /** The comparing data as of now, with its stamp. */
  current(): { stamp: string; data: ViewerData } {
    const stamp = this.stamp();
    if (!this.#data || stamp !== this.#stamp) {
      const [a, b] = this.runs.map((w, i) => {
        const { data, trajectories } = w.current();
        return { label: RUN_LABELS[i], title: data.title, passThreshold: data.pass_threshold, k: data.k, trajectories };
      });
      this.#data = compareViewerData([a, b]);
      this.#stamp = stamp;
    }
    return { stamp: this.#stamp, data: this.#data };
  }
}

/** The data of one run, or of two compared. */
export function watchRuns(runDirs: string | string[]): RunWatch | CompareWatch {
  const dirs = typeof runDirs === "string" ? [runDirs] : runDirs;
  if (dirs.length === 1) return new RunWatch(dirs[0]);
  if (dirs.length === 2) return new CompareWatch([dirs[0], dirs[1]]);
  throw new Error(`view: one run folder, or two to compare (got ${dirs.length})`);
}

/**
 * Serves the viewer of the run in `runDir` (or of two runs compared) on 127.0.0.1 until `shutdown` or the signal.
 */
export function serveView(runDir: string | string[], opts: ViewServerOptions = {}): ViewServer {
  const watch = watchRuns(runDir);
  watch.current(); // a bad trajectories.jsonl is an error now, not on the first request
  const handler = (req: Request): Response => {
    const path = new URL(req.url).pathname;
    if (req.method !== "GET") return new Response("method not allowed\n", { status: 405 });
    const headers = { "cache-control": "no-store" };
    try {
      if (path === "/stamp") return new Response(watch.stamp(), { headers });
      if (path === "/data.json") return Response.json(packViewerData(watch.current().data), { headers });
      const html = { ...headers, "content-type": "text/html; charset=utf-8" };
      if (path === "/" || path === "/index.html") {
        const { stamp, data } = watch.current();
        return new Response(viewerHtml(data, { stamp, report: "report" }), { headers: html });
      }
      if (watch instanceof RunWatch) {
        if (path === "/report") return new Response(watch.report(), { headers: html });
      } else {
        const i = RUN_LABELS.findIndex((l) => path === `/report/${l}`);
        if (i >= 0) return new Response(watch.runs[i].report("../"), { headers: html });
      }
    } catch (e) {
      return new Response(`${(e as Error).message}\n`, { status: 500, headers });
    }
    return new Response("not found\n", { status: 404 });
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: opts.port ?? 0, signal: opts.signal, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    finished: server.finished,
    shutdown: () => server.shutdown(),
  };
}
