/** Replays a recovered script through a profile's episode on a real task container. */
import type { Runtime } from "../runtime/runtime.ts";
import { type AssistantTurn, ProfileEpisode } from "../harness/profile_episode.ts";
import type { HarnessProfile } from "../harness/types.ts";
import { ImageStore } from "../runtime/images.ts";
import { Sandbox } from "../runtime/sandbox.ts";
import { loadTask } from "../task/task.ts";
import type { ReplayResult, Snapshot } from "./compare.ts";
import type { RecordedRequest } from "./load_recording.ts";
import { contentText } from "./normalize.ts";
import type { ChatMessage } from "../harness/types.ts";

function snap(ep: ProfileEpisode): Snapshot {
  return { messages: structuredClone(ep.messages), tools: structuredClone(ep.tools) };
}

/**
 * Handles the harness drew at random (codex's session ids) differ between the recording and the replay; later calls
 * name them. Pairs each number `pattern` finds in the recorded tool results with the one at the same place in the
 * replay's, and rewrites it in the remaining turns' arguments.
 */
function remapHandles(
  pattern: RegExp,
  recorded: ChatMessage[],
  replayed: ChatMessage[],
  rest: AssistantTurn[],
): void {
  const nums = (ms: ChatMessage[]) =>
    ms.filter((m) => m.role === "tool").flatMap((m) =>
      [...contentText(m.content).matchAll(new RegExp(pattern.source, "g"))].map((x) => x[1])
    );
  const [from, to] = [nums(recorded), nums(replayed)];
  from.forEach((a, i) => {
    const b = to[i];
    if (b === undefined || a === b) return;
    const re = new RegExp(`(?<![\\d.])${a}(?![\\d.])`, "g");
    for (const t of rest) {
      for (const c of t.tool_calls ?? []) c.function.arguments = c.function.arguments.replace(re, b);
    }
  });
}

/**
 * Drives a begun episode: snapshot 0 is the first request, each step's history is the next request's. With the
 * recorded requests and the profile's `handlePattern`, handles drawn at random are carried over (`remapHandles`).
 */
export async function replayEpisode(
  ep: ProfileEpisode,
  turns: AssistantTurn[],
  finalTurn?: AssistantTurn,
  recorded?: RecordedRequest[],
): Promise<Omit<ReplayResult, "workdir">> {
  const snapshots = [snap(ep)];
  let doneAfter: number | undefined;
  const pattern = ep.profile.handlePattern ? new RegExp(ep.profile.handlePattern) : undefined;
  turns = structuredClone(turns);
  for (let k = 0; k < turns.length; k++) {
    const before = ep.messages.length;
    const r = await ep.step(turns[k]);
    if (pattern && recorded?.[k + 1]) {
      remapHandles(
        pattern,
        recorded[k + 1].messages.slice(recorded[k].messages.length),
        ep.messages.slice(before),
        turns.slice(k + 1),
      );
    }
    if (r.done) {
      doneAfter = k;
      break;
    }
    snapshots.push(snap(ep));
  }
  let finalDone: boolean | undefined;
  if (doneAfter === undefined && finalTurn) finalDone = (await ep.step(finalTurn)).done;
  return { snapshots, doneAfter, finalDone };
}

/** The turns with the recording's working directory replaced by the container's in text and tool arguments. */
export function retargetTurns(turns: AssistantTurn[], from: string | undefined, to: string): AssistantTurn[] {
  const dir = from?.replace(/\/+$/, "");
  if (!dir || dir === to) return turns;
  const swap = (s: string) => s.split(dir).join(to);
  return turns.map((t) => ({
    ...t,
    content: typeof t.content === "string" ? swap(t.content) : t.content,
    tool_calls: t.tool_calls?.map((c) => ({
      ...c,
      function: { ...c.function, arguments: swap(c.function.arguments) },
    })),
  }));
}

/**
 * Starts the task's container, replays, and removes the container. Paths under the recording's working directory
 * (`recordedCwd`) in the turns are pointed at the container's, so the calls reach the same files.
 */
export async function replayOnTask(
  runtime: Runtime,
  profile: HarnessProfile,
  taskDir: string,
  turns: AssistantTurn[],
  finalTurn?: AssistantTurn,
  recordedCwd?: string,
  recorded?: RecordedRequest[],
): Promise<ReplayResult> {
  const task = await loadTask(taskDir);
  const box = await Sandbox.start(task, new ImageStore(runtime));
  try {
    const ep = new ProfileEpisode(profile, box);
    await ep.begin(task.instruction);
    const [fixed, fixedFinal] = [
      retargetTurns(turns, recordedCwd, box.workdir),
      finalTurn && retargetTurns([finalTurn], recordedCwd, box.workdir)[0],
    ];
    return { ...(await replayEpisode(ep, fixed, fixedFinal, recorded)), workdir: box.workdir };
  } finally {
    await box.remove();
  }
}
