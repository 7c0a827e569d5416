/** small-agent's test fixtures: a small project with rules files, and the step helpers its tests share. */
import assert from "node:assert/strict";
import type { ProfileEpisode } from "../../../lib/harness/profile_episode.ts";
import { smallAgent } from "../mod.ts";
import { makeTask, removeTask } from "../../../tests/docker_helpers.ts";
import { withEpisode } from "../../../tests/profile_helpers.ts";

export const FENCE = "```";
export const INSTRUCTION = "Fix wc.py so that it counts words.\n";
export const AGENTS = "# Rules\n\n" + "- Indent with four spaces; run the tests before finishing.\n".repeat(40);

export const UTIL_PY = `"""Helpers."""
import os


def slug(text):
    return text.lower()


class Counter:
    """Counts."""

    def __init__(self):
        self.n = 0

    def add(self, k=1):
        def inner():
            pass
        self.n += k
`;
export const APP_TS = `export function main(): void {}
export const double = (x: number): number => x * 2;
export class App {
  run() {}
}
const local = () => 1;
`;
export const WC_PY = `def count(text):
    words = text.split(" ")
    return len(words)


def show(n):
    print(n)
    print(n)
`;

/** A task on pgs-base:1 with a small project in /workdir; `docs` names the rules files to add. */
export function fixtureTask(docs: Record<string, string>): Promise<string> {
  const files: Record<string, string> = {
    "instruction.md": INSTRUCTION,
    "environment/workdir/pkg/__init__.py": "",
    "environment/workdir/pkg/util.py": UTIL_PY,
    "environment/workdir/web/app.ts": APP_TS,
    "environment/workdir/wc.py": WC_PY,
  };
  for (const [name, text] of Object.entries(docs)) files[`environment/workdir/${name}`] = text;
  return makeTask(files);
}

export async function withFixture(
  docker: Parameters<typeof withEpisode>[0],
  docs: Record<string, string>,
  fn: (ep: ProfileEpisode) => Promise<void>,
): Promise<void> {
  const dir = await fixtureTask(docs);
  try {
    await withEpisode(docker, smallAgent(), dir, (ep) => fn(ep));
  } finally {
    await removeTask(dir);
  }
}

/** One action block (after a line of thought, as a model writes it); returns the one observation's text. */
export async function act(ep: ProfileEpisode, body: string): Promise<string> {
  const r = await ep.step({ content: `Next step.\n\n${FENCE}action\n${body}\n${FENCE}\n` });
  assert.equal(r.done, false, `the episode goes on after ${body.split("\n")[0]}`);
  assert.equal(r.observations.length, 1);
  assert.equal(r.observations[0].role, "user");
  assert.equal(typeof r.observations[0].content, "string");
  return r.observations[0].content as string;
}

export const userText = (ep: ProfileEpisode) => ep.messages.find((m) => m.role === "user")!.content as string;

// ---------------------------------------------------------------------------------------------------------------------
// Pure: the profile's shape and the action language.
