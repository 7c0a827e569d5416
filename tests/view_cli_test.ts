/**
 * `pgs view`'s bad input and busy port, without an engine (a run folder written from fixture records): `--out` a
 * folder is one line and exit 2, as `harbor audit --report DIR`; a port in use is one line and exit 1, as `env serve`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { oneLine } from "./cli_helpers.ts";
import { traj } from "./trajectory_fixture.ts";

async function withRun(fn: (dir: string, run: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "pgs_view_cli_" });
  try {
    const run = join(dir, "run");
    await Deno.mkdir(run);
    await Deno.writeTextFile(join(run, "trajectories.jsonl"), JSON.stringify(traj({ row_id: "r1", sample: 0 })) + "\n");
    await fn(dir, run);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("view --out an existing folder: one line naming it, exit 2, nothing written there", async () => {
  await withRun(async (dir, run) => {
    const folder = join(dir, "pages");
    await Deno.mkdir(folder);
    await oneLine(["view", run, "--out", folder], 2, /^pgs: view: --out .*pages is a folder; give a file path/);
    assert.deepEqual([...Deno.readDirSync(folder)], []);
  });
});

Deno.test("view --port on a port in use: one line naming the address, exit 1", async () => {
  await withRun(async (_dir, run) => {
    const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const port = (busy.addr as Deno.NetAddr).port;
      await oneLine(
        ["view", run, "--port", String(port)],
        1,
        new RegExp(`^pgs: view: cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use`),
      );
    } finally {
      busy.close();
    }
  });
});
