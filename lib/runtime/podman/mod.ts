/**
 * podman as a `Runtime`, through the `podman` CLI: Docker's driver (`../docker/`) with podman's `CliEngine`, plus
 * what differs (working directories, copies, names, pulls, GPUs). Only `lib/runtime/` imports this folder.
 * @module
 */
export { Podman } from "./podman.ts";
export { PodmanBox } from "./box.ts";
export { PODMAN_ENGINE, podmanRunArgs, qualifiedRef } from "./engine.ts";
export { tarGuard } from "./tar_guard.ts";
