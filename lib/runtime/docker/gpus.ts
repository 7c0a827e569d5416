/** Whether a Docker engine can give containers GPUs (`run --gpus N`): it needs the nvidia runtime registered. */
import type { DockerCli } from "./cli.ts";

const checked = new WeakMap<DockerCli, Promise<string | undefined>>();

/** Why `docker` cannot give containers GPUs (no nvidia runtime or CDI devices), or undefined when it can; asked once. */
export function gpuProblem(docker: DockerCli): Promise<string | undefined> {
  let p = checked.get(docker);
  if (!p) {
    p = (async () => {
      const r = await docker.call(["info", "--format", "{{json .Runtimes}} {{json .CDISpecDirs}}"]);
      if (r.code !== 0) return `${docker.cli.binary} info failed: ${r.stderr.trim()}`;
      const out = new TextDecoder().decode(r.stdout);
      if (/"nvidia"/.test(out)) return undefined;
      return "the Docker engine has no GPU runtime (install nvidia-container-toolkit and register the nvidia runtime)";
    })();
    checked.set(docker, p);
  }
  return p;
}
