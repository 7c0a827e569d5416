/** terminus-2: the flag stop in the engine, then real episodes in a tmux pane (keystrokes, waits, feedback). */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ProfileEpisode } from "../../lib/harness/profile_episode.ts";
import type { KeyCommand } from "../../lib/harness/types.ts";
import type { Sandbox } from "../../lib/runtime/sandbox.ts";
import { terminus2 } from "./mod.ts";
import { TERMINUS_JSON_PLAIN } from "./prompt.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import { EXAMPLE_TASKS, withEpisode } from "../../tests/profile_helpers.ts";

const FIX = join(EXAMPLE_TASKS, "fix-word-count");
const ANSWER = join(EXAMPLE_TASKS, "count-error-lines");

const turn = (commands: unknown[], complete = false, pre = "") => ({
  content: pre + JSON.stringify({ analysis: "a", plan: "p", commands, task_complete: complete }),
});
const text = (c: unknown) => String(c);
const CONFIRM_TAIL =
  "Are you sure you want to mark the task as complete? This will trigger your solution to be graded " +
  'and you won\'t be able to make any further corrections. If so, include "task_complete": true in your JSON response ' +
  "again.";
const ERROR_PROMPT = "Previous response had parsing errors:\nERROR: Missing required fields: plan\n\n" +
  "Please fix these issues and provide a proper JSON response.";

Deno.test("terminus-2 engine: the flag stop, with a fake terminal", async () => {
  const ran: KeyCommand[][] = [];
  const p = terminus2();
  p.start = () => Promise.resolve({ terminal_state: "Current Terminal Screen:\n$ " });
  p.terminal = { ...p.terminal!, run: (_s, cmds) => (ran.push(cmds), Promise.resolve("New Terminal Output:\nout")) };
  const ep = new ProfileEpisode(p, { workdir: "/app" } as unknown as Sandbox);
  const first = await ep.begin("Do X.");
  assert.equal(first.length, 1, "no system message");
  assert.equal(
    first[0].content,
    TERMINUS_JSON_PLAIN.replace("{instruction}", "Do X.").replace("{terminal_state}", "Current Terminal Screen:\n$ "),
  );
  assert.deepEqual(ep.tools, []);

  let r = await ep.step(turn([], true));
  assert.equal(r.done, false);
  assert.equal(r.observations[0].content, `Current terminal state:\nNew Terminal Output:\nout\n\n${CONFIRM_TAIL}`);
  // A parse error runs nothing and keeps the pending completion.
  r = await ep.step({ content: '{"analysis": "a", "commands": [{"keystrokes": "rm -rf x\\n"}]}' });
  assert.equal(r.observations[0].content, ERROR_PROMPT);
  assert.equal(ran.length, 1);
  r = await ep.step(turn([], true));
  assert.equal(r.done, true, "a second completion in a row ends");
  assert.deepEqual(r.observations, []);
  assert.equal(ep.answer(), "");

  // A parsed turn that does not complete resets the flag.
  const ep2 = new ProfileEpisode(p, { workdir: "/app" } as unknown as Sandbox);
  await ep2.begin("Do X.");
  await ep2.step(turn([], true));
  r = await ep2.step(turn([{ keystrokes: "ls\n", duration: 0.1 }], false, "note "));
  assert.equal(
    r.observations[0].content,
    "Previous response had warnings:\nWARNINGS: - Extra text detected before JSON object\n\nNew Terminal Output:\nout",
  );
  r = await ep2.step(turn([], true));
  assert.equal(r.done, false, "confirmation asked again after the reset");
  assert.equal((await ep2.step(turn([], "yes" as unknown as boolean))).done, true);
});

dockerTest(
  "terminus-2: keystrokes in a persistent pane, early waits, feedback, double confirmation",
  async (docker) => {
    await withEpisode(docker, terminus2(), ANSWER, async (ep) => {
      const first = text(ep.messages[0].content);
      assert.equal(ep.messages.length, 1);
      assert.match(first, /\nCurrent terminal state:\nCurrent Terminal Screen:\n\S+@\S+:\/workdir#\n/);

      let r = await ep.step(turn([{ keystrokes: "cd /tmp && export X=42\n", duration: 5 }]));
      assert.match(text(r.observations[0].content), /^New Terminal Output:\n/);
      // The wait ends when the command does: a sentinel started with the wait's own 30 s outlives the step.
      const box = ep.session.box;
      const started = await box.exec("nohup sleep 30 >/dev/null 2>&1 & echo $!");
      const sentinel = new TextDecoder().decode(started.stdout).trim();
      r = await ep.step(turn([{ keystrokes: "sleep 1; echo done-$X-$(pwd)\n", duration: 30 }]));
      assert.equal((await box.exec(`kill ${sentinel}`)).exitCode, 0, "the step waited out its whole duration");
      assert.match(text(r.observations[0].content), /^New Terminal Output:\n[^]*\ndone-42-\/tmp\n/);

      // A parse error executes nothing.
      r = await ep.step({ content: '{"analysis": "a", "commands": [{"keystrokes": "touch /tmp/nope\\n"}]}' });
      assert.equal(r.observations[0].content, ERROR_PROMPT);
      assert.equal((await ep.session.box.exec("test -e /tmp/nope")).exitCode, 1);

      // C-c is a key; the interrupted command does not keep the wait going.
      r = await ep.step(turn([{ keystrokes: "sleep 30\n", duration: 0.5 }, { keystrokes: "C-c", duration: 5 }]));
      assert.match(text(r.observations[0].content), /sleep 30\n\^C/);

      r = await ep.step(turn([{ keystrokes: "echo finished\n", duration: 5 }], true));
      assert.equal(r.done, false);
      const confirm = text(r.observations[0].content);
      assert.match(confirm, /^Current terminal state:\nNew Terminal Output:\n[^]*\nfinished\n/);
      assert.ok(confirm.endsWith(`\n\n${CONFIRM_TAIL}`));
      r = await ep.step(turn([], true));
      assert.equal(r.done, true);
      assert.equal(ep.answer(), "");
    });
  },
);

dockerTest("terminus-2: a malformed turn comes back as terminus's own feedback", async (docker) => {
  await withEpisode(docker, terminus2(), FIX, async (ep) => {
    assert.ok(text(ep.messages[0].content).includes("wordcount"));
    const r = await ep.step({ content: "no action here" });
    assert.equal(r.done, false);
    assert.equal(
      r.observations[0].content,
      "Previous response had parsing errors:\nERROR: No valid JSON found in response\nWARNINGS: - No valid JSON " +
        "object found\n\nPlease fix these issues and provide a proper JSON response.",
    );
  });
});

// The oracle on the example tasks (solve.sh typed into the pane, then the double confirmation; count-error-lines
// scores 0, no answer channel) is in tests/profiles_suite_test.ts.
