/** qwen-code: its tools in a real container (the profile's data and wording: `mod_test.ts`). */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import type { Docker } from "../../lib/runtime/docker/mod.ts";
import type { ProfileEpisode } from "../../lib/harness/profile_episode.ts";
import { QWEN_SYSTEM_PROMPT, QWEN_USER_PARTS, qwenCode } from "./mod.ts";
import { qwenDate } from "./first_message.ts";
import { onePart, type Recorded, recorded } from "./testdata/fixtures.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import { call, EXAMPLE_TASKS, runTool, withEpisode } from "../../tests/profile_helpers.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "qwen-code");
const FIX = resolve(EXAMPLE_TASKS, "fix-word-count");
const COUNT = resolve(EXAMPLE_TASKS, "count-error-lines");
const WORKDIR = "/workdir";

/** Runs one call as a one-call assistant turn and returns the result text. */
async function run(ep: ProfileEpisode, name: string, args: unknown, raw?: string): Promise<string> {
  return onePart((await runTool(ep, name, args, raw, { message: true })).content);
}

// -------------------------------------------------------------------------------------------------------------------
// Without a container
// -------------------------------------------------------------------------------------------------------------------

dockerTest(
  "qwen-code: first messages, echoed turns, result parts, and the end on a reply without calls",
  async (docker) => {
    const instruction = await Deno.readTextFile(resolve(FIX, "instruction.md"));
    await withEpisode(docker, qwenCode(), FIX, async (ep) => {
      assert.deepEqual(ep.tools.map((t) => t.function.name), qwenCode().tools.map((t) => t.schema.function.name));
      const [system, user] = ep.messages;
      assert.deepEqual(system, { role: "system", content: QWEN_SYSTEM_PROMPT.replace("{workdir}", WORKDIR) });
      assert.equal(user.role, "user");
      // Five text parts, as recorded.
      assert.ok(Array.isArray(user.content) && user.content.length === 5);
      const text = (user.content as { text: string }[]).map((p) => p.text).join("");
      const date = qwenDate();
      const env = (await Deno.readTextFile(resolve(GOLDEN, "env_context.txt")))
        .replaceAll("{workdir}", WORKDIR).replace("{date}", date);
      const reminder = (await Deno.readTextFile(resolve(GOLDEN, "date_reminder.txt"))).replace("{date}", date);
      assert.ok(text.includes(env), "the environment context with the folder listing, exactly as recorded");
      assert.ok(text.includes(env + QWEN_USER_PARTS[2] + reminder));
      assert.ok(text.startsWith("<system-reminder>\n"));
      assert.ok(text.endsWith(reminder + instruction), "the instruction verbatim, last");

      // A tool-call turn without text is echoed with content null; its result is a one-part list.
      const c = call("read_file", { file_path: `${WORKDIR}/sample.txt` });
      const r = await ep.step({ content: "", tool_calls: [c] });
      const echoed = ep.messages[2];
      assert.deepEqual(Object.keys(echoed), ["role", "content", "tool_calls"]);
      assert.deepEqual(echoed, { role: "assistant", content: null, tool_calls: [c] });
      // qwen orders the keys role, tool_call_id, content.
      assert.deepEqual(Object.keys(r.observations[0]), ["role", "tool_call_id", "content"]);
      assert.equal(r.observations[0].tool_call_id, c.id);
      assert.equal(
        onePart(r.observations[0].content),
        "Hello, world! Hello again.\nThe world is big; the WORLD is small.\nDon't panic: it's only a well-known test.\n",
      );
      // Text next to calls is echoed as is.
      await ep.step({ content: "Let me look.", tool_calls: [call("glob", { pattern: "*.md" })] });
      assert.equal(ep.messages.at(-2)?.content, "Let me look.");

      // Several calls in one reply: one result each, in order, an unknown one in its slot.
      const many = await ep.step({
        content: "",
        tool_calls: [
          call("read_file", { file_path: `${WORKDIR}/README.md`, offset: 0, limit: 1 }),
          call("nosuchtool", {}),
          call("run_shell_command", { command: "echo parallel" }),
        ],
      });
      assert.deepEqual(many.observations.map((o) => onePart(o.content).split("\n")[0]), [
        "Showing lines 1-1 of 38 total lines.",
        'Tool "nosuchtool" not found in registry. Tools must use the exact names that are registered. Did you mean one of: "monitor", "task_stop", "get_goal"?',
        "Command: echo parallel",
      ]);

      const end = await ep.step({ content: "The word counter needs a new tokenizer." });
      assert.equal(end.done, true);
      assert.deepEqual(end.observations, []);
      assert.equal(ep.answer(), "The word counter needs a new tokenizer.");
    });
  },
);

/** Placeholders of the recording, filled for this container. */
async function filler(ep: ProfileEpisode): Promise<(s: string) => string> {
  const home = String(ep.session.state.get("qwen.home"));
  const hash = String(ep.session.state.get("qwen.hash"));
  assert.equal(
    hash,
    [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(WORKDIR)))]
      .map((b) => b.toString(16).padStart(2, "0")).join(""),
  );
  return (s) =>
    s.replaceAll("{workdir}", WORKDIR).replaceAll("{home}", home).replaceAll("{project_hash}", hash)
      .replace(/_[0-9a-f]{12}\.output/g, "_HEX.output");
}

/** Glob results listed in another (mtime / readdir) order: the list sorted. */
function sortedList(t: string): string {
  const [head, list] = t.split("\n---\n");
  return `${head}\n---\n${list.split("\n").sort().join("\n")}`;
}

/** Built-in grep results: the per-file blocks sorted (grep walks in readdir order, which differs per filesystem). */
function sortedBlocks(t: string): string {
  const [head, ...rest] = t.split("\n---\nFile: ");
  const blocks = rest.map((b) => b.replace(/\n---$/, "")).sort();
  return [head, ...blocks].join("\n---\nFile: ") + "\n---";
}

interface ReplayRules {
  /** Calls left out, with the reason. */
  skip?: Record<number, string>;
  /** Compared after a normalization applied to both sides. */
  normalize?: Record<number, (t: string) => string>;
  /** Checked with a function instead of by equality. */
  check?: Record<number, (got: string, want: string) => void>;
  /** Rewrites of a call (and of its expected result) before it runs. */
  rewrite?: Record<number, (c: Recorded) => Recorded>;
}

/** Replays a recorded run in a fresh fix-word-count container (the recording ran in a copy of its workdir). */
async function replay(docker: Docker, runName: string, rules: ReplayRules) {
  const calls = await recorded(runName);
  // Every rule names a call the recording holds (a stale index would silently compare nothing), once.
  const ids = calls.map((c) => c.i);
  assert.equal(new Set(ids).size, ids.length, `${runName}: call numbers repeat`);
  for (const [kind, table] of Object.entries(rules)) {
    for (const i of Object.keys(table ?? {})) {
      assert.ok(ids.includes(Number(i)), `${runName}: ${kind} names call #${i}, which the recording does not hold`);
    }
  }
  await withEpisode(docker, qwenCode(), FIX, async (ep) => {
    const fill = await filler(ep);
    let compared = 0;
    for (let c of calls) {
      if (rules.skip?.[c.i]) continue;
      if (rules.rewrite?.[c.i]) c = rules.rewrite[c.i](c);
      const got = fill(await run(ep, c.name, undefined, fill(c.arguments)));
      const want = fill(c.result);
      const label = `${runName}#${c.i} ${c.name} ${c.arguments.slice(0, 120)}`;
      if (rules.check?.[c.i]) rules.check[c.i](got, want);
      else {
        const norm = rules.normalize?.[c.i] ?? ((t: string) => t);
        assert.equal(norm(got), norm(want), label);
      }
      compared++;
    }
    assert.ok(compared > 0, `${runName}: no call was compared`);
  });
}

/** A grep result cut by `limit`: the header and the note exact, the kept lines from one file. */
function limited(got: string, want: string): void {
  const head = want.split("\n---\n")[0];
  assert.ok(got.startsWith(head + "\n---\nFile: "), got);
  assert.ok(got.endsWith("\n---\n [3 lines truncated] ..."), got);
  assert.equal(got.split("\n").filter((l) => /^L\d+: .*import/.test(l)).length, 2, got);
}

dockerTest(
  "qwen-code: recorded run r1 replayed (read, write, edit, glob, grep, shell, unknown, missing args)",
  (docker) =>
    replay(docker, "r1", {
      skip: { 30: "flaky in the recording: the stderr of a fast-exiting `ls` was lost once" },
      normalize: { 23: sortedList, 26: sortedBlocks },
      check: { 27: limited },
    }),
);

dockerTest(
  "qwen-code: recorded run r2 replayed (read cache, prior reads, odd files, coercion, shell limits)",
  (docker) =>
    replay(docker, "r2", {
      skip: { 31: "ran with ripgrep (rg output format)" },
      // A background shell: its id, pid and session id vary.
      normalize: {
        23: (t) =>
          t.replace(/bg_[0-9a-f]{8}/g, "bg_ID").replace(/\npid: \d+\n/, "\npid: PID\n")
            .replace(/background-shells\/[0-9a-f-]{36}\//g, "background-shells/SESSION/"),
      },
      rewrite: {
        // `head -c 64 /dev/urandom` is binary only when a NUL byte turns up (~78%): make it certain.
        10: (c) => ({
          ...c,
          arguments: c.arguments.replace("head -c 64 /dev/urandom > bin.dat", "printf 'x\\\\000y' > bin.dat"),
          result: c.result.replace("head -c 64 /dev/urandom > bin.dat", "printf 'x\\000y' > bin.dat"),
        }),
      },
    }),
);

dockerTest(
  "qwen-code: recorded run r3grep replayed (built-in grep, grep hits count as reads, grep limits)",
  (docker) => replay(docker, "r3grep", { normalize: { 1: sortedBlocks, 6: sortedBlocks }, check: { 2: limited } }),
);

dockerTest(
  "qwen-code: recorded run r6 replayed (shell stderr, signals, directories, sleeps, outside paths)",
  (docker) =>
    replay(docker, "r6", {
      skip: { 10: "reads /etc/hostname of the recording machine" },
      normalize: { 8: (t) => t.replace(/ran for \d+s/, "ran for Ns"), 15: sortedList },
    }),
);

dockerTest(
  "qwen-code: recorded run r9 replayed (files changed behind the tools' back)",
  (docker) => replay(docker, "r9", {}),
);

dockerTest(
  "qwen-code: write_file and edit refuse files not read first; a read or a grep hit counts",
  async (docker) => {
    await withEpisode(docker, qwenCode(), FIX, async (ep) => {
      const wc = `${WORKDIR}/wc.py`, tw = `${WORKDIR}/test_wordcount.py`, wd = `${WORKDIR}/wordcount.py`;
      assert.equal(
        await run(ep, "write_file", { file_path: wc, content: "x\n" }),
        `File ${wc} has not been read in this session. Use the read_file tool first to load the current content (read the full file — overwriting replaces every byte, so any unseen bytes would be discarded) before overwriting it.`,
      );
      assert.equal(
        await run(ep, "edit", { file_path: tw, old_string: "import unittest", new_string: "import unittest  # x" }),
        `File ${tw} has not been read in this session. Use the read_file tool first to load the current content (a partial read with offset / limit is fine — you only need to have seen the bytes you intend to edit) before editing it.`,
      );
      assert.match(await run(ep, "grep_search", { pattern: "import unittest" }), /^Found 1 match/);
      assert.match(
        await run(ep, "edit", { file_path: tw, old_string: "import unittest", new_string: "import unittest  # x" }),
        /^The file: \/workdir\/test_wordcount.py has been updated\./,
      );
      await run(ep, "read_file", { file_path: wd, offset: 0, limit: 2 });
      assert.equal(
        await run(ep, "write_file", { file_path: wd, content: "pass\n" }),
        `Successfully overwrote file: ${wd}.`,
      );
      assert.equal(
        await run(ep, "write_file", { file_path: `${WORKDIR}/report.html`, content: "<p>x</p>\n" }),
        `Successfully created and wrote to new file: ${WORKDIR}/report.html. This file was automatically recorded as a workspace artifact with workspacePath "report.html". No extra artifact registration step is needed.`,
      );
    });
  },
);

dockerTest(
  "qwen-code: the output wrapper saves the full text to the file it names; limits and loops",
  async (docker) => {
    await withEpisode(docker, qwenCode(), FIX, async (ep) => {
      const out = await run(ep, "run_shell_command", { command: "seq 1 20000" });
      const m = out.match(
        /^Tool output was too large and has been truncated\.\nThe full output has been saved to: (\S+)\n/,
      );
      assert.ok(m, out.slice(0, 300));
      const home = String(ep.session.state.get("qwen.home"));
      assert.match(m[1], new RegExp(`^${home}/\\.qwen/tmp/[0-9a-f]{64}/run_shell_command_[0-9a-f]{12}\\.output$`));
      assert.ok(out.endsWith("19999\n20000\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)"));
      const saved = await run(ep, "run_shell_command", { command: `head -n 3 ${m[1]}; wc -l < ${m[1]}` });
      assert.ok(saved.includes("Output: Command: seq 1 20000\nDirectory: (root)\nOutput: 1\n20005"), saved);

      // Missing and mistyped arguments, timeout bounds, a legacy name, invalid JSON arguments.
      assert.equal(await run(ep, "run_shell_command", {}), "params must have required property 'command'");
      assert.equal(await run(ep, "run_shell_command", { command: "true", timeout: 0 }), "params/timeout must be >= 1");
      assert.equal(
        await run(ep, "run_shell_command", { command: "true", timeout: 700000 }),
        "params/timeout must be <= 600000",
      );
      assert.match(await run(ep, "run_shell_command", { command: "true", timeout: "5000" }), /^Command: true\n/);
      assert.match(await run(ep, "search_file_content", { pattern: "zzz_none" }), /^No matches found for pattern/);
      assert.equal(
        await run(ep, "read_file", null, "not json at all"),
        "params must have required property 'file_path'",
      );

      // Loop detection: the 5th identical call in a row is not run and ends the episode without an answer.
      for (let k = 1; k <= 4; k++) {
        assert.match(await run(ep, "glob", { pattern: "*.md" }), /^Found 1 file\(s\)/);
      }
      const r = await ep.step({ content: "", tool_calls: [call("glob", { pattern: "*.md" })] });
      assert.equal(r.done, true);
      assert.deepEqual(r.observations, []);
      assert.equal(ep.answer(), "");
    });
  },
);

// The oracle on the example tasks (solve.sh through run_shell_command, then a final reply) is in
// tests/profiles_suite_test.ts.

dockerTest(
  "qwen-code: on count-error-lines, grep_search with a path and a glob counts what awk counts",
  async (docker) => {
    await withEpisode(docker, qwenCode(), COUNT, async (ep) => {
      const out = await run(ep, "run_shell_command", { command: `awk '$3 == "ERROR"' app.log | wc -l` });
      const n = out.match(/\nOutput: (\d+)\n/)?.[1];
      assert.equal(n, "35", out);
      const grep = await run(ep, "grep_search", { pattern: "^\\S+ \\S+ ERROR ", path: WORKDIR, glob: "*.log" });
      assert.match(grep, new RegExp(`^Found ${n} matches for pattern`));
    });
  },
);
