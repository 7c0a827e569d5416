/** The built-in runtimes, one line each: name → how to make a client of its engine. */
import { Docker } from "./docker/docker.ts";
import { type CliEngine, DOCKER_ENGINE } from "./docker/engine.ts";
import { Podman } from "./podman/podman.ts";
import type { RuntimeEntry } from "./runtime.ts";

/** Every runtime pgs ships; `registry.ts` starts from this table. */
export const BUILTIN_RUNTIMES: Record<string, RuntimeEntry> = {
  docker: {
    description: "a Docker engine through the docker CLI (DOCKER_HOST)",
    create: (o) => new Docker(o.host, withNetwork(DOCKER_ENGINE, o.network)),
  },
  podman: {
    description: "podman through the podman CLI (CONTAINER_HOST)",
    create: (o) => new Podman(o.host, o.network),
  },
};

/** `cli` with `network` as its public network, when given. */
function withNetwork(cli: CliEngine, network?: string): CliEngine {
  return network ? { ...cli, network } : cli;
}
