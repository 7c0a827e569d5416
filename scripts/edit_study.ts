/**
 * The edit-rule study on the examples, with scripted policies (no model): under each profile with a forgiving edit
 * and under its `+exact-edit` variant, the same script fixes fix-word-count with near-miss edits (the near-miss each
 * harness is known to forgive: trailing spaces on old text, or curly quotes for claude-code), then replies. It prints
 * the rewards side by side. This shows the variants really differ; it is not a claim about models.
 *
 *   deno run -A scripts/edit_study.ts [--out DIR] [--docker-host H]
 */
import { join } from "node:path";

/** The fix, as three replacements (the oracle's fix of wordcount.py and wc.py). */
const EDITS: { file: string; old: string; neu: string }[] = [
  {
    file: "wordcount.py",
    old: 'def tokenize(text):\n    """Return the words of text, in order."""\n' +
      '    return [word for word in text.split(" ") if word]',
    neu: 'def tokenize(text):\n    """Return the words of text, in order, lower-cased."""\n' +
      `    return __import__("re").findall(r"[^\\W_]+(?:'[^\\W_]+)*", text.lower())`,
  },
  {
    file: "wordcount.py",
    old:
      "    ranked = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)\n    return ranked[:n]",
    neu: "    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))\n    return ranked[:max(n, 0)]",
  },
  {
    file: "wc.py",
    old: "    for word, count in top_words(text):",
    neu: "    for word, count in top_words(text, args.n):",
  },
];

/** The near-miss: two trailing spaces on every line of old text; curly quotes where the file has `"`. */
const trailing = (s: string) => s.split("\n").map((l) => `${l}  `).join("\n");
const curly = (s: string) => s.replaceAll('"""', "\u201c\u201c\u201c");

type Call = { name: string; arguments: Record<string, unknown> };
/** A script turn: native tool calls, or a text protocol's reply. */
type Turn = { tool_calls: Call[] } | { content: string };
const calls = (...c: Call[]): Turn[] => c.map((x) => ({ tool_calls: [x] }));

/** Each profile's turns for one replacement, with its near-miss. */
const PROFILES: Record<string, (e: (typeof EDITS)[number]) => Turn[]> = {
  "opencode@1.18.33": (e) =>
    calls({
      name: "edit",
      arguments: { filePath: `/workdir/${e.file}`, oldString: trailing(e.old), newString: e.neu },
    }),
  "pi@0.73.1": (e) =>
    calls({ name: "edit", arguments: { path: e.file, edits: [{ oldText: trailing(e.old), newText: e.neu }] } }),
  "hermes@main-e6899c8": (e) =>
    calls({
      name: "patch",
      arguments: { mode: "replace", path: e.file, old_string: trailing(e.old), new_string: e.neu },
    }),
  "gemini-cli@0.61.0": (e) =>
    calls({
      name: "replace",
      arguments: { file_path: e.file, instruction: "fix", old_string: trailing(e.old), new_string: e.neu },
    }),
  "claude-code@2.1.332": (e) =>
    calls(
      { name: "Read", arguments: { file_path: `/workdir/${e.file}` } },
      { name: "Edit", arguments: { file_path: `/workdir/${e.file}`, old_string: curly(e.old), new_string: e.neu } },
    ),
  "small-agent@1": (e) => [{
    content: `\`\`\`action\nedit ${e.file}\nFind:\n${trailing(e.old)}\nReplace:\n${e.neu}\n\`\`\``,
  }],
};

const args = Deno.args;
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const out = flag("--out") ?? await Deno.makeTempDir({ prefix: "pgs-edit-study-" });
await Deno.mkdir(out, { recursive: true });
const host = flag("--docker-host");
const root = join(import.meta.dirname!, "..");

const rows: [string, string, string][] = [];
for (const [profile, turnsOf] of Object.entries(PROFILES)) {
  const turns: Turn[] = [...EDITS.flatMap(turnsOf), { content: "Fixed." }];
  const script = join(out, `${profile}.turns.json`);
  await Deno.writeTextFile(script, JSON.stringify(turns, null, 2));
  const rewards: string[] = [];
  for (const variant of ["", "+exact-edit"]) {
    const dir = join(out, `${profile}${variant}`);
    const argv = [
      "run",
      "-A",
      join(root, "main.ts"),
      "eval",
      "--tasks",
      join(root, "examples/tasks/fix-word-count"),
      "--policy",
      `script:${script}`,
      "--profile",
      profile + variant,
      "--out",
      dir,
      "--redo",
      ...(host ? ["--docker-host", host] : []),
    ];
    const r = await new Deno.Command(Deno.execPath(), { args: argv, stdout: "null", stderr: "inherit" }).output();
    if (!r.success) throw new Error(`pgs eval failed for ${profile}${variant}`);
    const line = (await Deno.readTextFile(join(dir, "trajectories.jsonl"))).trim().split("\n")[0];
    rewards.push(String(JSON.parse(line).reward));
  }
  rows.push([profile, rewards[0], rewards[1]]);
}
console.log("profile                 harness rule   +exact-edit");
for (const [p, a, b] of rows) console.log(`${p.padEnd(24)}${a.padEnd(15)}${b}`);
console.log(`(runs in ${out})`);
