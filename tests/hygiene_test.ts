/** Container hygiene against a real engine: orphans of dead processes are reaped; signals and exit remove containers. */
import assert from "node:assert/strict";
import { hostname } from "node:os";
import * as path from "node:path";
import { Docker } from "../lib/runtime/docker/mod.ts";
import { trackedContainers } from "../lib/runtime/hygiene.ts";
import {
  BASE_IMAGE,
  containersWith,
  countPidContainers,
  dockerTest,
  makeTask,
  removeTask,
  startContainer,
  uniqueName,
  waitFor,
} from "./docker_helpers.ts";

const FIXTURE = path.join(import.meta.dirname!, "fixtures", "hold_sandbox.ts");
const ROOT = path.join(import.meta.dirname!, "..");

/** The start time (field 22 of /proc/PID/stat) hygiene labels carry. */
function processStart(pid: number): string {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

/** Starts an unmanaged container labelled as pgs's with the given owner labels; returns its id. */
async function labelled(docker: Docker, tag: string, labels: Record<string, string>): Promise<string> {
  const all = { "pgs": "1", "pgs.role": "test", "pgs.task": tag, ...labels };
  const args = ["run", "-d", "--network", "none", ...Object.entries(all).flatMap(([k, v]) => ["--label", `${k}=${v}`])];
  return (await docker.ok([...args, BASE_IMAGE, "sleep", "infinity"], "start")).trim();
}

async function exists(docker: Docker, id: string): Promise<boolean> {
  return (await docker.call(["inspect", "--format", "{{.Id}}", id])).code === 0;
}

dockerTest("hygiene: sweepOrphans removes containers of dead owners on this host, and only those", async (docker) => {
  const tag = uniqueName("reap");
  const host = hostname();
  // A live owner: a child process of ours, with its real start time.
  const owner = new Deno.Command("sleep", { args: ["300"] }).spawn();
  const ids: string[] = [];
  try {
    const pidMax = Number(Deno.readTextFileSync("/proc/sys/kernel/pid_max"));
    const deadPid = String(pidMax < 999999 ? 999999 : pidMax + 1);
    const dead = await labelled(docker, tag, { "pgs.host": host, "pgs.pid": deadPid });
    const reused = await labelled(docker, tag, {
      "pgs.host": host,
      "pgs.pid": String(owner.pid),
      "pgs.pid-start": "1", // the pid is alive, but it is another process now
    });
    const alive = await labelled(docker, tag, {
      "pgs.host": host,
      "pgs.pid": String(owner.pid),
      "pgs.pid-start": processStart(owner.pid),
    });
    const aliveNoStart = await labelled(docker, tag, { "pgs.host": host, "pgs.pid": String(owner.pid) });
    const elsewhere = await labelled(docker, tag, { "pgs.host": `not-${host}`, "pgs.pid": deadPid });
    ids.push(dead, reused, alive, aliveNoStart, elsewhere);

    // A new client: reaping runs once per engine client per process.
    const fresh = new Docker(docker.host);
    const reaped = await fresh.sweepOrphans();
    assert.deepEqual(await fresh.sweepOrphans(), [], "a second call on the same client does nothing");
    for (const id of reaped) assert.ok(!ids.includes(id) || [dead, reused].includes(id), `${id} was reaped`);
    // Another test module's reaper may be removing them at the same moment: allow that removal to finish.
    const gone = (id: string) => waitFor(async () => !await exists(docker, id), 15_000);
    assert.equal(await gone(dead), true, "the dead owner's container is still there");
    assert.equal(await gone(reused), true, "the reused pid's container is still there");
    assert.equal(await exists(docker, alive), true);
    assert.equal(await exists(docker, aliveNoStart), true);
    assert.equal(await exists(docker, elsewhere), true, "another host's container was reaped");
  } finally {
    owner.kill("SIGKILL");
    await owner.status;
    if (ids.length) await docker.call(["rm", "-f", ...ids]);
  }
  assert.deepEqual(await containersWith(docker, `pgs.task=${tag}`), []);
});

for (const how of ["SIGTERM", "SIGINT", "end", "embed"] as const) {
  const what = how === "end"
    ? "a normal exit"
    : how === "embed"
    ? "SIGTERM when a host embeds the library: the host's own handler runs, and env.close() removes them"
    : `${how} under the CLI's handler`;
  dockerTest(
    `hygiene: a process removes its containers on ${what}`,
    async (docker) => {
      const dir = await makeTask({});
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--quiet", FIXTURE, dir, how === "end" || how === "embed" ? how : "wait"],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
        env: { NO_COLOR: "1" },
      }).spawn();
      const stderr = new Response(child.stderr).text();
      const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      try {
        let out = "";
        let id = "";
        while (!id) {
          const { value, done } = await lines.read();
          if (done) break;
          out += value;
          id = out.match(/^READY (\w+)$/m)?.[1] ?? "";
        }
        if (!id) {
          child.kill("SIGKILL");
          assert.fail(`the child did not start its sandbox: ${out} ${await stderr}`);
        }
        if (how !== "end") {
          // The episode's container and the verifier's, prepared ahead.
          assert.ok(await countPidContainers(docker, child.pid) >= 1);
          assert.equal(await exists(docker, id), true);
          child.kill(how === "embed" ? "SIGTERM" : how);
        }
        const status = await child.status;
        const expected = { SIGTERM: 143, SIGINT: 130, end: 0, embed: 7 }[how];
        assert.equal(status.code, expected, await stderr);
        if (how === "embed") {
          for (;;) {
            const { value, done } = await lines.read();
            if (done) break;
            out += value;
          }
          assert.match(out, /^HOST SIGTERM$/m);
          assert.match(out, /^CLOSED 0$/m);
        }
        assert.equal(await exists(docker, id), false, "the episode container is left");
        assert.equal(await countPidContainers(docker, child.pid), 0);
      } finally {
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
        await child.status;
        await lines.cancel().catch(() => {});
        await stderr.catch(() => "");
        // Whatever went wrong, leave nothing behind.
        const left = await containersWith(docker, `pgs.pid=${child.pid}`);
        if (left.length) await docker.call(["rm", "-f", ...left]);
        await removeTask(dir);
      }
    },
  );
}

dockerTest(
  "hygiene: removals on one engine go one at a time, one container per call; an unknown id counts as gone",
  async (docker) => {
    // The same engine, recording the CLI calls made through it and how many overlap.
    const calls: string[][] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const counting = new class extends Docker {
      override async call(args: string[], opts?: Parameters<Docker["call"]>[1]) {
        calls.push(args);
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        try {
          return await super.call(args, opts);
        } finally {
          inFlight--;
        }
      }
    }(docker.host);
    // Tracked by the client that removes them: tracking is each runtime's own state.
    const a = await startContainer(counting);
    const b = await startContainer(counting);
    // Asked once per engine, by its version: this Debian engine (20.10.24) has the bug, a newer one would not.
    const serial = await counting.hygiene.serialRemovals();
    calls.length = 0;
    maxInFlight = 0;
    const unknown = "0123456789ab0123456789ab0123456789ab0123456789ab0123456789abcdef";
    const results = await Promise.all([a.id, b.id, unknown].map((id) => counting.box(id).remove()));
    assert.deepEqual(results, [true, true, true]);
    // dockerd 20.10 deadlocks when two network teardowns overlap (moby/moby#46661): never two removals at once.
    assert.deepEqual(calls.sort(), [a.id, b.id, unknown].map((id) => ["rm", "-f", "-v", id]).sort());
    if (serial) assert.equal(maxInFlight, 1);
    for (const id of [a.id, b.id]) {
      assert.notEqual((await docker.call(["inspect", id])).code, 0, "removed");
      assert.ok(!trackedContainers().includes(id));
    }
    // An engine that does not answer fails the removal, and the container stays tracked.
    const dead = new Docker("unix:///nonexistent/pgs.sock");
    dead.hygiene.track("feedfacefeed");
    assert.deepEqual(await Promise.all([dead.box("feedfacefeed").remove()]), [false]);
    assert.ok(trackedContainers().includes("feedfacefeed"));
    dead.hygiene.untrack("feedfacefeed");
  },
);

dockerTest(
  "hygiene: a stop's sweep returns only once the engine lists none of its boxes, racing their own removals",
  async (docker) => {
    const race = path.join(import.meta.dirname!, "fixtures", "remove_race.ts");
    // Each round races a second removal of every box against the sweep; "already in progress" is hit only some rounds.
    for (let round = 0; round < 6; round++) {
      const r = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--quiet", race, "4"],
        cwd: ROOT,
        env: { NO_COLOR: "1" },
      }).output();
      const out = new TextDecoder().decode(r.stdout);
      assert.ok(r.success, new TextDecoder().decode(r.stderr));
      assert.match(out, /^LEFT 0$/m, `round ${round}: ${out}`);
    }
    assert.equal(
      await docker.call(["ps", "-aq", "--filter", "label=pgs.task=remove-race"]).then((x) => x.stdout.length),
      0,
    );
  },
);
