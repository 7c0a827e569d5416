/**
 * Every relative link of the README, `docs/*.md` and `profiles/README.md` points at a file or folder that exists, and a
 * link with a `#fragment` at a heading of its page (GitHub's anchors: lowercased, punctuation dropped, spaces as dashes).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname!, "..");

/** The pages whose links are checked. */
function pages(): string[] {
  const docs = [...Deno.readDirSync(join(ROOT, "docs"))].filter((e) => e.isFile && e.name.endsWith(".md"));
  return [join(ROOT, "README.md"), join(ROOT, "profiles", "README.md"), ...docs.map((e) => join(ROOT, "docs", e.name))];
}

/** `markdown` without its fenced code blocks and inline code spans (links there are examples, not links). */
function prose(markdown: string): string {
  return markdown.replace(/^```[^]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** The targets of the inline links `[text](target)` of `markdown`, outside code. */
export function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
}

/** GitHub's anchor of a heading's text. */
export function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** The anchors of every heading of `markdown`, outside code blocks. */
function anchors(markdown: string): Set<string> {
  const text = markdown.replace(/^```[^]*?^```/gm, "");
  return new Set([...text.matchAll(/^#+ (.*)$/gm)].map((m) => anchor(m[1])));
}

Deno.test("docs: every relative link of the README and docs/ resolves, anchors included", async () => {
  const broken: string[] = [];
  for (const page of pages()) {
    const text = await Deno.readTextFile(page);
    for (const target of links(text)) {
      if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
      const [path, fragment] = target.split("#", 2);
      const file = path === "" ? page : resolve(dirname(page), decodeURIComponent(path));
      const where = `${page.slice(ROOT.length + 1)}: ${target}`;
      if (!existsSync(file)) broken.push(`${where} (no such file)`);
      else if (fragment !== undefined && file.endsWith(".md")) {
        if (!anchors(await Deno.readTextFile(file)).has(fragment)) broken.push(`${where} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("docs: the link checker reads links outside code and makes GitHub's anchors", () => {
  assert.deepEqual(links("see [a](a.md) and `[b](b.md)`\n```\n[c](c.md)\n```\n[d](d.md#x)"), ["a.md", "d.md#x"]);
  assert.equal(anchor("Looking at a run: `pgs view` and `report.html`"), "looking-at-a-run-pgs-view-and-reporthtml");
  assert.equal(
    anchor("Your own install, exactly: `pgs harness adopt` and `--overlay`"),
    "your-own-install-exactly-pgs-harness-adopt-and---overlay",
  );
  assert.equal(anchor("How an episode ends: `exit_status`"), "how-an-episode-ends-exit_status");
});
