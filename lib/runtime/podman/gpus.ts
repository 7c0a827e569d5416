/**
 * Whether podman can give boxes GPUs: podman passes GPUs as CDI devices (`--device nvidia.com/gpu=N`), which need a
 * CDI spec on the host (`nvidia-ctk cdi generate`); its `--gpus` flag is accepted and ignored.
 */

/** Where podman reads CDI specs. */
const CDI_DIRS = ["/etc/cdi", "/var/run/cdi"];

/** Why podman cannot give boxes GPUs, or undefined when a CDI spec names `nvidia.com/gpu`; `host`: a remote one. */
export async function cdiGpuProblem(host?: string, dirs = CDI_DIRS): Promise<string | undefined> {
  if (host) return `GPUs through a remote podman (${host}) are not supported: its CDI specs cannot be read from here`;
  for (const dir of dirs) {
    let names: string[] = [];
    try {
      for await (const e of Deno.readDir(dir)) if (/\.(ya?ml|json)$/.test(e.name)) names.push(e.name);
    } catch {
      continue;
    }
    names = names.sort();
    for (const name of names) {
      const spec = await Deno.readTextFile(`${dir}/${name}`).catch(() => "");
      if (/nvidia\.com\/gpu/.test(spec)) return undefined;
    }
  }
  return "podman has no CDI spec for nvidia.com/gpu (generate one: nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml)";
}
