/**
 * The shared suite, run against every registered profile in a real container (hono's shared router suite is the
 * model): the first prompt renders, unknown tools and malformed arguments are answered without ending the episode,
 * and the oracle (`playOracle`: solve.sh through the profile's own shell tool, then its stop rule) solves
 * fix-word-count and answers count-error-lines. This is the one place the oracle runs on the example tasks: what
 * differs between profiles is data (`ORACLE`), and a profile leaves a shared test only through `SKIP`.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ProfileEpisode } from "../lib/harness/profile_episode.ts";
import { exactly, type OracleExpectation, type OracleExpectations } from "../lib/harness/oracle_expectation.ts";
import { playOracle } from "../lib/harness/oracle_policy.ts";
import { getProfile, profileNames } from "../lib/harness/registry.ts";
import type { ChatMessage } from "../lib/harness/types.ts";
import type { Docker } from "../lib/runtime/docker/mod.ts";
import { engineTest, requireDocker } from "./docker_helpers.ts";
import { call, EXAMPLE_TASKS, withEpisode, withLocalEpisode } from "./profile_helpers.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { TRUNCATION_MARK } from "../lib/report/viewer_script.ts";

registerBuiltins();

const FIX = join(EXAMPLE_TASKS, "fix-word-count");
const ANSWER = join(EXAMPLE_TASKS, "count-error-lines");
const solveSh = (task: string) => Deno.readTextFile(join(task, "solution", "solve.sh"));

/** The last line solve.sh prints on fix-word-count (no quote or newline inside, so it can sit in JSON or a pane). */
const FIXED = String.raw`Fixed wordcount\.py \([^"\n]*\) and made wc\.py honour -n\.`;

/** Every profile folder's `oracle.ts`, merged: what the oracle's run on fix-word-count looks like under each. */
const ORACLE: Record<string, OracleExpectation> = {};
const PROFILES = join(import.meta.dirname!, "..", "profiles");
for (const entry of [...Deno.readDirSync(PROFILES)].sort((a, b) => a.name.localeCompare(b.name))) {
  const file = join(PROFILES, entry.name, "oracle.ts");
  if (!entry.isDirectory || !existsSync(file)) continue;
  const mod: { ORACLE: OracleExpectations } = await import(pathToFileURL(file).href);
  for (const [name, run] of Object.entries(mod.ORACLE)) {
    assert.ok(!(name in ORACLE), `${name}: in two folders' oracle.ts`);
    ORACLE[name] = run;
  }
}

/** The shared tests, by the key `SKIP` names them with. */
type SharedTest = "first-prompt" | "fix-word-count" | "count-error-lines" | "long-output";

/**
 * Shared tests a profile is left out of, and why: each shows as an ignored test whose name gives the reason. A
 * profile without an answer channel (`answerChannel: false`) is not skipped on count-error-lines: it must score 0
 * there.
 */
const SKIP: Record<string, { reason: string; tests: SharedTest[] }[]> = {};

/** Profiles whose harness never cuts a tool's output (nanocode: `context` says so). */
const WHOLE_OUTPUT = new Set(["palingenesis-default@2"]);
/**
 * Profiles whose long outputs are cut without any mark: terminus-2 shows what the tmux pane still holds (its
 * scrollback dropped the rest), as Harbor's Terminus 2 does; there is nothing for the viewer to keep in view.
 */
const UNMARKED_CUT = new Set(["terminus-2@harbor-0.22.0"]);

/** A Docker test of the shared suite for one profile (ignored without an engine outside CI, or by `SKIP`). */
function profileTest(profile: string, test: SharedTest, what: string, fn: (docker: Docker) => Promise<void>): void {
  const skip = SKIP[profile]?.find((s) => s.tests.includes(test));
  engineTest({
    name: `profile ${profile}: ${what}${skip ? ` (skipped: ${skip.reason})` : ""}`,
    ignore: skip !== undefined,
    fn: () => fn(requireDocker()),
  });
}

/** The text of a message's content (a list of parts joined). */
const text = (c: ChatMessage["content"]) => typeof c === "string" ? c : (c ?? []).map((p) => p.text).join("");

/** The one observation that answered the oracle's first turn (the shell call), from the episode's history. */
function shellObservation(ep: ProfileEpisode): ChatMessage {
  const first = ep.messages.findIndex((m) => m.role === "assistant");
  const next = ep.messages.findIndex((m, i) => i > first && m.role === "assistant");
  assert.ok(first >= 0 && next > first, "the oracle took at least two turns");
  const obs = ep.messages.slice(first + 1, next);
  assert.equal(obs.length, 1, "one observation answers the shell call");
  const call = ep.messages[first].tool_calls?.[0];
  if (ep.profile.protocol.kind === "native") {
    assert.equal(obs[0].role, "tool");
    assert.equal(obs[0].tool_call_id, call?.id, "the tool message answers the shell call");
  } else {
    assert.equal(obs[0].role, "user");
  }
  return obs[0];
}

function assertShellResult(obs: ChatMessage, expected: RegExp | RegExp[]): void {
  if (expected instanceof RegExp) {
    assert.equal(typeof obs.content, "string", "the shell result is a string");
    assert.match(obs.content as string, expected);
    return;
  }
  assert.ok(Array.isArray(obs.content), "the shell result is a list of parts");
  assert.equal(obs.content.length, expected.length, JSON.stringify(obs.content));
  obs.content.forEach((part, i) => {
    assert.equal(part.type, "text");
    assert.match(part.text, expected[i]);
  });
}

/** A derived version's data is the version it extends' unless it has its own. */
const oracleOf = (name: string): OracleExpectation | undefined => {
  const base = getProfile(name).extends;
  return ORACLE[name] ?? (base ? ORACLE[`${name.slice(0, name.lastIndexOf("@"))}@${base.version}`] : undefined);
};

Deno.test("profiles suite: the oracle data covers exactly the registered profiles; skips name registered ones", () => {
  for (const name of Object.keys(ORACLE)) assert.ok(profileNames().includes(name), `an oracle.ts names ${name}`);
  for (const name of profileNames()) {
    assert.ok(oracleOf(name), `no profile folder's oracle.ts has ${name} (nor its base)`);
  }
  for (const name of Object.keys(SKIP)) assert.ok(profileNames().includes(name), `SKIP names ${name}`);
});

for (const name of profileNames()) {
  const answers = getProfile(name).answerChannel !== false;

  // The wording of a first prompt and of two mistakes needs no container: it runs on the local runtime, unless the
  // profile drives a terminal (tmux in the image).
  const local = getProfile(name).terminal === undefined;
  const firstPrompt = async (docker?: Docker) => {
    const profile = getProfile(name);
    const instruction = (await Deno.readTextFile(join(FIX, "instruction.md"))).split("\n")[0];
    const run = (fn: (ep: ProfileEpisode) => Promise<void>) =>
      docker ? withEpisode(docker, profile, FIX, (ep) => fn(ep)) : withLocalEpisode(profile, FIX, fn);
    await run(async (ep) => {
      const roles = ep.messages.map((m) => m.role);
      assert.ok(roles.length >= 1 && roles.every((r) => r === "system" || r === "user"), roles.join());
      // The user's turn is last, but for the messages a profile sends after it (claude-code's environment).
      assert.equal(roles.at(-1 - (profile.postlude?.length ?? 0)), "user");
      const user = ep.messages.filter((m) => m.role === "user").map((m) => text(m.content)).join("\n");
      assert.ok(user.includes(instruction), "the instruction reaches the user message");
      if (profile.protocol.kind === "native") {
        assert.deepEqual(ep.tools.map((t) => t.function.name), profile.tools.map((t) => t.schema.function.name));
        /** One call in a turn of its own: the episode goes on, and one message answers it. */
        const answer = async (c: ReturnType<typeof call>) => {
          const errors = ep.counters.formatErrors;
          const r = await ep.step({ content: "", tool_calls: [c] });
          assert.equal(r.done, false);
          assert.equal(r.observations.length, 1);
          const obs = r.observations[0];
          if (obs.role === "tool") assert.equal(obs.tool_call_id, c.id, "a tool message answering the call");
          else {
            assert.equal(obs.role, "user", "or a format error");
            assert.equal(ep.counters.formatErrors, errors + 1, "counted as a format error");
          }
          return text(obs.content);
        };
        const unknown = await answer(call("pgs_no_such_tool", {}));
        assert.ok(unknown.includes("pgs_no_such_tool"), `the answer names the unknown tool: ${unknown}`);
        assert.equal(ep.counters.unknownTools + ep.counters.formatErrors, 1, "counted once");
        const malformed = await answer(call(profile.shell!.tool, null, "{not json"));
        assert.match(malformed, /error|invalid|fail|could not|must/i, "malformed arguments are answered by an error");
      } else {
        assert.deepEqual(ep.tools, []);
        // Under a no_call stop a reply without an action is the final answer: two actions are the malformed turn.
        const p = profile.protocol, fence = "```";
        const malformed = profile.stop.kind === "no_call" && p.kind === "fenced"
          ? `${fence}${p.lang}\na\n${fence}\n${fence}${p.lang}\nb\n${fence}`
          : "no action here";
        const r = await ep.step({ content: malformed });
        assert.equal(r.done, false);
        assert.equal(r.observations.length, 1);
        assert.equal(r.observations[0].role, "user", "a format error comes back as a user message");
        assert.match(text(r.observations[0].content), /error/i);
        assert.equal(ep.counters.formatErrors, 1);
      }
    });
  };
  if (local) {
    Deno.test(`profile ${name}: first prompt, unknown tool, malformed arguments (local runtime)`, () => firstPrompt());
  } else profileTest(name, "first-prompt", "first prompt, unknown tool, malformed arguments", firstPrompt);

  // The viewer folds long results but keeps the harness's truncation mark in view: it must know every profile's mark.
  const longOutput = async (ep: ProfileEpisode) => {
    const lines = 100_000;
    await playOracle(ep, `#!/bin/bash\nseq 1 ${lines}\n`);
    const shown = text(shellObservation(ep).content);
    const numbers = shown.split("\n").filter((l) => /^\d+$/.test(l.trim())).length;
    if (WHOLE_OUTPUT.has(name)) return assert.equal(numbers, lines, "this harness shows a long output whole");
    assert.ok(numbers < lines, `all ${lines} lines of a long output are shown`);
    const declared = ep.profile.truncationMark;
    if (UNMARKED_CUT.has(name)) {
      assert.equal(declared, undefined, "this harness cuts without a mark: it declares none");
      return assert.deepEqual(shown.split("\n").filter((l) => TRUNCATION_MARK.test(l)), [], "no mark shown");
    }
    // The profile's own mark (data) finds its cut, and no line of the output itself.
    assert.ok(declared, "a harness that cuts with a mark declares it (truncationMark)");
    const mark = new RegExp(declared, "i");
    const rows = shown.split("\n");
    const other = rows.filter((l) => !/^\d+$/.test(l.trim())).slice(0, 12);
    assert.ok(rows.some((l) => mark.test(l)), `its truncationMark matches no line of: ${JSON.stringify(other)}`);
    assert.ok(!rows.some((l) => /^\d+$/.test(l.trim()) && mark.test(l)), "the mark matches a plain output line");
  };
  const longWhat = "a long output is cut in the harness's words, with a mark the viewer keeps in view";
  if (local) {
    Deno.test(`profile ${name}: ${longWhat} (local runtime)`, () =>
      withLocalEpisode(getProfile(name), FIX, longOutput));
  } else {
    profileTest(name, "long-output", longWhat, (docker) => withEpisode(docker, getProfile(name), FIX, longOutput));
  }

  const expected = oracleOf(name);
  profileTest(
    name,
    "fix-word-count",
    `the oracle solves fix-word-count in ${expected?.turns} turns (reward 1)`,
    (docker) =>
      withEpisode(docker, getProfile(name), FIX, async (ep, score) => {
        assert.ok(expected, `no oracle.ts has ${name}`);
        const answer = await playOracle(ep, await solveSh(FIX));
        assert.equal(ep.done, true, "the stop rule ended the episode");
        assert.equal(ep.counters.formatErrors, 0);
        assert.equal(ep.counters.turns, expected.turns, "the shell call, then the stop rule's turns");
        assert.match(answer, exactly(`${FIXED}\n`), "solve.sh's output");
        assertShellResult(shellObservation(ep), expected.shellResult(FIXED));
        const v = await score();
        assert.equal(v.reward, 1, v.error);
      }),
  );

  profileTest(
    name,
    "count-error-lines",
    answers
      ? "the oracle answers count-error-lines (Answer: 35, reward 1)"
      : "count-error-lines scores 0 (no answer channel)",
    (docker) =>
      withEpisode(docker, getProfile(name), ANSWER, async (ep, score) => {
        const answer = await playOracle(ep, await solveSh(ANSWER));
        assert.match(answer, /\n\nAnswer: 35\n$/, "solve.sh ran and printed the count");
        assert.equal(ep.done, true, "the stop rule ended the episode");
        assert.equal(ep.counters.formatErrors, 0);
        if (answers) assert.equal(ep.answer(), answer, "the reply is the answer");
        else assert.ok(!ep.answer().includes("Answer: 35"), `the reply does not reach the answer: ${ep.answer()}`);
        const v = await score();
        assert.equal(v.reward, answers ? 1 : 0, v.error);
      }),
  );
}
