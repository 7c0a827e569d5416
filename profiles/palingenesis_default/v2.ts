/**
 * palingenesis-default@2: the default dialect, modelled on nanocode (1rgs/nanocode @ b009d3d): read, write, edit,
 * glob, grep and bash with make_schema's schemas; the episode ends at a reply without tool calls, which is the answer.
 *
 * The file tools run our own Python equivalent of nanocode's functions (`NANOCODE_PY`) with the container's python3 in
 * the working directory, so results and exception wording are Python's. bash runs `/bin/sh -c` (as
 * `subprocess.Popen(cmd, shell=True)` does) with stderr merged, text-mode newlines, `.strip()` and `(empty)`.
 */
import { shQuote } from "../../lib/runtime/channel.ts";
import type { Session } from "../../lib/harness/types.ts";
import { pyRepr, pyType } from "../../lib/harness/lang/python_text.ts";
import { pyStrip } from "../../lib/harness/lang/python_values.ts";
import { fnSchema, type HarnessProfile, type ToolSpec } from "../../lib/harness/types.ts";
// NANOCODE_PY (nanocode.py beside this file): the file tools as Python run by the container's python3, our own small
// implementation of nanocode's read, write, edit, glob and grep (1rgs/nanocode@b009d3dbedf1:nanocode.py), so that
// results and exception wording are Python's. Usage: `python3 -c NANOCODE_PY <tool>` with the arguments as one JSON
// object on stdin; prints the result as one JSON string (ASCII) on stdout. Any exception, including a missing key
// (`'path'`), becomes `error: <exception>` as nanocode's run_tool words it.
import { NANOCODE_PY } from "./nanocode_py.ts";

/** The message of a file tool when the image has no python3 (the design's wording, docs/spec-notes.md). */
export const NO_PYTHON3 = "error: python3 is not installed in the container";
const NO_PY_MARK = "PGS-NANOCODE-NO-PYTHON3";
/** Seconds a file tool may run; nanocode itself has no limit (approx.). */
const FILE_TOOL_TIMEOUT = 300;

/** JSON with every non-ASCII character escaped, so it travels as one plain ASCII line. */
function asciiJson(v: unknown): string {
  return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Runs one of the Python file tools in the working directory and returns its result text. */
async function runPython(s: Session, tool: string, args: Record<string, unknown>): Promise<string> {
  const script = `command -v python3 >/dev/null 2>&1 || { echo ${NO_PY_MARK} >&2; exit 127; }\n` +
    `python3 -c ${shQuote(NANOCODE_PY)} ${tool} <<'PGS_NANOCODE_ARGS'\n${asciiJson(args)}\nPGS_NANOCODE_ARGS`;
  const r = await s.exec(script, { shell: "sh", timeout: FILE_TOOL_TIMEOUT });
  if (r.exitCode === 127 && r.stderr.includes(NO_PY_MARK)) return NO_PYTHON3;
  if (r.timedOut) return `error: timed out after ${FILE_TOOL_TIMEOUT}s`; // approx.: nanocode has no limit
  try {
    const out = JSON.parse(r.stdout);
    if (typeof out === "string") return out;
  } catch { /* python3 died before printing its result */ }
  // approx.: the interpreter itself failed (killed, out of memory, broken install)
  return `error: ${pyStrip(r.stderr).split("\n").pop() || `python3 exited ${r.exitCode}`}`;
}

function fileTool(name: string, description: string, props: Record<string, string>, required: string[]): ToolSpec {
  const properties = Object.fromEntries(Object.entries(props).map(([k, t]) => [k, { type: t }]));
  return {
    schema: fnSchema(name, description, properties, required),
    bind: (s, a) => runPython(s, name, a),
  };
}

/**
 * The shell script for `subprocess.Popen(cmd, shell=True)`: `/bin/sh -c cmd` for a string; for a list (or a dict's
 * keys) `/bin/sh -c item0 item1 ...`; otherwise Python's TypeError. Returns `{ error }` for what Popen rejects.
 */
function popenScript(cmd: unknown): { script: string } | { error: string } {
  let argv: unknown[];
  if (typeof cmd === "string") argv = [cmd];
  else if (Array.isArray(cmd)) argv = cmd;
  else if (cmd !== null && typeof cmd === "object") argv = Object.keys(cmd);
  else return { error: `error: '${pyType(cmd)}' object is not iterable` };
  for (const a of argv) {
    if (typeof a !== "string") return { error: `error: expected str, bytes or os.PathLike object, not ${pyType(a)}` };
    if (a.includes("\0")) return { error: "error: embedded null byte" };
  }
  return { script: `exec /bin/sh -c ${argv.map((a) => shQuote(a as string)).join(" ")}` };
}

/** The bash tool: nanocode's run_bash (stderr merged, text mode, strip, `(empty)`, timeout note). */
async function runBash(s: Session, a: Record<string, unknown>): Promise<string> {
  if (!("cmd" in a)) return "error: 'cmd'";
  const p = popenScript(a.cmd);
  if ("error" in p) return p.error;
  const timeout = s.profile.execTimeout;
  const r = await s.exec(p.script, { shell: "sh", merge: true, timeout });
  // The design drops the partial output of a timed-out command.
  if (r.timedOut) return `(timed out after ${timeout}s)`;
  // Text mode: universal newlines turn \r\n and \r into \n.
  const out = pyStrip(r.output.replace(/\r\n?/g, "\n"));
  return out || "(empty)";
}

/** The wording of a call whose arguments are not a JSON object (nanocode always gets a dict; approx.). */
function badArguments(name: string, raw: string, error: string): string {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return `error: ${error}`; // approx.: not Python's JSONDecodeError wording
  }
  // Python indexing a non-dict (glob first calls args.get).
  const t = pyType(v);
  if (name === "glob") return `error: '${t}' object has no attribute 'get'`;
  if (t === "list") return "error: list indices must be integers or slices, not str";
  if (t === "str") return "error: string indices must be integers, not 'str'";
  return `error: '${t}' object is not subscriptable`;
}

/** The profile. */
export function palingenesisDefaultV2(): HarnessProfile {
  return {
    name: "palingenesis-default",
    version: "2",
    system: "Concise coding assistant. cwd: {workdir}",
    user: "{instruction}",
    protocol: { kind: "native" },
    stop: { kind: "no_call" },
    answer: { kind: "last_text" },
    execTimeout: 30,
    shell: { tool: "bash", arg: "cmd" },
    chatTemplateKwargs: null,
    context: "none: nanocode keeps the whole history and never truncates tool output",
    unknownTool: (name) => `error: ${pyRepr(name)}`,
    badArguments,
    emulates: {
      harness: "nanocode",
      version: "b009d3d",
      sources: ["1rgs/nanocode@b009d3dbedf1:nanocode.py"],
    },
    tools: [
      fileTool(
        "read",
        "Read file with line numbers (file path, not directory)",
        { path: "string", offset: "integer", limit: "integer" },
        ["path"],
      ),
      fileTool("write", "Write content to file", { path: "string", content: "string" }, ["path", "content"]),
      fileTool(
        "edit",
        "Replace old with new in file (old must be unique unless all=true)",
        { path: "string", old: "string", new: "string", all: "boolean" },
        ["path", "old", "new"],
      ),
      fileTool("glob", "Find files by pattern, sorted by mtime", { pat: "string", path: "string" }, ["pat"]),
      fileTool("grep", "Search files for regex pattern", { pat: "string", path: "string" }, ["pat"]),
      {
        schema: fnSchema("bash", "Run shell command", { cmd: { type: "string" } }, ["cmd"]),
        bind: runBash,
      },
    ],
  };
}
