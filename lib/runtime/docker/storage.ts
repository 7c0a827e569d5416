/**
 * Per-box disk bounds on a docker-like engine: `--storage-opt size=NM`, which only some storage drivers enforce
 * (btrfs and zfs; overlay only on XFS mounted with project quotas). Whether this engine can is read once from its
 * `info` (the driver and its backing filesystem); a driver that might but refuses the flag at the first start
 * (overlay on XFS without pquota, podman 4's btrfs) is found then. Where it cannot, boxes start unbounded and the
 * run says so once.
 */
import { lastWords } from "./cli.ts";
import type { DockerCli } from "./cli.ts";

/** What an engine's `info` says of its storage. */
export interface StorageFacts {
  /** The storage driver (`overlay2`, `btrfs`, `overlay`, ...). */
  driver: string;
  /** The filesystem under it ("" when the engine does not say). */
  backing: string;
}

/** The bound of the `info` call. */
const INFO_MS = 15_000;

/** A start refused because the driver cannot bound a box (Docker's and podman's words). */
const REFUSED =
  /storage-opt is supported only|only supported for backingFS|unknown option size|storage.?opt[^\n]*not supported|not supported[^\n]*storage.?opt/i;
/** A start refused because the bound is below what the image itself takes (btrfs counts the image's bytes). */
const BELOW_IMAGE = /Failed to limit qgroup|qgroup[^\n]*quota exceeded|storage size cannot be less/i;

/** True when an engine's start error says its driver cannot bound a box's disk. */
export function refusesDiskBound(stderr: string): boolean {
  return REFUSED.test(stderr);
}

/** True when an engine's start error says the bound is below the image's own size. */
export function belowImageSize(stderr: string): boolean {
  return BELOW_IMAGE.test(stderr);
}

/**
 * The driver and backing filesystem from `info` output `DRIVER\tSTATUS`, STATUS being Docker's `DriverStatus` (a
 * JSON list of pairs) or podman's `GraphStatus` (a JSON object).
 */
export function parseStorageInfo(out: string): StorageFacts {
  const [driver, json] = out.trim().split("\t");
  let status: unknown;
  try {
    status = JSON.parse(json ?? "null");
  } catch {
    status = null;
  }
  const pairs: [string, string][] = Array.isArray(status)
    ? status.filter((p) => Array.isArray(p) && p.length === 2).map((p) => [String(p[0]), String(p[1])])
    : status && typeof status === "object"
    ? Object.entries(status).map(([k, v]) => [k, String(v)])
    : [];
  const backing = pairs.find(([k]) => k.toLowerCase() === "backing filesystem")?.[1] ?? "";
  return { driver: (driver ?? "").trim(), backing };
}

/** The once-per-run line for an engine that cannot bound a box's disk. */
export function diskBoundLine(kind: string, engine: string, facts: StorageFacts, why?: string): string {
  const on = facts.backing ? ` on ${facts.backing}` : "";
  return `${kind} engine ${engine} (storage driver ${facts.driver || "unknown"}${on}) cannot bound a box's disk: ` +
    `storage_mb is not enforced in this run (${
      why ?? "a per-box size needs the btrfs or zfs driver, or overlay on XFS with pquota"
    }; see docs/runtimes.md)`;
}

/** Why `facts`' driver cannot bound a box (the once-per-run line), or undefined when it may. */
export function storageVerdict(kind: string, engine: string, facts: StorageFacts): string | undefined {
  const d = facts.driver.toLowerCase();
  if (["btrfs", "zfs", "devicemapper"].includes(d)) return undefined;
  if (["overlay", "overlay2", "vfs"].includes(d) && facts.backing.toLowerCase() === "xfs") return undefined;
  return diskBoundLine(kind, engine, facts);
}

/** Asks `cli`'s engine (bounded) whether it can bound a box's disk; the once-per-run line when it cannot. */
export async function probeDiskBound(cli: DockerCli): Promise<{ facts: StorageFacts; problem?: string }> {
  const unknown: StorageFacts = { driver: "", backing: "" };
  try {
    const r = await cli.call(cli.cli.storageProbe, { timeoutMs: INFO_MS });
    if (r.code !== 0 || r.timedOut) {
      const why = `its info did not say: ${r.timedOut ? `timed out after ${INFO_MS} ms` : lastWords(r.stderr)}`;
      return { facts: unknown, problem: diskBoundLine(cli.cli.kind, cli.engine, unknown, why) };
    }
    const facts = parseStorageInfo(new TextDecoder().decode(r.stdout));
    return { facts, problem: storageVerdict(cli.cli.kind, cli.engine, facts) };
  } catch (e) {
    return { facts: unknown, problem: diskBoundLine(cli.cli.kind, cli.engine, unknown, (e as Error).message) };
  }
}
