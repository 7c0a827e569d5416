/** The Harbor capture (docs/spec-notes.md): the stub on the host, the real agent through `uv run ... harbor run`. */
import type { StubWiring } from "../harness/capture_recipe.ts";
import type { Turn } from "../script/script.ts";
import { writeCommandJson } from "./command_json.ts";
import { harborCommand } from "./harbor_command.ts";
import { CaptureError } from "./run_local.ts";
import { runProcess } from "./run_process.ts";
import { startStub } from "../../stub/server.ts";

/** What a Harbor capture needs. */
export interface HarborCaptureOptions {
  agent: string;
  task: string;
  turns: Turn[];
  out: string;
  model: string;
  harbor: string;
  /** The host's address as the task container sees it. */
  hostIp: string;
  ak: string[];
  ae: string[];
  timeoutMs: number;
  /** How the agent is pointed at the stub (default: the OpenAI-style environment). */
  wiring?: (model: string, baseUrl: string, key: string) => StubWiring;
}

/** Starts the stub, writes `command.json`, runs Harbor (log in `harbor.log`); a missing `uv` is a CaptureError. */
export async function runHarbor(o: HarborCaptureOptions): Promise<{ code: number; requests: number }> {
  await Deno.mkdir(o.out, { recursive: true });
  // Listen only on the address the task container reaches (the docker bridge), never on every interface.
  let stub: Awaited<ReturnType<typeof startStub>>;
  try {
    // A real harness sends side requests and may drop a rejected turn: advance per request (see run_local.ts).
    stub = await startStub({
      turns: o.turns,
      out: `${o.out}/requests.jsonl`,
      model: o.model,
      hostname: o.hostIp,
      advance: "requests",
    });
  } catch (e) {
    throw new CaptureError(
      `harness capture: cannot listen on --host-ip ${o.hostIp} (${(e as Error).message}); ` +
        `give the address the task container reaches the host on`,
    );
  }
  try {
    const cmd = harborCommand({ ...o, baseUrl: `http://${o.hostIp}:${stub.port}/v1` });
    const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/tmp" };
    await writeCommandJson(o.out, { mode: "harbor", agent: o.agent, argv: cmd.argv, env });
    try {
      const r = await runProcess({
        argv: cmd.argv,
        cwd: Deno.cwd(),
        env,
        log: `${o.out}/harbor.log`,
        timeoutMs: o.timeoutMs,
      });
      return { code: r.code, requests: stub.count };
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        throw new CaptureError(
          `harness capture: \`uv\` not found; install uv (https://docs.astral.sh/uv/) to run Harbor ${o.harbor}, ` +
            `or use --local (command written to ${o.out}/command.json)`,
        );
      }
      throw e;
    }
  } finally {
    await stub.stop();
  }
}
