/**
 * The oracle policy: solves a task with its solution/solve.sh through a profile's own shell tool and stop rule, the
 * way a model under that harness would have to. Used by `harbor check`-style checks under every profile and by
 * `pgs eval --policy oracle`.
 */
import type { ProfileEpisode } from "./profile_episode.ts";
import { protocolDef } from "./protocols/registry.ts";
import type { ToolCall } from "./types.ts";
import { read, write } from "./tools/ops.ts";

/** Where the oracle keeps solve.sh's output: the runtime's scratch folder (/tmp in a container). */
const outFile = (ep: ProfileEpisode) => `${ep.session.box.scratch}/.pgs-oracle-out`;

/**
 * Uploads solve.sh to the scratch folder, as Harbor's oracle uploads `solution/` before running it, and returns the
 * command that runs it by its shebang with stdout kept in `outFile`. The script never travels inside the command:
 * some harnesses refuse a command whose text holds `$(` (gemini-cli) and a pane would need history expansion off.
 */
async function uploadSolve(ep: ProfileEpisode, solveSh: string): Promise<string> {
  const OUT = outFile(ep);
  const script = `${ep.session.box.scratch}/.pgs-oracle-solve`;
  await write(ep.session.box, script, solveSh);
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(solveSh);
  const interpreter = shebang ? (shebang[1].endsWith("/env") ? shebang[2] ?? "" : shebang[1]) : "bash";
  // A shell script goes to bash (whatever /bin/sh is); another interpreter's (`#!/usr/bin/env python3`) runs by its
  // shebang.
  return /(^|\/)(ba)?sh$/.test(interpreter)
    ? `bash ${script} > ${OUT}; cat ${OUT}`
    : `chmod +x ${script}; ${script} > ${OUT}; cat ${OUT}`;
}

function turnFor(ep: ProfileEpisode, tool: string, args: Record<string, unknown>, content = ""): OracleTurn {
  const p = ep.profile.protocol;
  const turn = protocolDef(p).encode(p, tool, args, `oracle_${ep.counters.turns + 1}`, content);
  if (!turn) throw new Error(`oracle: protocol ${p.kind} cannot call ${tool}`);
  return { content: turn.content ?? "", ...(turn.tool_calls ? { tool_calls: turn.tool_calls } : {}) };
}

/** A turn the oracle plays. */
export type OracleTurn = { content: string; tool_calls?: ToolCall[] };

/**
 * The oracle's turns, one at a time: the caller steps the episode with each turn before asking for the next (the
 * generator reads solve.sh's output from the container in between). First one shell call running solve.sh (its stdout
 * kept aside as the answer), then the stop rule (a reply, the submit or finish tool, or the sentinel).
 */
export async function* oracleTurns(ep: ProfileEpisode, solveSh: string): AsyncGenerator<OracleTurn, string> {
  const OUT = outFile(ep);
  if (protocolDef(ep.profile.protocol).command) return yield* commandTurns(ep, solveSh);
  const shell = ep.profile.shell;
  if (!shell) throw new Error(`oracle: profile ${ep.profile.name} declares no shell tool`);
  // A text protocol's action may need a word before the command (small-agent's `run `).
  const pre = shell.prefix ?? "";
  const command = await uploadSolve(ep, solveSh);
  yield turnFor(ep, shell.tool, { [shell.arg]: pre + command });
  const answer = await read(ep.session.box, OUT).catch(() => "");
  const stop = ep.profile.stop;
  for (let i = 0; i < 3 && !ep.done; i++) {
    switch (stop.kind) {
      case "no_call":
        yield { content: answer };
        break;
      case "sentinel":
        // The submission is what follows the sentinel line: the answer.
        yield turnFor(ep, shell.tool, { [shell.arg]: `${pre}echo ${stop.text}; cat ${OUT}` });
        break;
      case "submit":
        yield turnFor(ep, stop.tool, {}, answer);
        break;
      case "finish":
        yield turnFor(ep, stop.tool, { [stop.field]: answer });
        break;
      default:
        throw new Error(`oracle: stop rule ${stop.kind} is not supported`);
    }
  }
  return answer;
}

/** Plays the oracle to the end of the episode; returns the answer it gave. */
export async function playOracle(ep: ProfileEpisode, solveSh: string): Promise<string> {
  const turns = oracleTurns(ep, solveSh);
  for (let r = await turns.next();; r = await turns.next()) {
    if (r.done) return r.value;
    await ep.step(r.value);
  }
}

/**
 * The oracle under a protocol without tools (keystrokes): the uploaded solve.sh run by the protocol's own command turn,
 * then its completion flag until the flag stop ends the episode (twice when it confirms).
 */
async function* commandTurns(ep: ProfileEpisode, solveSh: string): AsyncGenerator<OracleTurn, string> {
  const p = ep.profile.protocol, def = protocolDef(p);
  if (!def.flagTurn) throw new Error(`oracle: protocol ${p.kind} has no completion turn`);
  const command = await uploadSolve(ep, solveSh);
  yield { content: def.command!(p, command).content ?? "" };
  const answer = await read(ep.session.box, outFile(ep)).catch(() => "");
  for (let i = 0; i < 3 && !ep.done; i++) yield { content: def.flagTurn(p).content ?? "" };
  return answer;
}
