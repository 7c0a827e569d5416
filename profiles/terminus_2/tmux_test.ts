/** The tmux pane op: keystrokes, deterministic waits, captures. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Tmux } from "./tmux.ts";
import { ImageStore } from "../../lib/runtime/images.ts";
import { Sandbox } from "../../lib/runtime/sandbox.ts";
import { loadTask } from "../../lib/task/task.ts";
import { dockerTest } from "../../tests/docker_helpers.ts";
import { EXAMPLE_TASKS } from "../../tests/profile_helpers.ts";

dockerTest("tmux: keys run in a persistent pane; the wait ends when the command finishes, not at the deadline", async (
  docker,
) => {
  const task = await loadTask(join(EXAMPLE_TASKS, "count-error-lines"));
  const box = await Sandbox.start(task, new ImageStore(docker));
  try {
    const t = await Tmux.start(box);
    await t.keys(["cd /tmp && export X=42", "Enter"]);
    await t.wait(5);
    await t.keys(["sleep 1; echo done-$X-$(pwd)", "Enter"]);
    // Settled: the wait ended because the pane did, not at its deadline; and the command's output was there by then.
    const w = await t.wait(20);
    assert.equal(w.settled, true);
    assert.match(await t.capture(), /done-42-\/tmp/);
    await t.keys(["sleep 30", "Enter"]);
    const cut = await t.wait(1);
    assert.equal(cut.settled, false);
    await t.keys(["C-c"]);
    assert.equal((await t.wait(5)).settled, true);
    await t.type("echo lit\n");
    await t.wait(5);
    const screen = await t.capture(true);
    assert.match(screen, /^lit$/m);
    assert.equal((await box.exec("tmux display -p '#{window_width}x#{window_height}'")).exitCode, 0);
  } finally {
    await box.remove();
  }
});
