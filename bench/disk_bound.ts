/**
 * The host's used disk while a policy writes 6 GB into its working directory under `storage_mb = 1024`: the peak
 * over the episode (sampled every 200 ms with `df` on the filesystem of the engine's data root) and what is left
 * once it is over. Runs on the bounded engine (PGS_DOCKER_HOST_2, btrfs with quotas: `.ci/run` starts one) and, with
 * `--overlay`, on DOCKER_HOST's engine too (overlay on ext4, which cannot bound a box: there only the verifier's copy
 * is capped; that run writes the whole 6 GB to this machine's disk, then removes it).
 *
 *   deno task bench:disk [--overlay] [--gb N]
 */
import { parseArgs } from "node:util";
import { runEpisodes } from "../lib/eval/run_episodes.ts";
import { scriptPolicy } from "../lib/policies/policy.ts";
import { Docker } from "../lib/runtime/docker/mod.ts";
import type { Turn } from "../lib/script/script.ts";
import { registerBuiltins } from "../profiles/mod.ts";

registerBuiltins();
const MB = 1024 * 1024;
const { values } = parseArgs({ options: { overlay: { type: "boolean" }, gb: { type: "string" } } });
const gb = Number(values.gb ?? 6);

/** Bytes used on the filesystem that holds `root`. */
async function used(root: string): Promise<number> {
  const out = await new Deno.Command("df", { args: ["-B1", "--output=used", root], stdout: "piped" }).output();
  return Number(new TextDecoder().decode(out.stdout).trim().split("\n").pop());
}

/** One episode writing `gb` GB on `engine`; the used-disk figures of its data root's filesystem. */
async function measure(label: string, engine: Docker): Promise<void> {
  const info = await engine.call(["info", "--format", "{{.DockerRootDir}}\t{{.Driver}}"]);
  const [root, driver] = new TextDecoder().decode(info.stdout).trim().split("\t");
  const dir = await Deno.makeTempDir({ prefix: "pgs_bench_disk_" });
  await Deno.mkdir(`${dir}/tests`, { recursive: true });
  await Deno.mkdir(`${dir}/environment/workdir`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/task.toml`,
    `[environment]\ndocker_image = "pgs-base:1"\nmemory_mb = 512\nstorage_mb = 1024\n`,
  );
  await Deno.writeTextFile(`${dir}/instruction.md`, "Fill the disk.\n");
  await Deno.writeTextFile(`${dir}/environment/workdir/README`, "x\n");
  await Deno.writeTextFile(`${dir}/tests/test.sh`, "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n");
  const turns: Turn[] = [
    {
      tool_calls: [{
        name: "bash",
        arguments: { command: `dd if=/dev/zero of=/workdir/fill bs=1M count=${gb * 1024}`, timeout: 1800 },
      }],
    },
    { tool_calls: [{ name: "submit", arguments: {} }] },
  ];
  await new Deno.Command("sync").output();
  const before = await used(root);
  let peak = before, sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await used(root));
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const t0 = performance.now();
  try {
    const [[t]] = await runEpisodes(scriptPolicy(turns, "script:disk-bench"), [{ task_dir: dir }], {}, {
      k: 1,
      maxConcurrent: 1,
      hosts: [{ runtime: engine }],
    });
    const secs = (performance.now() - t0) / 1000;
    sampling = false;
    await sampler;
    // btrfs frees a removed subvolume in the background: what is left is read once it settles (up to 60 s).
    let after = await used(root);
    for (let i = 0; i < 60 && after > before + 64 * MB; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      await new Deno.Command("sync").output();
      after = await used(root);
    }
    console.log(
      `${label} (${driver}, ${engine.engine}): ${gb} GB written under storage_mb = 1024: host disk peak +${
        ((peak - before) / MB).toFixed(0)
      } MB, after +${((after - before) / MB).toFixed(0)} MB; episode ${t.exit_status}, reward ${t.reward}, ` +
        `metrics ${JSON.stringify(t.metrics)}, ${secs.toFixed(1)} s`,
    );
  } finally {
    sampling = false;
    await Deno.remove(dir, { recursive: true });
  }
}

const bounded = Deno.env.get("PGS_DOCKER_HOST_2");
if (bounded) await measure("bounded engine", new Docker(bounded));
else console.log("bounded engine: PGS_DOCKER_HOST_2 is not set (a btrfs engine with quotas, see docs/runtimes.md)");
if (values.overlay) await measure("default engine", new Docker(Deno.env.get("DOCKER_HOST") || undefined));
