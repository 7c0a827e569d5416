/** The task the eval benchmarks run: write `ok` into /workdir/out.txt, scored by a clean-container verifier. */

/** Writes the task into a new temporary folder (with `notes` as environment/workdir/notes.txt) and returns it. */
export async function makeBenchTask(image: string, notes: string, prefix: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  await Deno.mkdir(`${dir}/environment/workdir`, { recursive: true });
  await Deno.mkdir(`${dir}/tests`);
  await Deno.writeTextFile(`${dir}/task.toml`, `[environment]\ndocker_image = "${image}"\n`);
  await Deno.writeTextFile(`${dir}/instruction.md`, "Write ok into /workdir/out.txt.\n");
  await Deno.writeTextFile(`${dir}/environment/workdir/notes.txt`, notes);
  await Deno.writeTextFile(
    `${dir}/tests/test.sh`,
    "#!/bin/sh\n" +
      '[ "$(cat /workdir/out.txt)" = ok ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n',
  );
  return dir;
}
