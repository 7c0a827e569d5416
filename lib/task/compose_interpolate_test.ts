/** Compose interpolation with Harbor's variables, in Harbor's order. */
import assert from "node:assert/strict";
import {
  composeVariables,
  harborComposeVars,
  interpolate,
  interpolateTree,
  InterpolationError,
} from "./compose_interpolate.ts";

const vars = { A: "a", E: "", N: "n" };

Deno.test("interpolate: each form", () => {
  const unset = new Set<string>();
  const cases: [string, string][] = [
    ["${A}", "a"],
    ["$A/$N", "a/n"],
    ["x${A}y", "xay"],
    ["${X:-d}", "d"],
    ["${E:-d}", "d"],
    ["${E-d}", ""],
    ["${X-d}", "d"],
    ["${A:-d}", "a"],
    ["${A:+alt}", "alt"],
    ["${E:+alt}", ""],
    ["${E+alt}", "alt"],
    ["${X:-${A}-${N}}", "a-n"],
    ["${X:-a:b}", "a:b"],
    ["$$", "$"],
    ["$${A}", "${A}"],
    ["a$$b$$$A", "a$b$a"],
    ["no vars", "no vars"],
  ];
  for (const [text, want] of cases) assert.equal(interpolate(text, vars, unset), want, text);
  assert.deepEqual([...unset], []);
  assert.equal(interpolate("[${X}][$Y]", vars, unset), "[][]");
  assert.deepEqual([...unset].sort(), ["X", "Y"]);
});

Deno.test("interpolate: :? and ? refuse a missing value", () => {
  assert.equal(interpolate("${A:?need A}", vars), "a");
  assert.equal(interpolate("${E?need E}", vars), "");
  assert.throws(() => interpolate("${E:?need E}", vars), {
    name: "InterpolationError",
    message: "required variable E is missing a value: need E",
  });
  assert.throws(() => interpolate("${X?}", vars), { message: "required variable X is not set" });
  assert.throws(() => interpolate("${X:?set ${A} first}", vars), {
    message: "required variable X is missing a value: set a first",
  });
});

Deno.test("interpolate: a $ that starts nothing is an error", () => {
  for (const bad of ["$", "a $ b", "$1", "${", "${A", "${}", "${A:x}", "${-A}"]) {
    assert.throws(() => interpolate(bad, vars), InterpolationError, bad);
  }
});

Deno.test("composeVariables: the OS env, then the task env, then Harbor's", () => {
  const v = composeVariables({
    os: { A: "os", B: "os", C: "os" },
    task: { B: "task", C: "task" },
    harbor: { C: "harbor" },
  });
  assert.deepEqual(v, { A: "os", B: "task", C: "harbor" });
  assert.deepEqual(composeVariables({}), {});
});

Deno.test("harborComposeVars: Harbor's infrastructure variables", () => {
  assert.deepEqual(harborComposeVars({ contextDir: "/t/environment" }), {
    MAIN_IMAGE_NAME: "hb__main",
    CONTEXT_DIR: "/t/environment",
  });
  assert.deepEqual(
    harborComposeVars({
      contextDir: "/t/environment",
      mainImageName: "hb__x",
      prebuiltImageName: "ubuntu:24.04",
      cpus: 2,
      memoryMb: 2048,
      hostLogs: { AGENT_LOGS: "/h/agent", ARTIFACTS: "/h/artifacts" },
    }),
    {
      MAIN_IMAGE_NAME: "hb__x",
      CONTEXT_DIR: "/t/environment",
      PREBUILT_IMAGE_NAME: "ubuntu:24.04",
      CPUS: "2",
      MEMORY: "2048M",
      ENV_AGENT_LOGS_PATH: "/logs/agent",
      HOST_AGENT_LOGS_PATH: "/h/agent",
      ENV_ARTIFACTS_PATH: "/logs/artifacts",
      HOST_ARTIFACTS_PATH: "/h/artifacts",
    },
  );
});

Deno.test("interpolateTree: values only, never keys, and the path of a failure", () => {
  const tree = { services: { "${A}": { command: ["echo", "$A"], cpus: 1, env: { K: "${N}" } } } };
  assert.deepEqual(interpolateTree(tree, vars, new Set(), () => assert.fail()), {
    services: { "${A}": { command: ["echo", "a"], cpus: 1, env: { K: "n" } } },
  });
  let where: (string | number)[] = [];
  assert.throws(() =>
    interpolateTree({ s: [{ x: "${X:?}" }] }, vars, new Set(), (p, e) => {
      where = p;
      throw e;
    })
  );
  assert.deepEqual(where, ["s", 0, "x"]);
});
