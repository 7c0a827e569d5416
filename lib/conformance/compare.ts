/** Compares recorded requests with the profile's replayed requests, request by request. */
import { installFolder } from "./adopt.ts";
import { LEFT_OUT } from "./reduce.ts";
import { harnessSettings } from "./settings.ts";
import type { ChatMessage, ToolSchema } from "../harness/types.ts";
import type { RecordedRequest, Recording } from "./load_recording.ts";
import { contentShape, contentText, type NormalizeOptions, normalizeText } from "./normalize.ts";

/** `same`, a difference, or a paraphrase (system prompt, long tool descriptions: reported, not counted). */
export type Status = "same" | "diff" | "paraphrase";

/** One compared aspect. */
export interface Finding {
  aspect: string;
  status: Status;
  expected?: string;
  actual?: string;
}

/** The findings for one request index. */
export interface RequestResult {
  index: number;
  findings: Finding[];
}

/** A request as the profile would send it: the history and the tool schemas. */
export interface Snapshot {
  messages: ChatMessage[];
  tools: ToolSchema[];
}

/** What a replay gives back. */
export interface ReplayResult {
  /** Snapshot k: the profile's request k (0 after `begin`, k after k steps), while the episode runs. */
  snapshots: Snapshot[];
  /** The step index after which the profile's stop rule ended the episode, if it did within the script. */
  doneAfter?: number;
  /** Whether the final (unrecorded) turn, when known and replayed, ended the episode. */
  finalDone?: boolean;
  /** The container's working directory. */
  workdir: string;
}

/** The whole comparison. */
export interface ConformanceReport {
  profile: string;
  /** The first recording, when two recordings were compared (`compareRecordings`; `profile` is then empty). */
  baseline?: string;
  recording: string;
  requests: RequestResult[];
  end: Finding;
  differences: number;
  paraphrases: number;
}

/** Long descriptions are paraphrased by design, not compared. */
export const LONG_DESCRIPTION = 200;

/** Structural equality; object key order does not matter, array order does. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>, bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined).sort();
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined).sort();
  return deepEqual(ak, bk) && ak.every((k) => deepEqual(ao[k], bo[k]));
}

/** A short excerpt around the first difference of two strings. */
export function excerpts(a: string, b: string, width = 80): [string, string] {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 20);
  const cut = (s: string) =>
    (from > 0 ? "…" : "") + JSON.stringify(s.slice(from, from + width)).slice(1, -1) +
    (s.length > from + width ? "…" : "");
  return [cut(a), cut(b)];
}

function text(aspect: string, expected: string, actual: string, long = false): Finding {
  if (expected === actual) return { aspect, status: "same" };
  const [e, a] = excerpts(expected, actual);
  return { aspect, status: long ? "paraphrase" : "diff", expected: e, actual: a };
}

function value(aspect: string, expected: unknown, actual: unknown): Finding {
  if (deepEqual(expected, actual)) return { aspect, status: "same" };
  const [e, a] = excerpts(JSON.stringify(expected) ?? "undefined", JSON.stringify(actual) ?? "undefined", 120);
  return { aspect, status: "diff", expected: e, actual: a };
}

/** Tool names and order, parameter schemas (exact), descriptions (long ones: paraphrase). */
export function compareTools(recorded: ToolSchema[], actual: ToolSchema[], norm: NormalizeOptions): Finding[] {
  const names = (ts: ToolSchema[]) => ts.map((t) => t.function?.name);
  const omitted = new Set(norm.omittedTools ?? []);
  const expected = recorded.filter((t) => !omitted.has(t.function?.name));
  const out: Finding[] = [value("tools: names and order", names(expected), names(actual))];
  const left = names(recorded).filter((n) => omitted.has(n));
  if (left.length) out.push({ aspect: "tools left out by design", status: "paraphrase", expected: left.join(", ") });
  for (const e of expected) {
    const a = actual.find((t) => t.function?.name === e.function.name);
    if (!a) continue;
    const n = e.function.name;
    out.push(value(`tool ${n}: parameters`, e.function.parameters, a.function.parameters));
    const ed = normalizeText(e.function.description ?? "", norm),
      ad = normalizeText(a.function.description ?? "", norm);
    // A description a fixture left out (reduce.ts) was long upstream prose: a paraphrase, like any long one.
    const long = !norm.exact && (Math.max(ed.length, ad.length) > LONG_DESCRIPTION || LEFT_OUT.test(ed));
    out.push(text(`tool ${n}: description`, ed, ad, long));
  }
  return out;
}

function userMessage(eu: ChatMessage | undefined, au: ChatMessage | undefined, norm: NormalizeOptions): Finding[] {
  const out: Finding[] = [value("user message: shape", contentShape(eu?.content), contentShape(au?.content))];
  const para = new Set(norm.paraphrasedParts ?? []);
  if (
    para.size && Array.isArray(eu?.content) && Array.isArray(au?.content) && eu.content.length === au.content.length
  ) {
    // Part by part: the parts a profile paraphrases by design are reported, not counted.
    eu.content.forEach((p, k) => {
      const [e, a] = [normalizeText(contentText([p]), norm), normalizeText(contentText([au.content![k]]), norm)];
      out.push(text(`user message: part ${k + 1} text`, e, a, para.has(k) && !norm.exact));
    });
    return out;
  }
  out.push(
    text(
      "user message: text",
      normalizeText(contentText(eu?.content), norm),
      normalizeText(contentText(au?.content), norm),
    ),
  );
  return out;
}

/**
 * The first request's messages: their roles, every system message (a paraphrase by design), every message before the
 * user's turn (exact unless `paraphrasedMessages` names it), then the user's turn (the last user message).
 */
function firstMessages(expected: ChatMessage[], actual: ChatMessage[], norm: NormalizeOptions): Finding[] {
  const out: Finding[] = [];
  const eLast = expected.findLastIndex((m) => m.role === "user");
  const aLast = actual.findLastIndex((m) => m.role === "user");
  const eHead = expected.slice(0, Math.max(0, eLast)), aHead = actual.slice(0, Math.max(0, aLast));
  const es = eHead.filter((m) => m.role === "system"), as = aHead.filter((m) => m.role === "system");
  if (eHead.length > 1 || aHead.length > 1) {
    out.push(value("first messages: roles", eHead.map((m) => m.role), aHead.map((m) => m.role)));
  } else if (es.length !== as.length) {
    out.push({
      aspect: "system prompt: present",
      status: "diff",
      expected: String(!!es.length),
      actual: String(!!as.length),
    });
  }
  const para = new Set(norm.paraphrasedMessages ?? []);
  for (let i = 0; i < Math.min(eHead.length, aHead.length); i++) {
    const [e, a] = [eHead[i], aHead[i]];
    if (e.role !== a.role) break;
    const label = e.role === "system" ? (i === 0 ? "system prompt" : `system message ${i + 1}`) : `message ${i + 1}`;
    const long = (e.role === "system" || para.has(i)) && !norm.exact;
    out.push(
      text(label, normalizeText(contentText(e.content), norm), normalizeText(contentText(a.content), norm), long),
    );
  }
  out.push(...userMessage(expected[eLast], actual[aLast], norm));
  out.push(...afterUser(expected.slice(eLast + 1), actual.slice(aLast + 1), norm));
  return out;
}

/**
 * Messages after the user's turn in the first request (claude-code's environment, a system-role message): their
 * roles, then each one's text, system ones as paraphrase. Nothing when neither side has any.
 */
function afterUser(expected: ChatMessage[], actual: ChatMessage[], norm: NormalizeOptions): Finding[] {
  if (!expected.length && !actual.length) return [];
  const out = [value("after the user's turn: roles", expected.map((m) => m.role), actual.map((m) => m.role))];
  for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
    const [e, a] = [expected[i], actual[i]];
    if (e.role !== a.role) break;
    const [et, at] = [normalizeText(contentText(e.content), norm), normalizeText(contentText(a.content), norm)];
    out.push(text(`after the user's turn: ${e.role} message ${i + 1}`, et, at, e.role === "system" && !norm.exact));
  }
  return out;
}

function newMessages(expected: ChatMessage[], actual: ChatMessage[], norm: NormalizeOptions): Finding[] {
  const out: Finding[] = [value("new messages: roles", expected.map((m) => m.role), actual.map((m) => m.role))];
  let tools = 0;
  for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
    const e = expected[i], a = actual[i];
    if (e.role !== a.role) break;
    if (e.role === "assistant") {
      out.push(value("assistant echo: content shape", contentShape(e.content), contentShape(a.content)));
      out.push(value("assistant echo: tool calls", e.tool_calls?.length ?? 0, a.tool_calls?.length ?? 0));
    } else {
      const label = e.role === "tool" ? `tool result ${++tools}` : `${e.role} message`;
      out.push(value(`${label}: shape`, contentShape(e.content), contentShape(a.content)));
      out.push(
        text(
          `${label}: text`,
          normalizeText(contentText(e.content), norm),
          normalizeText(contentText(a.content), norm),
        ),
      );
    }
  }
  return out;
}

/**
 * Compares recorded request `k` with the profile's snapshot `k` (`prev*` are request k-1's history lengths); tools
 * unchanged on both sides since request k-1 are not compared again.
 */
export function compareRequest(
  index: number,
  expected: RecordedRequest,
  actual: Snapshot | undefined,
  prevExpected: number,
  prevActual: number,
  norm: NormalizeOptions,
  prev?: { expected: RecordedRequest; actual?: Snapshot },
): RequestResult {
  if (!actual) {
    return {
      index,
      findings: [{ aspect: "request", status: "diff", expected: `request ${index}`, actual: "episode already ended" }],
    };
  }
  const findings = prev && deepEqual(prev.expected.tools, expected.tools) && deepEqual(prev.actual?.tools, actual.tools)
    ? [{ aspect: `tools: as in request ${index - 1}`, status: "same" as const }]
    : compareTools(expected.tools ?? [], actual.tools, norm);
  findings.push(
    ...(index === 0
      ? firstMessages(expected.messages, actual.messages, norm)
      : newMessages(expected.messages.slice(prevExpected), actual.messages.slice(prevActual), norm)),
  );
  return { index, findings };
}

/** Where the episode ends: the recording's last request vs the profile's stop rule. */
export function compareEnd(requests: number, r: ReplayResult): Finding {
  const aspect = "episode end";
  const want = `last request ${requests - 1}`;
  if (r.doneAfter !== undefined && r.doneAfter < requests - 1) {
    return { aspect, status: "diff", expected: want, actual: `done after the answer to request ${r.doneAfter}` };
  }
  if (r.finalDone === undefined) {
    return { aspect, status: "same", expected: want, actual: `${want} (final answer not recorded)` };
  }
  return r.finalDone
    ? { aspect, status: "same", expected: want, actual: `done after the answer to request ${requests - 1}` }
    : { aspect, status: "diff", expected: `done after the answer to request ${requests - 1}`, actual: "still running" };
}

/** The profile's generation settings against the first request's own fields of the same names (its wire's). */
export function compareGeneration(generation: Record<string, unknown>, first: RecordedRequest): Finding[] {
  const body = first.wire ?? first;
  return Object.entries(generation).map(([k, v]) => value(`generation: ${k}`, body[k], v));
}

/** Compares a whole recording with its replay. */
export function compareRecording(
  profile: string,
  recording: string,
  requests: RecordedRequest[],
  replay: ReplayResult,
  cwd: string | undefined,
  omittedTools: string[] = [],
  paraphrasedParts: number[] = [],
  paraphrasedMessages: number[] = [],
  generation?: Record<string, unknown>,
  exact = false,
  paths: [string, string][] = [],
): ConformanceReport {
  const norm: NormalizeOptions = {
    workdirs: [cwd ?? "", replay.workdir],
    omittedTools,
    paraphrasedParts,
    paraphrasedMessages,
    exact,
    paths,
  };
  const results: RequestResult[] = requests.map((req, k) =>
    compareRequest(
      k,
      req,
      replay.snapshots[k],
      k ? requests[k - 1].messages.length : 0,
      k ? replay.snapshots[k - 1]?.messages.length ?? 0 : 0,
      norm,
      k ? { expected: requests[k - 1], actual: replay.snapshots[k - 1] } : undefined,
    )
  );
  if (generation && results[0]) results[0].findings.push(...compareGeneration(generation, requests[0]));
  const end = compareEnd(requests.length, replay);
  const all = [...results.flatMap((r) => r.findings), end];
  return {
    profile,
    recording,
    requests: results,
    end,
    differences: all.filter((f) => f.status === "diff").length,
    paraphrases: all.filter((f) => f.status === "paraphrase").length,
  };
}

/**
 * What differs between two captures of one harness on two machines or installs: the scratch HOME, the harness's
 * install folder (its version is in the path), and the working directory as a file name (`-tmp-x-workdir`, qwen's
 * project folder).
 */
function machinePaths(r: Recording): [string, string][] {
  const out: [string, string][] = [];
  if (r.env?.HOME) out.push([r.env.HOME, "{home}"]);
  const install = r.argv?.[0] ? installFolder(r.argv[0]) : undefined;
  if (install && install !== "/") out.push([install, "{install}"]);
  if (r.cwd) out.push([r.cwd.replaceAll("/", "-"), "{workdir_name}"]);
  return out;
}

/**
 * Two recordings of a harness (two versions, or one version with two model names) made with the same script: what
 * the second sends differently, request by request, every text compared exactly (system prompts and long descriptions
 * included), then the settings beside messages and tools and the number of requests.
 */
export function compareRecordings(baseline: Recording, candidate: Recording): ConformanceReport {
  const n = Math.min(baseline.requests.length, candidate.requests.length);
  const replay: ReplayResult = {
    snapshots: candidate.requests.slice(0, n).map((r) => ({ messages: r.messages, tools: r.tools ?? [] })),
    workdir: candidate.cwd ?? "",
  };
  const report = compareRecording(
    "",
    candidate.dir,
    baseline.requests.slice(0, n),
    replay,
    baseline.cwd,
    [],
    [],
    [],
    undefined,
    true,
    [baseline, candidate].flatMap(machinePaths),
  );
  if (n) {
    const [b, c] = [harnessSettings(baseline.requests[0]), harnessSettings(candidate.requests[0])];
    for (const k of new Set([...Object.keys(b), ...Object.keys(c)])) {
      report.requests[0].findings.push(value(`settings: ${k}`, b[k], c[k]));
    }
  }
  report.baseline = baseline.dir;
  report.end = value("requests with tools", baseline.requests.length, candidate.requests.length);
  const all = [...report.requests.flatMap((r) => r.findings), report.end];
  report.differences = all.filter((f) => f.status === "diff").length;
  report.paraphrases = all.filter((f) => f.status === "paraphrase").length;
  return report;
}
