/**
 * An eval run in an output folder: `run.json` (the settings), `trajectories.jsonl` (appended as episodes end),
 * `summary.json`, `report.html` and `viewer.html` (written at the end, and on Ctrl-C for what finished). A re-run
 * with the same folder skips finished episodes (and retries infrastructure errors) unless `redo`.
 */
import { warnOnce } from "../base/warn.ts";
import { type LoadedOverlay, readOverlay } from "../harness/overlay.ts";
import { join, resolve } from "node:path";
import { createRuntime } from "../runtime/registry.ts";
import { DEFAULT_STORAGE_MB } from "../runtime/limits.ts";
import { EngineDownError, InfraError, UsageError } from "../base/errors.ts";
import { loadProfilesModule } from "../harness/load_module.ts";
import { resolveProfileName } from "../harness/registry.ts";
import { type EvalConfig, isRecord, policyLabel } from "./config.ts";
import { endpointPolicy, normalizeBaseUrl } from "../policies/endpoint_policy.ts";
import { checkEndpoint } from "../policies/endpoint_check.ts";
import { tokenPolicy } from "../policies/token_policy.ts";
import { loadTokenModel } from "../tokens/model.ts";
import { reasoningParser, toolParser } from "../tokens/parsers/registry.ts";
import { loadRows } from "./load_rows.ts";
import { loadTask } from "../task/task.ts";
import { taskSetNotes } from "../task/task_set_notes.ts";
import { oraclePolicy, type Policy, scriptPolicy } from "../policies/policy.ts";
import { Progress } from "./progress.ts";
import { reportHtml } from "../report/report_html.ts";
import { viewerData } from "../report/viewer_data.ts";
import { viewerHtml } from "../report/viewer_html.ts";
import { crossRows, rowIds, runEpisodes } from "./run_episodes.ts";
import { gitRevision, PGS_VERSION, RUN_FORMAT, type RunRecord } from "./run_record.ts";
import { readRunInfo, runHeader, runTitle } from "./records/run_dir.ts";
import { summarize, type Summary } from "./records/summary.ts";
import { latestById, readTrajectories, type Trajectory, trajectoryId, TrajectoryWriter } from "./records/trajectory.ts";
import { checkScript, profilesDrawn, readScriptFile } from "../policies/script_check.ts";

/**
 * The settings that change what an episode is, as run.json records them (null when unset); a folder holding other
 * values is not resumed.
 */
function fingerprint(cfg: EvalConfig, overlays: LoadedOverlay[]): Record<string, unknown> {
  const ep = cfg.policy.kind === "endpoint" ? cfg.policy : undefined;
  return {
    tasks: resolve(cfg.tasks),
    policy: policyLabel(cfg.policy),
    endpoint: ep?.url ?? null,
    model: cfg.model ?? null,
    profiles: cfg.profiles ?? null,
    profile: cfg.profile ?? null,
    // Absent when not given, so older runs resume.
    ...(cfg.harnessModel ? { harnessModel: cfg.harnessModel } : {}),
    ...(overlays.length ? { overlays: overlays.map((o) => o.ref) } : {}),
    // Absent (not false) when not crossed, so older runs resume.
    ...(cfg.cross ? { cross: true } : {}),
    temperature: ep?.sampling.temperature ?? null,
    topP: ep?.sampling.topP ?? null,
    topK: ep?.sampling.topK ?? null,
    maxTokens: ep?.sampling.maxTokens ?? null,
    maxTurns: cfg.maxTurns,
    chatTemplateKwargs: cfg.chatTemplateKwargs ?? null,
    profileChatTemplateKwargs: cfg.profileChatTemplateKwargs ?? null,
    maxOutput: cfg.maxOutput ?? null,
    seed: cfg.seed,
    tokenIds: ep?.tokenIds ?? false,
    // Token mode changes what is sent and kept; the fields are absent (not null) in chat mode, so older runs resume.
    ...(ep?.tokens ? { tokens: ep.tokens } : {}),
    images: cfg.images ?? null,
    verifierMode: cfg.verifierMode ?? null,
    // Absent at the default, so older runs resume.
    ...(cfg.storageMb !== DEFAULT_STORAGE_MB ? { storageMb: cfg.storageMb } : {}),
  };
}

/** Where a run reports each finished episode, and that it is over. */
export interface ProgressSink {
  /** One episode finished (or was skipped on resume). */
  episode(t: Trajectory): void;
  /** The run is over. */
  close(): void;
}

/** Hooks of a run, for the CLI. */
export interface EvalHooks {
  /** Stops the run (Ctrl-C). */
  signal?: AbortSignal;
  /** Progress output (default: a Progress on stderr). */
  progress?: (total: number, already: number) => ProgressSink;
  /** Receives a function that writes summary.json and report.html now, synchronously (for signal handlers). */
  onFlush?: (flush: () => void) => void;
}

/** What `evaluate` returns. */
export interface EvalResult {
  /** The summary written to summary.json. */
  summary: Summary;
  /** The output folder, absolute. */
  out: string;
  /** Episodes run now, and skipped as already done. */
  ran: number;
  /** Episodes skipped as already finished by an earlier run. */
  skipped: number;
}

/** Builds the policy a config names. */
export async function policyFor(cfg: EvalConfig): Promise<Policy> {
  const p = cfg.policy;
  switch (p.kind) {
    case "oracle":
      return oraclePolicy();
    case "script": {
      return scriptPolicy(await readScriptFile(p.path), policyLabel(p));
    }
    case "endpoint": {
      let apiKey: string | undefined;
      if (p.apiKeyEnv) {
        apiKey = Deno.env.get(p.apiKeyEnv);
        if (!apiKey) throw new UsageError(`--api-key-env: environment variable ${p.apiKeyEnv} is not set`);
      }
      if (p.tokens) {
        const t = p.tokens;
        let tokenizer;
        try {
          tokenizer = await loadTokenModel(t.tokenizer);
        } catch (e) {
          throw new UsageError(`--tokenizer ${(e as Error).message}`);
        }
        return tokenPolicy({
          baseUrl: p.url,
          api: t.api,
          tokenizer,
          reasoningParser: t.reasoningParser ? reasoningParser(t.reasoningParser) : undefined,
          toolParser: toolParser(t.toolParser),
          rewriteCheck: t.rewriteCheck,
          model: cfg.model,
          apiKey,
          requestTimeoutSec: p.requestTimeoutSec,
          sampling: p.sampling,
        });
      }
      return endpointPolicy({
        baseUrl: p.url,
        model: cfg.model,
        apiKey,
        tokenIds: p.tokenIds,
        requestTimeoutSec: p.requestTimeoutSec,
        sampling: p.sampling,
      });
    }
  }
}

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${Deno.pid}`;
  Deno.writeTextFileSync(tmp, text);
  Deno.renameSync(tmp, path);
}

/** Runs (or resumes) an eval into `cfg.out`. */
export async function evaluate(cfg: EvalConfig, hooks: EvalHooks = {}): Promise<EvalResult> {
  if (cfg.profilesModule) await loadProfilesModule(cfg.profilesModule);
  const overlays: LoadedOverlay[] = [];
  for (const file of cfg.overlays) {
    try {
      overlays.push(await readOverlay(file));
    } catch (e) {
      throw new UsageError(`--overlay: ${(e as Error).message}`);
    }
  }
  for (
    const p of [cfg.profile, ...Object.keys(cfg.profiles ?? {}), ...Object.keys(cfg.profileChatTemplateKwargs ?? {})]
  ) {
    if (p) {
      try {
        resolveProfileName(p);
      } catch (e) {
        throw new UsageError(`--profile${cfg.profiles ? "s" : ""}: ${(e as Error).message}`);
      }
    }
  }
  const loaded = await loadRows(cfg.tasks);
  const rows = cfg.cross && cfg.profiles ? crossRows(loaded, cfg.profiles) : loaded;

  // A broken task is bad input: it fails the run now, naming its file and field, not each of its episodes.
  taskSetNotes(await Promise.all([...new Set(rows.map((r) => r.task_dir))].map(loadTask)));
  const policy = await policyFor(cfg);
  if (cfg.policy.kind === "script") {
    const turns = await readScriptFile(cfg.policy.path);
    checkScript(cfg.policy.path, turns, profilesDrawn(rows, cfg.profile, cfg.profiles));
  }
  // An endpoint that cannot even list its models fails the run now, in one line, rather than every episode.
  let model = cfg.model;
  if (cfg.policy.kind === "endpoint" && policy.model) {
    const key = cfg.policy.apiKeyEnv ? Deno.env.get(cfg.policy.apiKeyEnv) : undefined;
    await checkEndpoint(
      cfg.policy.url,
      normalizeBaseUrl(cfg.policy.url),
      key ? { authorization: `Bearer ${key}` } : {},
    );
    try {
      model = await policy.model();
    } catch (e) {
      throw new InfraError(`--endpoint ${cfg.policy.url}: ${(e as Error).message}`, "endpoint");
    }
  }
  // One client per engine for the whole run: its probe and its sweep of dead runs' boxes go at once.
  const hosts = (cfg.hosts.length ? cfg.hosts : [{}]).map((h) => ({
    ...h,
    runtime: createRuntime(cfg.runtime, { host: h.host }),
  }));
  for (const { runtime } of hosts) {
    const [answers] = await Promise.all([runtime.ping(), runtime.sweepOrphans().catch(() => [])]);
    if (!answers) throw new UsageError(`eval: no ${cfg.runtime} engine answers at ${runtime.engine}`);
  }

  const out = resolve(cfg.out);
  await refuseForeignFolder(cfg.out, out);
  await Deno.mkdir(out, { recursive: true });
  const paths = {
    run: join(out, "run.json"),
    traj: join(out, "trajectories.jsonl"),
    summary: join(out, "summary.json"),
    report: join(out, "report.html"),
    viewer: join(out, "viewer.html"),
  };
  if (cfg.redo) {
    for (const p of Object.values(paths)) await Deno.remove(p).catch(() => {});
  }
  const settings = fingerprint(cfg, overlays);
  let startedAt: string | undefined;
  try {
    const prevRun: unknown = JSON.parse(await Deno.readTextFile(paths.run));
    const prev = isRecord(prevRun) ? prevRun.settings : undefined;
    if (isRecord(prevRun) && typeof prevRun.started_at === "string") startedAt = prevRun.started_at;
    // Both sides' keys: a setting present in only one of them (tokens, cross) differs too.
    for (const k of new Set([...Object.keys(settings), ...Object.keys(isRecord(prev) ? prev : {})])) {
      if (!isRecord(prev)) break; // not a run's folder
      if (JSON.stringify(prev[k] ?? null) !== JSON.stringify(settings[k] ?? null)) {
        throw new UsageError(
          `--out ${cfg.out} holds a run with other settings (${k}: ${JSON.stringify(prev[k] ?? null)} → ${
            JSON.stringify(settings[k] ?? null)
          }); use --redo or another --out`,
        );
      }
    }
    // k is recorded beside the settings: another k would mix samples of two runs in one summary.
    if (isRecord(prevRun) && typeof prevRun.k === "number" && prevRun.k !== cfg.k) {
      throw new UsageError(
        `--out ${cfg.out} holds a run with other settings (k: ${prevRun.k} → ${cfg.k}); use --redo or another --out`,
      );
    }
  } catch (e) {
    if (e instanceof UsageError) throw e;
  }
  const now = new Date().toISOString();
  const tasksGit = await gitRevision(cfg.tasks);
  const record: RunRecord = {
    format: RUN_FORMAT,
    settings,
    k: cfg.k,
    cross: cfg.cross,
    ...(model ? { model } : {}),
    pgs_version: PGS_VERSION,
    ...(tasksGit ? { tasks_git_revision: tasksGit } : {}),
    started_at: startedAt ?? now,
    ...(startedAt ? { resumed_at: now } : {}),
  };
  writeAtomic(paths.run, JSON.stringify(record, null, 2) + "\n");
  const weighted = Object.values(cfg.profiles ?? {}).filter((w) => w > 0).length;
  if (!cfg.cross && weighted > rows.length) {
    // Each row draws one profile for its k samples: fewer rows than profiles leave some profile undrawn. Said once
    // the run will go ahead, so that a refused run's error stays its only line.
    warnOnce(
      `${rows.length} task${rows.length === 1 ? "" : "s"} for a mix of ${weighted} profiles: each task draws one ` +
        `profile for its samples, so some profiles run on no task (--cross runs every profile on every task)`,
      "mix-too-few-tasks",
    );
  }
  const header = runHeader({ ...record });

  const existing = readTrajectories(paths.traj);
  const rids = rowIds(rows);
  const ids = new Set(rids);
  const all: Trajectory[] = existing.filter((t) => ids.has(t.row_id) && t.sample < cfg.k);
  const done = new Set(latestById(all).filter((t) => t.reward !== null).map((t) => t.id));
  const expected = rows.length * cfg.k;
  const already = rids.flatMap((id) => Array.from({ length: cfg.k }, (_, s) => trajectoryId(id, s)))
    .filter((id) => done.has(id)).length;

  // The title `pgs view` gives the same run, from the run.json just written (read once, not at every flush).
  const title = runTitle(out, readRunInfo(out));
  const flush = () => {
    const mix = cfg.profiles && !cfg.cross ? Object.keys(cfg.profiles).filter((k) => cfg.profiles![k] > 0) : undefined;
    const summary = summarize(all, { k: cfg.k, expected, passThreshold: cfg.passThreshold, cross: cfg.cross, mix });
    writeAtomic(paths.summary, JSON.stringify(summary, null, 2) + "\n");
    writeAtomic(paths.report, reportHtml(summary, title, all, { viewer: "viewer.html", run: header }));
    writeAtomic(
      paths.viewer,
      viewerHtml(viewerData(all, { title, passThreshold: summary.pass_threshold, k: cfg.k }), {
        report: "report.html",
      }),
    );
    return summary;
  };
  hooks.onFlush?.(flush);
  const writer = new TrajectoryWriter(paths.traj);
  const progress = hooks.progress?.(expected, already) ?? new Progress(expected, already, cfg.passThreshold);
  let ran = 0;
  try {
    await runEpisodes(policy, rows, {
      profile: cfg.profile,
      profiles: cfg.profiles,
      profileSeed: cfg.seed,
      harnessModel: cfg.harnessModel,
      overlays,
      chatTemplateKwargs: cfg.chatTemplateKwargs,
      profileChatKwargs: cfg.profileChatTemplateKwargs,
      maxOutput: cfg.maxOutput,
      images: cfg.images,
      verifierMode: cfg.verifierMode,
      storageMb: cfg.storageMb,
    }, {
      k: cfg.k,
      maxTurns: cfg.maxTurns,
      maxConcurrent: cfg.maxConcurrent,
      maxStarting: cfg.maxStarting,
      hosts,
      runtime: cfg.runtime,
      cross: cfg.cross,
      workdirDiff: cfg.workdirDiff,
      skip: done,
      signal: hooks.signal,
      model: cfg.policy.kind === "endpoint" ? undefined : cfg.model,
      onEpisode: (t) => {
        writer.append(t);
        all.push(t);
        ran++;
        progress.episode(t);
      },
    });
  } catch (e) {
    if (e instanceof EngineDownError) {
      // What finished is kept, whole: its summary is written, and a re-run resumes once the engine answers again.
      flush();
      throw new EngineDownError(
        e.engine,
        e.stage,
        `${
          e.message.replace(/^.*\((.*)\)$/, "$1")
        }; ${ran} episode(s) finished now are kept in ${out}, re-run to resume`,
        e.kind,
      );
    }
    throw e;
  } finally {
    progress.close();
  }
  return { summary: flush(), out, ran, skipped: already };
}

/** The files a pgs eval folder holds; a folder with anything else is someone's, not a run's. */
const RUN_FILES = new Set(["run.json", "trajectories.jsonl", "summary.json", "report.html", "viewer.html"]);

/** Refuses `--out` when it is an existing folder with files, none of them a run's `run.json` (pgs would write beside them). */
async function refuseForeignFolder(given: string, out: string): Promise<void> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(out)) names.push(e.name);
  } catch {
    return; // not there yet (or not a folder: the mkdir says so)
  }
  if (names.length === 0 || names.includes("run.json")) return;
  if (names.every((n) => RUN_FILES.has(n) || n.startsWith(".") && n.includes(".partial"))) return;
  throw new UsageError(
    `--out ${given} is a folder holding other files (${names.slice(0, 3).join(", ")}${
      names.length > 3 ? ", ..." : ""
    }) and no pgs run (run.json); give a new or empty folder`,
  );
}
