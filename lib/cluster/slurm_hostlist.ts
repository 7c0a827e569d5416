/**
 * What the Slurm CLIs print, parsed: hostlists, salloc's job id, srun's step id, node states, last words.
 * Slurm hostlists (`n[1-3,5],gpu01`, `rack[1-2]-n[01-02]`) expanded to node names without `scontrol show hostnames`,
 * for machines where scontrol is missing; `SlurmAllocation.nodes` prefers scontrol.
 */

/** The node names a Slurm hostlist stands for, in order; throws on a malformed list (unbalanced brackets, bad range). */
export function expandHostlist(list: string): string[] {
  const out: string[] = [];
  for (const item of splitTopLevel(list.trim())) {
    if (item !== "") out.push(...expandItem(item, list));
  }
  return out;
}

/** `list` split at the commas that are outside brackets. */
function splitTopLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === "[") depth++;
    else if (c === "]") depth--;
    if (depth < 0 || depth > 1) throw new Error(`bad Slurm hostlist "${list}": unbalanced brackets`);
    if (c === "," && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) throw new Error(`bad Slurm hostlist "${list}": unbalanced brackets`);
  parts.push(list.slice(start));
  return parts;
}

/** One item of a hostlist (`rack[1-2]-n[1,3]`): the cartesian product of its bracket groups, leftmost slowest. */
function expandItem(item: string, list: string): string[] {
  const open = item.indexOf("[");
  if (open < 0) return [item];
  const close = item.indexOf("]", open);
  const prefix = item.slice(0, open);
  const rest = expandItem(item.slice(close + 1), list);
  const out: string[] = [];
  for (const n of expandRanges(item.slice(open + 1, close), list)) {
    for (const r of rest) out.push(prefix + n + r);
  }
  return out;
}

/** `1-3,05-06,9` → ["1","2","3","05","06","9"]: zero padding kept to the width of the range's first bound. */
function expandRanges(ranges: string, list: string): string[] {
  const out: string[] = [];
  for (const r of ranges.split(",")) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(r.trim());
    if (!m) throw new Error(`bad Slurm hostlist "${list}": bad range "${r}"`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi < lo || hi - lo > 100_000) throw new Error(`bad Slurm hostlist "${list}": bad range "${r}"`);
    const width = m[1].length;
    for (let n = lo; n <= hi; n++) out.push(String(n).padStart(width, "0"));
  }
  return out;
}

/** The job id in salloc's stderr: `granted` once "Granted job allocation N" shows, `pending` from "Pending job allocation N". */
export function parseSallocJobId(stderr: string): { granted?: string; pending?: string } {
  return {
    granted: /Granted job allocation (\d+)/.exec(stderr)?.[1],
    pending: /Pending job allocation (\d+)|job (\d+) queued/.exec(stderr)?.slice(1).find((x) => x !== undefined),
  };
}

/** The step id ("J.S") in a line of `srun -v`'s stderr ("srun: launching StepId=28.0 on host n1, 1 tasks: 0"). */
export function parseStepLaunch(line: string): string | undefined {
  return /launching (?:StepId=)?(\d+\.\d+) on host/.exec(line)?.[1];
}

/** `sinfo -N -h -o '%N %t'` → node → compact state (`idle`, `alloc*`, `down*`, ...); a node listed twice keeps its first. */
export function parseNodeStates(out: string): Map<string, string> {
  const states = new Map<string, string>();
  for (const line of out.split("\n")) {
    const [node, state] = line.trim().split(/\s+/);
    if (node && state && !states.has(node)) states.set(node, state);
  }
  return states;
}

/** Whether a node in this compact sinfo state can no longer run our steps: not responding (`*`), down, failed, unknown. */
export function nodeDead(state: string): boolean {
  return state.endsWith("*") || /^(down|fail|unk|futr|npc|no_respond|power_down|powered_down|pow_dn)/.test(state);
}

/** `squeue -s -h -o '%i %N'` → the steps with their node lists. */
export function parseSteps(out: string): { stepId: string; nodes: string }[] {
  return out.split("\n").map((l) => l.trim().split(/\s+/)).filter((f) => /^\d+\.\w+$/.test(f[0] ?? ""))
    .map(([stepId, nodes]) => ({ stepId, nodes: nodes ?? "" }));
}

/** The lines `srun -v` adds to stderr (options, launch progress): left out of error messages. */
export function srunVerbose(line: string): boolean {
  return /^srun: (defined options|-{5,}|end of defined options|[\w-]+\s+: |jobid \d+: |launch\/|launching |route\/|Complete StepId|debug)/
    .test(line);
}

/** Slurm's last words in a CLI's output: its last meaningful line, one line, at most 300 characters. */
export function lastWords(text: string): string {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !srunVerbose(l));
  const last = lines.at(-1) ?? "";
  return last.length > 300 ? last.slice(0, 297) + "..." : last;
}
