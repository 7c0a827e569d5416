/** `pgs harness capture AGENT --task DIR --script turns.json --out DIR [...]`: record a real harness against the stub. */
import { UsageError } from "../lib/base/errors.ts";
import { isPair } from "../lib/capture/harbor_command.ts";
import { runHarbor } from "../lib/capture/run_harbor.ts";
import { CaptureError, runLocal } from "../lib/capture/run_local.ts";
import { harborWiring, localRecipe } from "../lib/capture/recipes.ts";
import { defaultVersion, getProfile, profileNames } from "../lib/harness/registry.ts";
import { parseScript, type Turn } from "../lib/script/script.ts";
import { type Command, parseFlags, positiveInt } from "./args.ts";
import { checkOutputFolder } from "./output_path.ts";

const usage =
  `Usage: pgs harness capture AGENT --task DIR --script turns.json --out DIR [--model NAME] [--harbor VERSION]
                           [--host-ip IP] [--ak key=value ...] [--ae KEY=VALUE ...] [--local] [--bin PATH] [--timeout S]

Starts the recording stub, runs the real agent once against it, and writes requests.jsonl, command.json and the
harness's log into --out. By default through the Harbor CLI (uv run --with harbor==VERSION harbor run -p TASK -a AGENT
...; log in harbor.log). With --local, runs an npm-installed harness (a profile with a local capture recipe: pgs
harness profiles --long names them; AGENT@VERSION picks a version's recipe) in a scratch copy of the task's
environment/workdir with its own HOME, telemetry and updates off (log in harness.log).

Options:
  --task DIR       the task directory (instruction.md, environment/workdir) (required)
  --script FILE    turns.json: the stub's script (required)
  --out DIR        where the recording goes (required; created; a recording already in it is replaced)
  --model NAME     the model name the stub answers as (default stub-model)
  --harbor VER     Harbor version for uv run --with (default 0.24.0)
  --host-ip IP     the host's address as the task container sees it (default 172.17.0.1)
  --ak key=value   extra agent kwarg for Harbor (repeatable)
  --ae KEY=VALUE   extra agent environment for Harbor (repeatable)
  --local          run the harness binary here instead of through Harbor
  --bin PATH       the harness binary for --local (default: found on PATH)
  --timeout S      seconds before the run is stopped (default 600)
  -h, --help       this help`;

async function readScript(path: string): Promise<Turn[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new UsageError(`harness capture: cannot read ${path}: ${(e as Error).message}`);
  }
  try {
    return parseScript(text);
  } catch (e) {
    throw new UsageError(`harness capture: ${path}: ${(e as Error).message}`);
  }
}

async function checkTask(task: string): Promise<void> {
  try {
    await Deno.stat(`${task}/instruction.md`);
  } catch {
    throw new UsageError(`harness capture: --task ${task} has no instruction.md`);
  }
}

/** The `harness capture` command. */
export const harnessCapture: Command = {
  name: "harness capture",
  summary: "record a real harness (through Harbor, or --local) against the stub",
  usage,
  async run(argv) {
    const { values, positionals } = parseFlags("harness capture", argv, {
      task: { type: "string" },
      script: { type: "string" },
      out: { type: "string" },
      model: { type: "string" },
      harbor: { type: "string" },
      "host-ip": { type: "string" },
      ak: { type: "string", multiple: true },
      ae: { type: "string", multiple: true },
      local: { type: "boolean" },
      bin: { type: "string" },
      timeout: { type: "string" },
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length !== 1) throw new UsageError("harness capture: expected exactly one AGENT");
    const agent = positionals[0];
    for (const f of ["task", "script", "out"] as const) {
      if (!values[f]) throw new UsageError(`harness capture: --${f} is required`);
    }
    const ak = values.ak ?? [], ae = values.ae ?? [];
    for (const [flag, list] of [["ak", ak], ["ae", ae]] as const) {
      const bad = list.find((p) => !isPair(p));
      if (bad !== undefined) {
        throw new UsageError(`harness capture: --${flag} wants key=value, got ${JSON.stringify(bad)}`);
      }
    }
    if (values.local && (ak.length || ae.length || values.harbor || values["host-ip"])) {
      throw new UsageError("harness capture: --ak, --ae, --harbor and --host-ip are for the Harbor path, not --local");
    }
    if (!values.local && values.bin) throw new UsageError("harness capture: --bin needs --local");
    const timeoutMs = positiveInt("harness capture", "timeout", values.timeout, 600) * 1000;
    const task = values.task!, out = values.out!, model = values.model ?? "stub-model";
    await checkTask(task);
    await checkOutputFolder("harness capture", "--out", out);
    const turns = await readScript(values.script!);
    const registered = profileNames().map((full) => {
      const profile = getProfile(full), isDefault = defaultVersion(profile.name) === profile.version;
      return { full, isDefault, profile };
    });
    try {
      if (values.local) {
        const specs = registered.flatMap((r) => [
          { spec: r.full, profile: r.profile },
          ...(r.isDefault ? [{ spec: r.profile.name, profile: r.profile }] : []),
        ]);
        const found = localRecipe(agent, specs);
        if (!found) {
          const known = specs.filter((s) => s.profile.capture?.local && !s.spec.includes("@")).map((s) => s.spec);
          throw new UsageError(`harness capture: --local supports ${known.join(", ")}; not ${JSON.stringify(agent)}`);
        }
        const r = await runLocal({ ...found, task, turns, out, model, bin: values.bin, timeoutMs });
        const how = r.timedOut ? "timed out" : `exited ${r.code}`;
        console.error(`pgs harness capture: ${agent} ${how}; recorded ${r.requests} requests to ${out}/requests.jsonl`);
        return r.code === 0 && !r.timedOut ? 0 : 1;
      }
      const r = await runHarbor({
        agent,
        task,
        turns,
        out,
        model,
        harbor: values.harbor ?? "0.24.0",
        hostIp: values["host-ip"] ?? "172.17.0.1",
        ak,
        ae,
        timeoutMs,
        wiring: harborWiring(agent, registered.filter((r) => r.isDefault).map((r) => r.profile)),
      });
      console.error(
        `pgs harness capture: harbor exited ${r.code}; recorded ${r.requests} requests to ${out}/requests.jsonl`,
      );
      return r.code === 0 ? 0 : 1;
    } catch (e) {
      if (e instanceof CaptureError) return console.error(`pgs: ${e.message}`), 1;
      throw e;
    }
  },
};
