/**
 * The docs' tables against what they describe: docs/cli.md's command block lists exactly the commands of
 * `cli/mod.ts` (each command's usage line, word for word; indented lines below one may add options its usage knows),
 * the built-in profile table of docs/profiles.md lists exactly the registered built-ins with their default versions,
 * and docs/audit.md's tables list the exploit battery and its fixes. A failure prints the text the table should hold.
 */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { COMMANDS } from "../cli/mod.ts";
import { BATTERY, HINTS } from "../lib/harbor/audit/battery.ts";
import { ProfileRegistry } from "../lib/harness/registry.ts";
import { registerBuiltins } from "../profiles/mod.ts";

const ROOT = resolve(import.meta.dirname!, "..");

/** The lines of `markdown` from the heading `heading` (exact line) to the next heading of the same or a higher level. */
function section(markdown: string, heading: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = heading.indexOf(" ");
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && l.indexOf(" ") <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The lines of the first fenced code block among `lines`. */
function firstFence(lines: string[]): string[] {
  const open = lines.findIndex((l) => l.startsWith("```"));
  const close = lines.findIndex((l, i) => i > open && l.startsWith("```"));
  if (open < 0 || close < 0) throw new Error("no fenced code block");
  return lines.slice(open + 1, close);
}

/** The page that lists the commands, and the heading of its command block. */
const CLI_DOC = join(ROOT, "docs", "cli.md"), CLI_HEADING = "## Commands";

/** The command lines of a CLI block: those that start with `pgs ` and name a command (not `pgs --help`). */
function cliCommands(doc: string, heading = CLI_HEADING): string[] {
  return firstFence(section(doc, heading)).filter((l) => l.startsWith("pgs ") && !l.startsWith("pgs -"));
}

/** Each command's usage line as the docs write it: the usage's first line without its `Usage: `. */
function usageLines(): string[] {
  return COMMANDS.map((c) => c.usage.split("\n")[0].replace(/^Usage: /, ""));
}

/** The rows of a markdown table among `lines` (the first table), each a list of trimmed cells; no header, no rule. */
function tableRows(lines: string[]): string[][] {
  const start = lines.findIndex((l) => l.startsWith("|"));
  if (start < 0) throw new Error("no table");
  const rows: string[][] = [];
  for (const l of lines.slice(start + 2)) {
    if (!l.startsWith("|")) break;
    rows.push(l.split("|").slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

/** `name@version` and whether it is its name's default, for every built-in profile, in registration order. */
function builtinDefaults(): [string, boolean][] {
  const reg = new ProfileRegistry();
  registerBuiltins(reg);
  return reg.names().map((full) => {
    const [name, version] = full.split("@");
    return [full, reg.defaultVersion(name) === version];
  });
}

Deno.test("docs: docs/cli.md's command block lists every command of cli/mod.ts, each as its usage line", async () => {
  const listed = cliCommands(await Deno.readTextFile(CLI_DOC));
  const usages = usageLines();
  const missing = usages.filter((u) => !listed.includes(u));
  const stale = listed.filter((l) => !usages.includes(l));
  assert.deepEqual(
    { missing, stale },
    { missing: [], stale: [] },
    `docs/cli.md "${CLI_HEADING}": lines to add (missing) and to drop (stale); the block's command lines should be:\n` +
      usages.join("\n"),
  );
  assert.equal(new Set(listed).size, listed.length, "a command listed twice");
});

Deno.test("docs: docs/cli.md's continuation lines under a command name only options that command has", async () => {
  const block = firstFence(section(await Deno.readTextFile(CLI_DOC), CLI_HEADING));
  const stale: string[] = [];
  let usage: string | undefined;
  for (const line of block) {
    if (line.startsWith("pgs ")) {
      usage = COMMANDS.find((c) => c.usage.split("\n")[0] === `Usage: ${line}`)?.usage;
    } else if (/^\s/.test(line) && usage !== undefined) {
      for (const [flag] of line.matchAll(/--[a-z][a-z-]*/g)) {
        if (!new RegExp(`${flag}(?![a-z-])`).test(usage)) stale.push(`${flag} in "${line.trim()}"`);
      }
    }
  }
  assert.deepEqual(stale, [], "options docs/cli.md lists that the command's usage does not know");
});

Deno.test("docs: docs/profiles.md's table lists exactly the registered built-ins and their defaults", async () => {
  const doc = await Deno.readTextFile(join(ROOT, "docs", "profiles.md"));
  const rows = tableRows(section(doc, "## Built-in profiles"));
  const table = rows.map(([p, d]) => [p.replace(/^`|`$/g, ""), d === "yes"] as [string, boolean]).sort();
  assert.deepEqual(table, builtinDefaults().sort(), "profile, default? (the table) against the registry");
});

Deno.test("docs: every name@version in the tables of the README and docs/ is a registered built-in", async () => {
  const pages = [
    join(ROOT, "README.md"),
    ...[...Deno.readDirSync(join(ROOT, "docs"))]
      .filter((e) => e.name.endsWith(".md")).map((e) => join(ROOT, "docs", e.name)),
  ];
  const text = (await Promise.all(pages.map((p) => Deno.readTextFile(p)))).join("\n");
  const known = new Set(builtinDefaults().map(([p]) => p));
  const cited = [...text.matchAll(/^\| `([a-z0-9-]+@[^`+]+)`/gm)].map((m) => m[1]);
  assert.ok(cited.length > 0, "docs/profiles.md's edit-rule table names profiles");
  assert.deepEqual(cited.filter((p) => !known.has(p)), []);
});

Deno.test("docs: the helpers read a section, its code block and its table", () => {
  const md = "# t\n## A\ntext\n```\npgs x\n  more\npgs -h\n```\n| a | b |\n| - | - |\n| `p@1` | yes |\n\n## B\n| z |\n";
  const a = section(md, "## A");
  assert.deepEqual(firstFence(a), ["pgs x", "  more", "pgs -h"]);
  assert.deepEqual(cliCommands(md.replace("## A", "## Commands")), ["pgs x"]);
  assert.deepEqual(tableRows(a), [["`p@1`", "yes"]]);
  assert.throws(() => section(md, "## C"), /no heading/);
});

Deno.test("docs: docs/audit.md's tables list the battery (name, description, fix) and every fix, in order", async () => {
  const lines = section(
    await Deno.readTextFile(join(ROOT, "docs", "audit.md")),
    "# Auditing a task set: `pgs harbor audit`",
  );
  const battery = tableRows(lines);
  assert.deepEqual(
    battery,
    BATTERY.map((x) => [`\`${x.name}\``, x.description, x.hint]),
    "docs/audit.md rows against lib/harbor/audit/battery.ts",
  );
  const afterFirst = lines.slice(lines.findIndex((l) => l.startsWith("|")) + battery.length + 2);
  assert.deepEqual(tableRows(afterFirst).map(([k]) => k), Object.keys(HINTS), "one row per fix, in HINTS' order");
});
