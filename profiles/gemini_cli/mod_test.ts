/**
 * gemini-cli@0.61.0 against its recordings (reduced to tests/golden/gemini-cli): schemas byte for byte, tool order,
 * the first user content, result strings replayed call by call in a real container (three recorded runs: the main
 * episode, a probe of errors and edge cases, the conformance episode), loop detection, truncation and background
 * commands. The oracle on the example tasks is in tests/profiles_suite_test.ts; the whole-episode replay in
 * tests/conformance_fixtures_test.ts.
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import type { Docker } from "../../lib/runtime/docker/mod.ts";
import type { ProfileEpisode } from "../../lib/harness/profile_episode.ts";
import type { ToolCall } from "../../lib/harness/types.ts";
import { GEMINI_SYSTEM_PROMPT, GEMINI_USER_PARTS, geminiCli } from "./mod.ts";
import { checkLoop } from "./loop.ts";
import { env } from "./paths.ts";
import { geminiDate, SESSION_CONTEXT } from "./session_context.ts";
import { hasCommandSubstitution, stripShellWrapper } from "./shell_text.ts";
import { GEMINI_REGISTRY, unknownToolMessage } from "./unknown_tool.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import { assertApprox, EXAMPLE_TASKS, withEpisode } from "../../tests/profile_helpers.ts";

const GOLDEN = resolve(import.meta.dirname!, "..", "..", "tests", "golden", "gemini-cli");
const FIX = resolve(EXAMPLE_TASKS, "fix-word-count");
const WORKDIR = "/workdir";

/** One recorded call: its index, the tool, the id gemini gave it, the arguments and the functionResponse as JSON. */
interface Recorded {
  i: number;
  name: string;
  id: string;
  arguments: string;
  result?: string;
  result_prefix?: string;
  result_suffix?: string;
  result_length?: number;
}

const golden = async (f: string) => JSON.parse(await Deno.readTextFile(resolve(GOLDEN, f)));
const recorded = (run: string): Promise<Recorded[]> => golden(`replay_${run}.json`);
const tc = (id: string, name: string, args: string): ToolCall => ({
  id,
  type: "function",
  function: { name, arguments: args },
});

// -------------------------------------------------------------------------------------------------------------------
// Without a container
// -------------------------------------------------------------------------------------------------------------------

Deno.test("gemini-cli: identity, protocol, stop and answer rules, chat-form tool messages", () => {
  const p = geminiCli();
  assert.equal(`${p.name}@${p.version}`, "gemini-cli@0.61.0");
  assert.equal(p.emulates.version, "0.61.0");
  assert.ok(p.emulates.sources.some((x) => x.startsWith("tests/golden/gemini-cli/")));
  assert.ok(p.emulates.sources.some((x) => x.startsWith("npm:@google/gemini-cli@0.61.0:bundle/")));
  assert.deepEqual(p.protocol, { kind: "native" });
  assert.deepEqual(p.stop, { kind: "no_call" });
  assert.deepEqual(p.answer, { kind: "last_text" });
  assert.deepEqual(p.toolMessageKeys, ["tool_call_id", "name", "content"]);
  assert.deepEqual(p.shell, { tool: "run_shell_command", arg: "command" });
});

Deno.test("gemini-cli: parameter schemas byte for byte as recorded, in gemini's order, the rest omitted", async () => {
  const lines = (await Deno.readTextFile(resolve(GOLDEN, "tool_parameters.jsonl"))).trimEnd().split("\n");
  const names = lines.map((l) => JSON.parse(l).name);
  assert.deepEqual(names, GEMINI_REGISTRY);
  const p = geminiCli();
  const ours = p.tools.map((t) => t.schema.function);
  assert.deepEqual(ours.map((f) => f.name), names.filter((n) => !p.omittedTools!.includes(n)));
  assert.deepEqual([...ours.map((f) => f.name), ...p.omittedTools!].sort(), [...names].sort());
  for (const f of ours) {
    assert.equal(JSON.stringify({ name: f.name, parameters: f.parameters }), lines[names.indexOf(f.name)]);
    assert.ok(f.description.length < 600, f.name);
  }
});

Deno.test("gemini-cli: a short paraphrased system prompt; the session context and the instruction as two parts", async () => {
  assert.ok(GEMINI_SYSTEM_PROMPT.length < 2000);
  assert.ok(!GEMINI_SYSTEM_PROMPT.includes("# Core Mandates"), "not gemini's own text");
  assert.deepEqual(GEMINI_USER_PARTS, [SESSION_CONTEXT, "{instruction}"]);
  const ctx = await Deno.readTextFile(resolve(GOLDEN, "session_context.txt"));
  const listing = ctx.slice(ctx.indexOf("Showing up to"), ctx.indexOf("\n\n\n</session_context>"));
  assert.equal(SESSION_CONTEXT.replace("{folder_structure}", listing), ctx);
  assert.equal(geminiDate(new Date(2026, 11, 2, 12)), "Wednesday, December 2, 2026");
});

Deno.test("gemini-cli: unknown tools as recorded; the tools left out answer apart", async () => {
  const g4 = await recorded("g4");
  assert.equal(JSON.stringify({ error: unknownToolMessage("no_such_tool") }), g4[0].result);
  assertApprox(unknownToolMessage("web_fetch"), 'Tool "web_fetch" is not available in this environment.');
  const p = geminiCli();
  assert.equal(p.alias?.(" glob ", ["glob"]), "glob");
  assertApprox(
    JSON.parse(String(p.badArguments?.("run_shell_command", "{not json", "bad"))).error,
    "params must have required property 'command'",
  );
});

Deno.test("gemini-cli: the 5th identical call is a loop (recorded feedback); a second loop stops", async () => {
  const g5 = await golden("loop_g5.json");
  const state = new Map<string, unknown>();
  const s = { state } as unknown as Parameters<typeof checkLoop>[1];
  const glob = { id: "x", name: "glob", args: { pattern: "*.md" }, raw: "" };
  for (let k = 0; k < 4; k++) assert.equal(checkLoop([glob], s), undefined);
  assert.equal(g5.calls.length, 4, "the 5th call never ran");
  assert.equal(checkLoop([glob], s), g5.feedback);
  assert.equal(checkLoop([glob], s), undefined);
  assert.equal((state.get("gemini.loop") as { stop: boolean }).stop, true);
});

Deno.test("gemini-cli: shell wrappers stripped, command substitution detected outside single quotes", () => {
  assert.equal(stripShellWrapper(`bash -c 'echo hi'`), "echo hi");
  assert.equal(stripShellWrapper(`/bin/sh -c "echo \\"x\\""`), 'echo "x"');
  assert.equal(stripShellWrapper("  ls -l "), "ls -l");
  for (const c of ["echo $(whoami)", "echo `id`", 'echo "$(id)"', "diff <(ls) x"]) assert.ok(hasCommandSubstitution(c));
  for (const c of ["echo '$(id)'", "echo \\$(id)", "echo $HOME", "a > (b)"]) assert.ok(!hasCommandSubstitution(c), c);
});

// -------------------------------------------------------------------------------------------------------------------
// In a container
// -------------------------------------------------------------------------------------------------------------------

/** Volatile values: real process ids. */
const volatile = (t: string) =>
  t.replace(/Process Group PGID: \d+/g, "Process Group PGID: N").replace(
    /Background PIDs: [\d, ]+/g,
    "Background PIDs: N",
  )
    .replace(/\(PID: \d+\)/g, "(PID: N)");

/** The placeholders of the goldens, filled for this container. */
function filler(ep: ProfileEpisode): (t: string) => string {
  const e = env(ep.session);
  return (t) => t.replaceAll("{workdir}", WORKDIR).replaceAll("{home}", e.home).replaceAll("{session}", e.sessionId);
}

/** Grep results whose per-file blocks come in readdir order, which differs per filesystem: the blocks sorted. */
function sortedBlocks(t: string): string {
  const [head, ...rest] = t.split("\\n---\\nFile: ");
  return [head, ...rest.map((b) => b.replace(/\\n---"}$/, "")).sort()].join("\\n---\\nFile: ");
}

/** A glob list whose older entries came from the image in another mtime order: the list sorted. */
const sortedList = (t: string) => {
  const [head, list] = t.split(":\\n");
  return `${head}:\\n${list.replace(/"}$/, "").split("\\n").sort().join("\\n")}"}`;
};

interface Rules {
  skip?: Record<number, string>;
  normalize?: Record<number, (t: string) => string>;
  check?: Record<number, (got: string, want: Recorded, fill: (t: string) => string) => void>;
  /** Calls made together in one turn, by their first index and count. */
  together?: Record<number, number>;
}

async function replay(docker: Docker, run: string, rules: Rules = {}): Promise<void> {
  const calls = await recorded(run);
  await withEpisode(docker, geminiCli(), FIX, async (ep) => {
    const fill = filler(ep);
    for (let k = 0; k < calls.length; k++) {
      const n = rules.together?.[calls[k].i] ?? 1;
      const batch = calls.slice(k, k + n);
      k += n - 1;
      const r = await ep.step({ content: "", tool_calls: batch.map((c) => tc(c.id, c.name, fill(c.arguments))) });
      assert.equal(r.done, false);
      assert.equal(r.observations.length, batch.length);
      for (const [j, c] of batch.entries()) {
        const obs = r.observations[j];
        assert.deepEqual(Object.keys(obs), ["role", "tool_call_id", "name", "content"]);
        assert.equal(obs.name, c.name);
        const got = String(obs.content), label = `${run}#${c.i} ${c.name} ${c.arguments.slice(0, 100)}`;
        if (rules.skip?.[c.i]) continue;
        if (rules.check?.[c.i]) rules.check[c.i](got, c, fill);
        else if (c.result === undefined) {
          // A long result, kept in the golden as its ends and its length.
          assert.ok(got.startsWith(fill(c.result_prefix!)), label);
          assert.ok(got.endsWith(fill(c.result_suffix!)), label);
          assert.equal(got.length, c.result_length, label);
        } else {
          const norm = rules.normalize?.[c.i] ?? ((t: string) => t);
          assert.equal(volatile(norm(got)), volatile(norm(fill(c.result))), label);
        }
      }
    }
  });
}

/** `seq 1 200000`: saved and cut; the cut moves with the digits of the real PGID at the end of the text. */
function truncatedSeq(got: string, want: Recorded, fill: (t: string) => string): void {
  assert.ok(got.startsWith(fill(want.result_prefix!)), got.slice(0, 300));
  assert.equal(volatile(got).slice(-300), volatile(want.result_suffix!).slice(-300));
  const digits = (t: string) => t.match(/PGID: (\d+)/)![1].length;
  const omitted = (t: string) => Number(t.match(/\[([\d,]+) characters omitted\]/)![1].replaceAll(",", ""));
  assert.equal(omitted(got), 1248969 + digits(got) - digits(want.result_suffix!));
}

dockerTest(
  "gemini-cli: recorded main episode replayed (shell, read, replace, write, glob, grep, ls)",
  (docker) =>
    replay(docker, "g1", {
      check: {
        // `ls -la` names the capture machine's owners, modes and link counts: the listing's shape and files here.
        0: (got) => {
          assert.match(got, /^\{"output":"<untrusted_context>\\nOutput: total \d+\\n/);
          for (const f of ["README.md", "sample.txt", "test_wordcount.py", "wc.py", "wordcount.py"]) {
            assert.ok(got.includes(` ${f}\\n`), f);
          }
          assert.match(got, /\\nProcess Group PGID: \d+\\n<\/untrusted_context>"\}$/);
        },
        12: truncatedSeq,
      },
      normalize: { 7: sortedList, 8: sortedBlocks },
    }),
);

dockerTest("gemini-cli: recorded probe replayed (argument errors, ranges, paths, shell edge cases, replace modes)", (
  docker,
) => replay(docker, "g4", { together: { 37: 2 } }));

dockerTest("gemini-cli: recorded conformance episode replayed call by call", (docker) => replay(docker, "g7"));

dockerTest(
  "gemini-cli: a command holding $( is refused, as recorded (why the oracle uploads solve.sh)",
  (docker) => replay(docker, "g8"),
);

dockerTest("gemini-cli: first messages, echoed turns, the saved output file, background commands, the end", async (
  docker,
) => {
  const instruction = await Deno.readTextFile(resolve(FIX, "instruction.md"));
  await withEpisode(docker, geminiCli(), FIX, async (ep) => {
    const [system, user] = ep.messages;
    assert.deepEqual(system, { role: "system", content: GEMINI_SYSTEM_PROMPT });
    const e = env(ep.session);
    const ctx = (await Deno.readTextFile(resolve(GOLDEN, "session_context.txt"))).replace("{date}", geminiDate())
      .replace("{gemini_temp}", e.tempDir).replaceAll("{workspace}", WORKDIR);
    assert.deepEqual(user.content, [{ type: "text", text: ctx }, { type: "text", text: instruction }]);
    assert.equal(e.tempDir, `${e.home}/.gemini/tmp/workdir`);

    const c = tc("run_shell_command_1_0", "run_shell_command", JSON.stringify({ command: "seq 1 20000" }));
    const r = await ep.step({ content: "", tool_calls: [c] });
    assert.deepEqual(ep.messages[2], { role: "assistant", content: null, tool_calls: [c] });
    const out = JSON.parse(String(r.observations[0].content)).output as string;
    const file = `${e.tempDir}/tool-outputs/session-${e.sessionId}/run_shell_command__run_shell_command_1_0.txt`;
    assert.ok(
      out.startsWith(
        `Output too large. Showing first 8,000 and last 32,000 characters. For full output see: ${file}\n`,
      ),
    );
    const saved = await ep.session.box.exec(`head -c 40 ${file}; printf '|'; wc -l < ${file}`, { shell: "sh" });
    assert.equal(new TextDecoder().decode(saved.stdout), "<untrusted_context>\nOutput: 1\n2\n3\n4\n5\n6\n|20002\n");

    // is_background: the answer comes after delay_ms while the command goes on in the container.
    const bg = await ep.step({
      content: "",
      tool_calls: [
        tc("b", "run_shell_command", JSON.stringify({ command: "sleep 2; echo late > bg.txt", is_background: true })),
      ],
    });
    assert.match(
      String(bg.observations[0].content),
      /^\{"output":"<untrusted_context>\\nCommand moved to background \(PID: \d+\)\. Output hidden\. Press Ctrl\+B to view\.\\n<\/untrusted_context>"\}$/,
    );
    const later = await ep.step({
      content: "Waiting.",
      tool_calls: [tc("w", "run_shell_command", JSON.stringify({ command: "sleep 3; cat bg.txt" }))],
    });
    assert.match(String(later.observations[0].content), /Output: late\\n/);
    assert.equal(ep.messages.at(-2)?.content, "Waiting.");

    const end = await ep.step({ content: "The tokenizer needs fixing." });
    assert.equal(end.done, true);
    assert.equal(ep.answer(), "The tokenizer needs fixing.");
  });
});

dockerTest("gemini-cli: a second detected loop ends the episode without an answer", async (docker) => {
  await withEpisode(docker, geminiCli(), FIX, async (ep) => {
    const g5 = await golden("loop_g5.json");
    const glob = (k: number) => tc(`g${k}`, "glob", '{"pattern":"*.md"}');
    for (let k = 0; k < 4; k++) {
      const r = await ep.step({ content: "", tool_calls: [glob(k)] });
      assert.equal(r.observations[0].content, filler(ep)(g5.calls[k].result));
    }
    const fifth = await ep.step({ content: "", tool_calls: [glob(4)] });
    assert.deepEqual(fifth.observations, [{ role: "user", content: g5.feedback }]);
    const sixth = await ep.step({ content: "", tool_calls: [glob(5)] });
    assert.equal(sixth.done, true);
    assert.deepEqual(sixth.observations, []);
    assert.equal(ep.answer(), "");
  });
});
