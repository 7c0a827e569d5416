/**
 * What tells one Docker-compatible CLI from another, as data: the binary, the variable that names its engine, and
 * the quirks the shared CLI driver (`cli.ts`, `docker.ts`) reads. Docker's own values are `DOCKER_ENGINE`; another
 * engine driven through a docker-like CLI (podman) is another value plus overrides where its argv differs.
 */

/** A docker-like CLI and its quirks. */
export interface CliEngine {
  /** The runtime's registry name (`docker`). */
  kind: string;
  /** The CLI to run (`docker`). */
  binary: string;
  /** The environment variable that names the engine (`DOCKER_HOST`); pinned for every call when a host is given. */
  hostVar: string;
  /** The engine's address in messages when neither the client nor the environment names one. */
  defaultHost: string;
  /**
   * The health probe's argv: a call that waits on the engine's locks, so that a deadlocked daemon fails it (Docker:
   * a lookup of the `none` network, see `DockerCli.ping`).
   */
  probe: string[];
  /** Flags every `run`/`create` gets before the limits (Docker: `--init`). */
  initArgs: string[];
  /**
   * Remove boxes one at a time, each its own call: always, never, or `by-version`, when the engine's version has
   * moby/moby#46661 (dockerd before 20.10.27; see `removal_deadlock.ts`).
   */
  serialRemovals: boolean | "by-version";
  /** How `ps --format` reads label `key` (default Docker's `{{.Label "key"}}`; podman's ps has no `.Label`). */
  labelField?: (key: string) => string;
  /** An `info` argv printing `DRIVER\tSTATUS`: the storage driver and its status as JSON (`storage.ts`). */
  storageProbe: string[];
  /** The engine's default network, which a box allowed the network joins unless `network` names another. */
  defaultNetwork: string;
  /** The network a box allowed the network joins, when not the engine's default (`RuntimeOptions.network`). */
  network?: string;
  /** A box started with `--network none` can be connected later (Docker: yes; podman: no, see `BoxLimits`). */
  connectsFromNone: boolean;
}

/** The `docker` CLI. */
export const DOCKER_ENGINE: CliEngine = {
  kind: "docker",
  binary: "docker",
  hostVar: "DOCKER_HOST",
  defaultHost: "unix:///var/run/docker.sock",
  probe: ["network", "inspect", "--format", "{{.Name}}", "none"],
  initArgs: ["--init"],
  serialRemovals: "by-version",
  storageProbe: ["info", "--format", "{{.Driver}}\t{{json .DriverStatus}}"],
  defaultNetwork: "bridge",
  connectsFromNone: true,
};
