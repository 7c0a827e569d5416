/**
 * `pgs harbor pod TASK_DIR [--out FILE] [--network] [--image SERVICE=REF ...] [--name NAME] [--workdir DIR]
 * [--hosts-file FILE]`: an episode's pod as a Kubernetes Pod manifest (issue #41), written without an engine.
 */
import { dirname, resolve } from "node:path";
import { InfraError, TaskError, UsageError } from "../lib/base/errors.ts";
import { buildTag, serviceBuildOptions } from "../lib/runtime/images.ts";
import { hostsFileText, type PodManifestInput, podManifestYaml } from "../lib/runtime/kube_manifest.ts";
import { readEnvFiles, sidecarsOf } from "../lib/runtime/pod.ts";
import { taskWorkdir } from "../lib/runtime/workdir.ts";
import type { ComposeModel } from "../lib/task/compose_types.ts";
import { networkAllowed } from "../lib/task/network_plan.ts";
import { loadTask, type Task } from "../lib/task/task.ts";
import { type Command, parseFlags } from "./args.ts";
import { checkOutputFile } from "./output_path.ts";

const CMD = "harbor pod";

const usage =
  `Usage: pgs harbor pod TASK_DIR [--out FILE] [--network] [--image SERVICE=REF ...] [--name NAME] [--workdir DIR]
                      [--hosts-file FILE]

Prints the Kubernetes Pod manifest (YAML) of an episode's pod of the task at TASK_DIR, for \`podman kube play\`: the
agent's box \`main\` (command \`sleep infinity\`, the task's working directory, environment, CPUs and memory) and the
services of environment/docker-compose.yaml (a task without one is a pod of \`main\` alone). Nothing is built or
pulled: main runs [environment] docker_image, else the tag pgs builds environment/Dockerfile as (pgs-env:<hash>); a
service its \`image\`, else the tag of its \`build\` (pgs-svc:<hash>). A pod without the network carries the annotation
\`pgs/network: none\`: play it with \`podman kube play --network none\` (and --hosts-file). podman 4.3 refuses a working
directory main's image lacks, which \`podman run\` would make: give --image main=REF of an image that holds it (pgs
bakes it, with environment/workdir/, into the image an episode runs) when the task's image does not.

Options:
  --out FILE              write the manifest to FILE (replaced whole) instead of stdout
  --network               give the pod the network (default: the task's [environment] network)
  --image SERVICE=REF     run REF for SERVICE (\`main\` or a service of the compose file); repeatable
  --name NAME             the pod's name, a DNS-1123 label (default pgs-<task name>)
  --workdir DIR           main's working directory (default: task.toml's, else the Dockerfile's WORKDIR, else
                          /workdir; an image's own WORKDIR is known only to the engine)
  --hosts-file FILE       write the pod's /etc/hosts to FILE and mount it in every container (podman 4.3 under
                          --network none drops the service names otherwise)
  -h, --help              this help`;

/** What `taskPodInput` makes of a task beside its files. */
export interface TaskPodOptions {
  /** The pod's name (default `podName(task.name)`). */
  name?: string;
  /** Whether the pod may reach the network (default: the task's `[environment]` network, as pgs starts the box). */
  network?: boolean;
  /** Image references by service (`main` included) over the ones pgs would run (default {}). */
  images?: Record<string, string>;
  /** main's working directory (default `taskWorkdir(task)` without an engine). */
  workdir?: string;
  /** A hosts file (`hostsFileText`) mounted at /etc/hosts of every container (default: none). */
  hostsFile?: string;
  /** Labels of the pod (default {}). */
  labels?: Record<string, string>;
}

/** A DNS-1123 label: lowercase letters, digits and dashes, at most 63, starting and ending alphanumeric. */
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** `pgs-<task name>` made a DNS-1123 label (lowercased, other characters as dashes, cut to 63). */
export function podName(task: string): string {
  const slug = task.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/-+/g, "-").replace(/^-|-$/g, "");
  return `pgs-${slug}`.slice(0, 63).replace(/-+$/, "");
}

/** A task's compose model, or the model of a pod of `main` alone for a task without a compose file. */
function modelOf(task: Task): ComposeModel {
  return task.compose ?? {
    file: "",
    services: {},
    mainFields: [],
    volumes: [],
    startOrder: [],
    inactive: [],
    unsetVariables: [],
  };
}

/**
 * The image references an episode of `task` runs, by service, without building or pulling: main's `[environment]
 * docker_image`, else the tag pgs builds environment/Dockerfile as; a sidecar's `image`, else its build's tag.
 * `given` replaces any of them (and spares hashing its context).
 */
export async function taskImageRefs(task: Task, given: Record<string, string> = {}): Promise<Record<string, string>> {
  const refs: Record<string, string> = {};
  refs.main = given.main ?? task.config.environment.dockerImage ?? await buildTag(task.paths.environmentDir);
  for (const s of sidecarsOf(modelOf(task))) {
    if (given[s.name]) refs[s.name] = given[s.name];
    else if (s.build) refs[s.name] = await buildTag(s.build.context, serviceBuildOptions(s.build), "pgs-svc");
    else if (s.image) refs[s.name] = s.image;
    else throw new TaskError(task.compose!.file, `service ${s.name} has neither image nor build`);
  }
  return refs;
}

/**
 * The `podManifest` input of an episode's pod of `task`: main runs `sleep infinity` in the task's working directory
 * with `[environment]` env (the compose file's `main` env_file and environment over it), CPUs and memory; every
 * service's env_file is folded into its environment.
 */
export async function taskPodInput(task: Task, opts: TaskPodOptions = {}): Promise<PodManifestInput> {
  const base = modelOf(task);
  const services = Object.fromEntries(
    Object.entries(base.services).map((
      [n, s],
    ) => [n, { ...s, environment: { ...envFiles(task, s), ...s.environment } }]),
  );
  const model: ComposeModel = { ...base, services };
  const env = task.config.environment;
  return {
    name: opts.name ?? podName(task.name),
    task: task.name,
    model,
    images: await taskImageRefs(task, opts.images),
    main: {
      command: ["sleep", "infinity"],
      workdir: opts.workdir ?? await taskWorkdir(task),
      env: { ...env.env, ...(services.main?.environment ?? {}) },
      cpus: env.cpus,
      memoryMb: env.memoryMb,
    },
    network: opts.network ?? networkAllowed(env.network),
    labels: opts.labels ?? {},
    ...(opts.hostsFile ? { hostsFile: opts.hostsFile } : {}),
  };
}

/** A service's env_file lines; an unreadable required file is the task's fault (a TaskError naming it). */
function envFiles(task: Task, s: Parameters<typeof readEnvFiles>[0]): Record<string, string> {
  try {
    return readEnvFiles(s);
  } catch (e) {
    if (e instanceof InfraError) throw new TaskError(task.compose?.file ?? task.dir, e.message);
    throw e;
  }
}

/** `SERVICE=REF` pairs, each naming `main` or a service of `model`; a usage error names the bad one. */
function imageFlags(values: string[], model: ComposeModel): Record<string, string> {
  const out: Record<string, string> = {};
  const known = ["main", ...sidecarsOf(model).map((s) => s.name)];
  for (const v of values) {
    const eq = v.indexOf("=");
    const [service, ref] = eq < 0 ? [v, ""] : [v.slice(0, eq), v.slice(eq + 1)];
    if (!service || !ref.trim() || /\s/.test(ref)) {
      throw new UsageError(`${CMD}: --image must be SERVICE=REF, got ${JSON.stringify(v)}`);
    }
    if (!known.includes(service)) {
      throw new UsageError(`${CMD}: --image ${v}: no service ${service} (the pod has ${known.join(", ")})`);
    }
    out[service] = ref;
  }
  return out;
}

/** Writes `text` to `path` whole: a temporary file beside it, renamed over it. */
async function writeWhole(path: string, text: string): Promise<void> {
  const tmp = resolve(dirname(path), `.${crypto.randomUUID().slice(0, 8)}.pgs-tmp`);
  try {
    await Deno.writeTextFile(tmp, text);
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw new UsageError(`${CMD}: cannot write ${path}: ${(e as Error).message}`);
  }
}

/** The `harbor pod` command. */
export const harborPodCommand: Command = {
  name: CMD,
  summary: "print an episode's pod of a task as a Kubernetes Pod manifest (podman kube play)",
  usage,
  async run(argv) {
    const { values, positionals } = parseFlags(CMD, argv, {
      out: { type: "string" },
      network: { type: "boolean" },
      image: { type: "string", multiple: true },
      name: { type: "string" },
      workdir: { type: "string" },
      "hosts-file": { type: "string" },
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length !== 1) throw new UsageError(`${CMD}: expected one TASK_DIR`);
    const dir = positionals[0];
    const stat = await Deno.stat(dir).catch(() => undefined);
    if (!stat?.isDirectory) throw new UsageError(`${CMD}: TASK_DIR ${dir}: no such folder`);
    const name = values.name as string | undefined;
    if (name !== undefined && !DNS_LABEL.test(name)) {
      throw new UsageError(
        `${CMD}: --name must be a DNS-1123 label (a-z, 0-9 and -, at most 63), got ${JSON.stringify(name)}`,
      );
    }
    const workdir = values.workdir as string | undefined;
    if (workdir !== undefined && !workdir.startsWith("/")) {
      throw new UsageError(`${CMD}: --workdir must be an absolute path, got ${JSON.stringify(workdir)}`);
    }
    const out = values.out as string | undefined;
    if (out !== undefined) await checkOutputFile(CMD, "--out", out);
    const hostsFile = values["hosts-file"] as string | undefined;
    if (hostsFile !== undefined) await checkOutputFile(CMD, "--hosts-file", hostsFile);
    const task = await loadTask(dir);
    const images = imageFlags((values.image as string[] | undefined) ?? [], modelOf(task));
    const input = await taskPodInput(task, {
      name,
      images,
      workdir,
      ...(values.network ? { network: true } : {}),
      ...(hostsFile !== undefined ? { hostsFile: resolve(hostsFile) } : {}),
    });
    const yaml = podManifestYaml(input);
    if (hostsFile !== undefined) await writeWhole(hostsFile, hostsFileText(input.model));
    if (out === undefined) await Deno.stdout.write(new TextEncoder().encode(yaml));
    else {
      await writeWhole(out, yaml);
      console.error(`wrote pod ${input.name} of ${task.name} to ${out}`);
    }
    return 0;
  },
};
