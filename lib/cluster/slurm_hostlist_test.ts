import assert from "node:assert/strict";
import {
  expandHostlist,
  lastWords,
  nodeDead,
  parseNodeStates,
  parseSallocJobId,
  parseStepLaunch,
  parseSteps,
  srunVerbose,
} from "./slurm_hostlist.ts";

Deno.test("slurm hostlist: plain names, ranges, lists and padding", () => {
  assert.deepEqual(expandHostlist("n1"), ["n1"]);
  assert.deepEqual(expandHostlist("n[1-2]"), ["n1", "n2"]);
  assert.deepEqual(expandHostlist("n[1-3,5],gpu01"), ["n1", "n2", "n3", "n5", "gpu01"]);
  assert.deepEqual(expandHostlist("gpu[08-10]"), ["gpu08", "gpu09", "gpu10"]);
  assert.deepEqual(expandHostlist(" a,b[1],c "), ["a", "b1", "c"]);
  assert.deepEqual(expandHostlist(""), []);
});

Deno.test("slurm hostlist: several bracket groups in one name, leftmost slowest", () => {
  assert.deepEqual(expandHostlist("rack[1-2]-n[1,3]"), ["rack1-n1", "rack1-n3", "rack2-n1", "rack2-n3"]);
  assert.deepEqual(expandHostlist("x[1-2]y,z"), ["x1y", "x2y", "z"]);
});

Deno.test("slurm hostlist: malformed lists throw naming the list", () => {
  assert.throws(() => expandHostlist("n[1-2"), /bad Slurm hostlist "n\[1-2": unbalanced/);
  assert.throws(() => expandHostlist("n1-2]"), /unbalanced/);
  assert.throws(() => expandHostlist("n[[1]]"), /unbalanced/);
  assert.throws(() => expandHostlist("n[3-1]"), /bad range "3-1"/);
  assert.throws(() => expandHostlist("n[a-b]"), /bad range "a-b"/);
});

// Captured from slurm-wlm 22.05.8 (scripts/slurm_cluster.sh).
Deno.test("slurm output: salloc's job id, granted or still pending", () => {
  assert.deepEqual(parseSallocJobId("salloc: Granted job allocation 27\n"), { granted: "27", pending: undefined });
  const queued = "salloc: Pending job allocation 29\nsalloc: job 29 queued and waiting for resources\n";
  assert.deepEqual(parseSallocJobId(queued), { granted: undefined, pending: "29" });
  assert.deepEqual(parseSallocJobId("salloc: job 30 queued and waiting for resources\n").pending, "30");
  assert.deepEqual(
    parseSallocJobId("salloc: error: Job submit/allocate failed: Requested node configuration is not available\n"),
    { granted: undefined, pending: undefined },
  );
});

Deno.test("slurm output: the step id srun -v prints, and its progress lines", () => {
  assert.equal(parseStepLaunch("srun: launching StepId=28.0 on host n1, 1 tasks: 0"), "28.0");
  assert.equal(parseStepLaunch("srun: launching 28.3 on host n2, 1 tasks: 0"), "28.3");
  assert.equal(parseStepLaunch("srun: jobid 28: nodes(2):`n[1-2]', cpu counts: 1(x2)"), undefined);
  const stderr = [
    "srun: defined options",
    "srun: -------------------- --------------------",
    "srun: export              : ALL",
    "srun: end of defined options",
    "srun: jobid 28: nodes(2):`n[1-2]', cpu counts: 1(x2)",
    "srun: launch/slurm: launch_p_step_launch: CpuBindType=(null type)",
    "srun: launching StepId=28.0 on host n1, 1 tasks: 0",
    "srun: route/default: init: route default plugin loaded",
    "srun: error: n1: task 0: Exited with exit code 3",
    "srun: launch/slurm: _task_finish: Received task exit notification for 1 task of StepId=28.0 (status=0x0300).",
  ];
  assert.deepEqual(stderr.filter((l) => !srunVerbose(l)), ["srun: error: n1: task 0: Exited with exit code 3"]);
  assert.equal(lastWords(stderr.join("\n") + "\n\n"), "srun: error: n1: task 0: Exited with exit code 3");
  assert.equal(lastWords("x".repeat(400)).length, 300);
  assert.equal(lastWords(""), "");
});

Deno.test("slurm output: node states, dead or alive", () => {
  const states = parseNodeStates("n1 alloc\nn2 down*\nn3 idle\nn3 idle\nn4 alloc*\nn5 mix\n\n");
  assert.deepEqual([...states], [["n1", "alloc"], ["n2", "down*"], ["n3", "idle"], ["n4", "alloc*"], ["n5", "mix"]]);
  assert.deepEqual([...states].filter(([, s]) => !nodeDead(s)).map(([n]) => n), ["n1", "n3", "n5"]);
  for (const s of ["down", "fail", "unk*", "idle*", "drain*"]) assert.ok(nodeDead(s), s);
  for (const s of ["idle", "alloc", "mix", "drng", "comp", "resv"]) assert.ok(!nodeDead(s), s);
});

Deno.test("slurm output: squeue -s steps with their nodes", () => {
  assert.deepEqual(parseSteps("27.0 n1\n27.1 n2\n27.extern n[1-2]\n\n"), [
    { stepId: "27.0", nodes: "n1" },
    { stepId: "27.1", nodes: "n2" },
    { stepId: "27.extern", nodes: "n[1-2]" },
  ]);
  assert.deepEqual(parseSteps(""), []);
});
