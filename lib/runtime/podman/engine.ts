/**
 * What tells the `podman` CLI from `docker` as data (`CliEngine`), and the argv rewrites its `run` and `pull` need:
 * podman refuses `-w DIR` when the image lacks DIR, ignores `--gpus`, and resolves no short name against a registry.
 */
import type { CliEngine } from "../docker/mod.ts";
import { LABELS } from "../hygiene.ts";

/** The `podman` CLI (rootful here; `CONTAINER_HOST` names a remote service and makes every call remote). */
export const PODMAN_ENGINE: CliEngine = {
  kind: "podman",
  binary: "podman",
  hostVar: "CONTAINER_HOST",
  defaultHost: "local podman",
  // No daemon to deadlock: a listing takes libpod's state lock, so a process wedged on it fails the probe, and a
  // remote service that does not answer says "Cannot connect to Podman".
  probe: ["ps", "-aq", "--filter", `label=${LABELS.marker}.probe=1`],
  // A zero stop timeout: `rm -f` otherwise sends SIGTERM and waits 10 s when PID 1's child ignores it.
  initArgs: ["--init", "--stop-timeout=0"],
  serialRemovals: false,
  labelField: (key) => `{{index .Labels "${key}"}}`,
  storageProbe: ["info", "--format", "{{.Store.GraphDriverName}}\t{{json .Store.GraphStatus}}"],
  defaultNetwork: "podman",
  // `podman network connect` refuses a box started with `--network none` ("invalid network mode").
  connectsFromNone: false,
};

/**
 * A `run` argv built for Docker, made podman's: `-w DIR` dropped when `keepWorkdir` is false (the image's own
 * WORKDIR is DIR, which podman then creates), `--name` added (a failed `podman run -d` prints no id), and `--gpus=N`
 * replaced by N CDI devices (podman accepts `--gpus` and ignores it).
 */
export function podmanRunArgs(argv: string[], name: string, keepWorkdir: boolean): string[] {
  // Flags come before anything a task supplies (env values are `K=V`), so the first of each is the run's own.
  const out = [...argv];
  const w = out.indexOf("-w");
  if (w > 0 && !keepWorkdir) out.splice(w, 2);
  const g = out.findIndex((a) => /^--gpus=\d+$/.test(a));
  if (g > 0) {
    const n = Number(out[g].slice("--gpus=".length));
    out.splice(g, 1, ...Array.from({ length: n }, (_, i) => ["--device", `nvidia.com/gpu=${i}`]).flat());
  }
  out.splice(1, 0, "--name", name);
  return out;
}

/**
 * The reference podman pulls for `ref`, as Docker resolves it: a name without a registry is Docker Hub's (`library/`
 * when it has no namespace). Podman resolves no short name by default (no unqualified-search registries).
 */
export function qualifiedRef(ref: string): string {
  const first = ref.split("/")[0];
  const hasRegistry = ref.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
  if (hasRegistry) return ref;
  return `docker.io/${ref.includes("/") ? "" : "library/"}${ref}`;
}
