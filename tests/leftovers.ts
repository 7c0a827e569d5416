/**
 * Run around the test suite (`deno task test`): `--mark` before it notes the time, and the run after it fails when a
 * container outlived the test that made it:
 * - any pgs container on this host whose owning process is gone (containers of a live pgs run beside the tests are not
 *   counted);
 * - any stopped container without our label created since the mark: the builder's intermediate container of a failed
 *   `RUN` step is one, and it carries no label of ours. Running ones are left out, as they may be someone's build.
 */
import { createHash } from "node:crypto";
import { hostname, tmpdir } from "node:os";
import * as path from "node:path";
import { Docker } from "../lib/runtime/docker/mod.ts";
import { Podman } from "../lib/runtime/podman/mod.ts";
import { ownerAlive } from "../lib/runtime/hygiene.ts";

const markFile = path.join(
  tmpdir(),
  `pgs-tests-${createHash("sha256").update(Deno.cwd()).digest("hex").slice(0, 12)}.mark`,
);
if (Deno.args[0] === "--mark") {
  // Docker prints creation times to the second; a second of slack keeps a container made in the mark's second.
  await Deno.writeTextFile(markFile, String(Date.now() - 1000));
  Deno.exit(0);
}

const ci = Deno.env.get("CI") === "true";
const since = await Deno.readTextFile(markFile).then(Number, () => NaN);
const hosts = [Deno.env.get("DOCKER_HOST"), Deno.env.get("PGS_DOCKER_HOST_2")].filter((h, i) => i === 0 || h);
/** An engine checked, and how its `ps --format` reads a label (podman's ps has no `.Label`). */
interface Checked {
  where: string;
  cli: Docker;
  label: (key: string) => string;
}
const podman = new Podman(Deno.env.get("CONTAINER_HOST") || undefined);
const podmanRequired = (Deno.env.get("PGS_REQUIRE_RUNTIMES") ?? "").split(",").map((s) => s.trim()).includes("podman");
const engines: Checked[] = [
  ...hosts.map((h) => ({
    where: h ?? "the default engine",
    cli: new Docker(h),
    label: (k: string) => `{{.Label "${k}"}}`,
  })),
  // podman when it is here: its tests leave nothing behind either.
  ...(podmanRequired || await podman.ping()
    ? [{ where: `podman (${podman.engine})`, cli: podman, label: (k: string) => `{{index .Labels "${k}"}}` }]
    : []),
];

/** `ps -a ...args` on an engine, bounded like every call of the project: its lines, or null when it fails. */
async function ps(cli: Docker, args: string[]): Promise<string[] | null> {
  const r = await cli.call(["ps", "-a", ...args], { timeoutMs: 30_000 }).catch(() => null);
  return r?.code === 0 ? new TextDecoder().decode(r.stdout).split("\n").filter(Boolean) : null;
}

/** Docker's `CreatedAt` ("2026-12-03 07:16:05 +0000 UTC") as epoch milliseconds. */
function createdMs(s: string): number {
  const m = /^(\S+) (\S+) ([+-]\d\d)(\d\d)/.exec(s);
  return m ? Date.parse(`${m[1]}T${m[2]}${m[3]}:${m[4]}`) : NaN;
}

let failed = false;
for (const { where, cli, label } of engines) {
  const ours = await ps(cli, [
    "--filter",
    "label=pgs=1",
    "--filter",
    `label=pgs.host=${hostname()}`,
    "--format",
    `{{.ID}} ${["pgs.pid", "pgs.pid-start", "pgs.role", "pgs.task"].map(label).join(" ")}`,
  ]);
  const stopped = await ps(cli, [
    "--filter",
    "status=exited",
    "--filter",
    "status=created",
    "--format",
    `{{.ID}}\t${label("pgs")}\t{{.CreatedAt}}\t{{.Command}}`,
  ]);
  if (ours === null || stopped === null) {
    console.error(`leftovers: docker ps failed on ${where}${ci ? "" : " (no engine; skipped)"}`);
    failed ||= ci;
    continue;
  }
  const leaked = ours.filter((l) => {
    const [, pid, start] = l.split(" ");
    return !ownerAlive(Number(pid), start ?? "");
  });
  const strays = Number.isNaN(since) ? [] : stopped.filter((l) => {
    const [, label, created] = l.split("\t");
    return !label && createdMs(created) >= since;
  }).map((l) => l.replaceAll("\t", " "));
  if (leaked.length) {
    console.error(
      `leftovers: ${leaked.length} container(s) on ${where} outlived their test process:\n${leaked.join("\n")}`,
    );
  }
  if (strays.length) {
    console.error(
      `leftovers: ${strays.length} unlabelled stopped container(s) on ${where} were made during the tests:\n` +
        strays.join("\n"),
    );
  }
  if (leaked.length || strays.length) failed = true;
  else console.error(`leftovers: no container left behind on ${where}`);
}
if (Number.isNaN(since)) console.error(`leftovers: no mark at ${markFile} (run with --mark first); strays not checked`);
else await Deno.remove(markFile).catch(() => {});
if (failed) Deno.exit(1);
