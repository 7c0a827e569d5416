/**
 * The user's own install, end to end with real harnesses (by default two of two wire APIs, gemini-cli: Gemini and
 * qwen-code: chat completions; CI records all six npm harnesses, four wire APIs): `pgs harness capture --local`
 * records one into a scratch folder, `pgs harness adopt` turns the recording into an overlay, and `harness show
 * --overlay`'s first prompt carries the recording's own system text, user parts and every tool (names, order,
 * descriptions, schemas) exactly, once the working directory, HOME and the install folder are normalised. The
 * harnesses come from PGS_HARNESS_PREFIX (`scripts/install_harnesses.ts`, which .ci/run runs); without it the tests are
 * ignored, with it a missing install fails. PGS_REAL_HARNESSES (comma-separated) names the harnesses to record.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRecording } from "../lib/conformance/load_recording.ts";
import { harnessBin } from "../scripts/install_harnesses.ts";
import { ignoreDocker } from "./docker_helpers.ts";
import { pgs, ROOT } from "./eval_helpers.ts";
import { ciTest } from "./tier.ts";
import { adoptTools } from "../lib/conformance/adopt_tools.ts";
import { wireApiOf } from "../lib/conformance/wire_to_chat.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const PREFIX = Deno.env.get("PGS_HARNESS_PREFIX") ?? "";
const COUNT = join(ROOT, "examples", "tasks", "count-error-lines");

/** The chat form's texts with the recording's (or the container's) working directory, HOME and install normalised. */
function normalised(messages: Json[], subs: [string, string][]): Json[] {
  return messages.map((m) => ({
    role: m.role,
    parts: (typeof m.content === "string" ? [m.content] : m.content.map((p: Json) => p.text)).map((t: string) =>
      subs.reduce((s, [from, to]) => s.split(from).join(to), t)
    ),
  }));
}

/** The harnesses recorded: two of two wire APIs by default; PGS_REAL_HARNESSES (comma-separated) names others. */
const AGENTS = (Deno.env.get("PGS_REAL_HARNESSES") ?? "gemini-cli,qwen-code").split(",").map((a) => a.trim())
  .filter(Boolean);

for (const agent of AGENTS) {
  ciTest({
    name: `REAL ${agent}: capture --local, adopt, harness show --overlay carry its own prompt and tools exactly`,
    ignore: !PREFIX || ignoreDocker,
  }, async () => {
    const dir = await Deno.makeTempDir({ prefix: "pgs_real_adopt_" });
    try {
      const rec = join(dir, "rec"), script = join(dir, "turns.json"), file = join(dir, "overlay.json");
      await Deno.writeTextFile(script, JSON.stringify([{ content: "There are 35 ERROR lines." }]));
      const bin = harnessBin(PREFIX, agent);
      const c = await pgs([
        "harness",
        "capture",
        agent,
        "--local",
        "--bin",
        bin,
        "--task",
        COUNT,
        "--script",
        script,
        "--out",
        rec,
        "--timeout",
        "180",
      ]);
      assert.equal(c.code, 0, c.stderr + await Deno.readTextFile(join(rec, "harness.log")).catch(() => ""));
      const a = await pgs(["harness", "adopt", rec, "--profile", agent, "--out", file, "--task", COUNT]);
      assert.equal(a.code, 0, a.stderr);
      const s = await pgs(["harness", "show", agent, "--overlay", file, "--task", COUNT, "--json"]);
      assert.equal(s.code, 0, s.stderr);
      const shown = JSON.parse(s.stdout), overlay = JSON.parse(await Deno.readTextFile(file));
      const recording = await loadRecording(rec);
      const recorded = recording.requests[0];
      const install = overlay.slots.harness_install;
      const fromRecording: [string, string][] = [
        [recording.cwd!, "<WD>"],
        ["/workdir", "<WD>"],
        [`${recording.env!.HOME}/`, "<HOME>/"],
        ...(install ? [[install, overlay.slot_values.harness_install]] as [string, string][] : []),
      ];
      // The task container's working directory and HOME (pgs-base runs as root).
      const fromShow: [string, string][] = [["/workdir", "<WD>"], ["/root/", "<HOME>/"]];
      assert.deepEqual(normalised(shown.messages, fromShow), normalised(recorded.messages, fromRecording));
      const tools = (x: unknown, subs: [string, string][]) =>
        JSON.parse(subs.reduce((t, [from, to]) => t.split(from).join(to), JSON.stringify(x)));
      // Every tool as adopt carries it to a chat model (a Responses namespace's members each, a hosted tool as a function).
      const sent = recorded.wire
        ? adoptTools(recorded.wire, wireApiOf(recorded.wire) ?? "chat").tools
        : recorded.tools!;
      assert.deepEqual(tools(shown.tools, fromShow), tools(sent, fromRecording));
      // pi sends its four tools; the others more.
      assert.ok(sent.length >= 4, `every tool it sent: ${sent.length}`);
      assert.equal(shown.harness_model, "stub-model");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
