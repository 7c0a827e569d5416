/** task.toml: the seed's schema with its defaults, plus Harbor's own fields so that Harbor task sets load unchanged. */

import { parse, TomlError } from "npm:smol-toml@1.9.1";
import { TaskError } from "../base/errors.ts";
import { Checker, isTable, type Table } from "./task_config_checker.ts";
import { checkCollect, checkMcpServers, parseArtifacts, warnOverlaps } from "./harbor_fields.ts";
import type {
  AgentConfig,
  EnvironmentConfig,
  HealthcheckConfig,
  NetworkPolicy,
  StepConfig,
  TaskConfig,
  VerifierConfig,
} from "./task_config_types.ts";

export type {
  AgentConfig,
  ArtifactConfig,
  EnvironmentConfig,
  HealthcheckConfig,
  NetworkPolicy,
  SolutionConfig,
  StepConfig,
  TaskConfig,
  VerifierConfig,
} from "./task_config_types.ts";

const NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9._-]*\/[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

/** Parses and validates task.toml `text`; errors are `TaskError`s naming `file` (used verbatim), the line and the field. */
export function parseTaskConfig(
  text: string,
  file: string,
  lookupEnv: (name: string) => string | undefined = (name) => Deno.env.get(name),
): TaskConfig {
  let doc: Table;
  try {
    doc = parse(text);
  } catch (e) {
    if (e instanceof TomlError) throw new TaskError(file, `invalid TOML: ${shortReason(e)}`, e.line);
    throw e;
  }
  const c = new Checker(text, file, lookupEnv);
  c.unknownKeys(doc, []);

  let schemaVersion = doc.schema_version ?? doc.version;
  if (typeof schemaVersion === "number") schemaVersion = String(schemaVersion);
  if (schemaVersion !== undefined && typeof schemaVersion !== "string") {
    c.fail([doc.schema_version !== undefined ? "schema_version" : "version"], "must be a string", schemaVersion);
  }

  const task = c.table(doc, ["task"]) ?? {};
  const name = c.string(task, ["task", "name"]);
  // Harbor's PackageInfo.version: optional, but never empty.
  if (task.version !== undefined && (typeof task.version !== "string" || task.version === "")) {
    c.fail(["task", "version"], "must be a non-empty string", task.version);
  }
  if (name !== undefined && (!NAME_PATTERN.test(name) || name.includes(".."))) {
    c.fail(
      ["task", "name"],
      `must be "org/name" (letters, digits, ".", "_", "-"; not starting with "." nor containing "..")`,
      name,
    );
  }

  const environment = parseEnvironment(c, c.table(doc, ["environment"]) ?? {}, ["environment"]);
  const verifier = parseVerifier(c, c.table(doc, ["verifier"]) ?? {}, environment);
  const agentTable = c.table(doc, ["agent"]) ?? {};
  const agent = parseAgent(c, agentTable, ["agent"], { timeoutSec: 900 });
  const solutionTable = c.table(doc, ["solution"]) ?? {};
  const strategy = (doc.multi_step_reward_strategy ?? "mean") as "mean" | "final";
  if (strategy !== "mean" && strategy !== "final") {
    c.fail(["multi_step_reward_strategy"], `must be "mean" or "final"`, strategy);
  }

  const config: TaskConfig = {
    schemaVersion: schemaVersion as string | undefined,
    name,
    description: c.string(task, ["task", "description"], true) ?? "",
    environment,
    verifier,
    agent,
    solution: { env: c.env(solutionTable, ["solution", "env"]) },
    metadata: plain(c.table(doc, ["metadata"]) ?? {}) as Record<string, unknown>,
    artifacts: parseArtifacts(c, doc.artifacts, ["artifacts"]),
    multiStepRewardStrategy: strategy,
    warnings: c.warnings,
  };
  if (doc.steps !== undefined) config.steps = parseSteps(c, doc.steps, agent, verifier);
  warnOverlaps(c, config.artifacts, "artifacts");
  config.steps?.forEach((st, i) => {
    if (st.artifacts.length) warnOverlaps(c, [...config.artifacts, ...st.artifacts], `steps[${i}].artifacts`);
  });
  // Absent optional fields are left out rather than set to undefined, so that configs compare and print cleanly.
  if (config.schemaVersion === undefined) delete config.schemaVersion;
  if (config.name === undefined) delete config.name;
  return config;
}

const NO_NETWORK: NetworkPolicy = { mode: "no-network", allowedHosts: [] };

function parseEnvironment(c: Checker, e: Table, at: string[]): EnvironmentConfig {
  const f = (k: string) => [...at, k];
  const os = e.os;
  if (os !== undefined) {
    if (typeof os !== "string" || !["linux", "windows"].includes(os.toLowerCase())) {
      c.fail(f("os"), `must be "linux" or "windows"`, os);
    }
    if (os.toLowerCase() === "windows") {
      c.raise(f("os"), `${f("os").join(".")} = "${os}" is not supported: pgs runs Linux containers only`);
    }
  }
  const env: EnvironmentConfig = {
    dockerImage: c.string(e, f("docker_image")),
    cpus: c.number(e, f("cpus"), "positive", 1),
    memoryMb: c.size(e, at, "memory", 2048),
    pidsLimit: c.number(e, f("pids_limit"), "positive integer", 512),
    allowInternet: false,
    network: c.policy(e, at, true) ?? NO_NETWORK,
    workdir: c.string(e, f("workdir")),
    buildTimeoutSec: c.number(e, f("build_timeout_sec"), "positive", 600),
    env: c.env(e, f("env")),
    storageMb: c.size(e, at, "storage", undefined),
    networkUnset: e.allow_internet === undefined && e.network_mode === undefined,
  };
  env.allowInternet = env.network.mode === "public";
  const gpus = e.gpus === undefined ? undefined : c.number(e, f("gpus"), "non-negative integer", 0);
  if (gpus) env.gpus = gpus;
  if (env.workdir !== undefined && !env.workdir.startsWith("/")) {
    c.fail(f("workdir"), "must be an absolute path", env.workdir);
  }
  checkMcpServers(c, e.mcp_servers, f("mcp_servers"));
  for (const key of ["mcp_servers", "skills_dir", "gpu_types", "tpu"]) {
    if (e[key] !== undefined) c.notApplied(f(key));
  }
  const hc = parseHealthcheck(c, e, f("healthcheck"));
  if (hc) env.healthcheck = hc;
  if (env.dockerImage === undefined) delete env.dockerImage;
  if (env.storageMb === undefined) delete env.storageMb;
  if (env.workdir === undefined) delete env.workdir;
  return env;
}

function parseHealthcheck(c: Checker, t: Table, hcPath: string[]): HealthcheckConfig | undefined {
  const hc = c.table(t, hcPath);
  if (!hc) return undefined;
  const command = c.string(hc, [...hcPath, "command"]);
  if (command === undefined) c.raise(hcPath, `${hcPath.join(".")}.command is required`);
  c.number(hc, [...hcPath, "start_interval_sec"], "positive", 5); // Harbor's; validated, not used.
  return {
    command,
    retries: c.number(hc, [...hcPath, "retries"], "non-negative integer", 10),
    intervalSec: c.number(hc, [...hcPath, "interval_sec"], "positive", 2),
    timeoutSec: c.number(hc, [...hcPath, "timeout_sec"], "positive", 60),
    startPeriodSec: c.number(hc, [...hcPath, "start_period_sec"], "non-negative", 0),
  };
}

function parseVerifier(c: Checker, v: Table, environment: EnvironmentConfig): VerifierConfig {
  const network = c.policy(v, ["verifier"], false);
  const verifier: VerifierConfig = {
    timeoutSec: c.number(v, ["verifier", "timeout_sec"], "positive", 120),
    allowInternet: network ? network.mode === "public" : environment.allowInternet,
    ...(network ? { network } : {}),
    capture: c.string(v, ["verifier", "capture"]),
    captureTimeoutSec: c.number(v, ["verifier", "capture_timeout_sec"], "positive", 60),
    env: c.env(v, ["verifier", "env"]),
    user: c.user(v, ["verifier", "user"]),
    collect: checkCollect(c, v.collect, ["verifier", "collect"]),
  };
  const mode = v.environment_mode;
  if (mode !== undefined && mode !== "shared" && mode !== "separate") {
    c.fail(["verifier", "environment_mode"], `must be "shared" or "separate"`, mode);
  }
  const vEnv = c.table(v, ["verifier", "environment"]);
  if (vEnv) {
    if (mode === "shared") {
      c.raise(
        ["verifier", "environment_mode"],
        "[verifier].environment_mode='shared' is incompatible with [verifier.environment]; either omit the " +
          "environment or set environment_mode='separate'.",
      );
    }
    verifier.environment = parseEnvironment(c, vEnv, ["verifier", "environment"]);
  }
  if (mode !== undefined) verifier.environmentMode = mode;
  else if (vEnv) verifier.environmentMode = "separate";
  if (verifier.capture === undefined) delete verifier.capture;
  if (verifier.user === undefined) delete verifier.user;
  return verifier;
}

/** An `[agent]` table; a step's falls back to the task's (`base`), its network included. */
function parseAgent(c: Checker, a: Table, at: string[], base: AgentConfig): AgentConfig {
  const agent: AgentConfig = {
    timeoutSec: c.number(a, [...at, "timeout_sec"], "positive", base.timeoutSec),
    user: c.user(a, [...at, "user"]) ?? base.user,
  };
  const network = c.policy(a, at, false) ?? base.network;
  if (network) Object.assign(agent, { network, allowInternet: network.mode === "public" });
  if (agent.user === undefined) delete agent.user;
  return agent;
}

function parseSteps(
  c: Checker,
  v: unknown,
  agent: AgentConfig,
  verifier: VerifierConfig,
): StepConfig[] {
  if (!Array.isArray(v) || v.length === 0 || !v.every(isTable)) {
    c.fail(["steps"], "must be one or more [[steps]] tables", v);
  }
  const names = new Set<string>();
  return (v as Table[]).map((st, i) => {
    const at = ["steps"];
    for (const k of Object.keys(st)) {
      if (!["name", "agent", "verifier", "min_reward", "healthcheck", "artifacts"].includes(k)) {
        c.warn(`unknown key steps[${i}].${k} ignored`);
      }
    }
    const name = st.name;
    if (typeof name !== "string" || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
      c.fail(at, `[${i}].name must be a folder name under steps/`, name);
    }
    if (names.has(name)) c.raise(at, `steps[${i}].name ${JSON.stringify(name)} is used twice`);
    names.add(name);
    const a = c.table(st, ["steps", String(i), "agent"]) ?? {};
    const vt = c.table(st, ["steps", String(i), "verifier"]) ?? {};
    const mode = vt.environment_mode;
    if (mode !== undefined && mode !== "shared" && mode !== "separate") {
      c.fail(["steps", String(i), "verifier", "environment_mode"], `must be "shared" or "separate"`, mode);
    }
    const stepEnv = c.table(vt, ["steps", String(i), "verifier", "environment"]);
    if (stepEnv && mode === "shared") {
      // Harbor's StepConfig runs the same VerifierConfig validator as the task's; pydantic names the step's table.
      c.raise(
        ["steps", String(i), "verifier", "environment_mode"],
        `steps.${i}.verifier: ` +
          "[verifier].environment_mode='shared' is incompatible with [verifier.environment]; either omit the " +
          "environment or set environment_mode='separate'.",
      );
    }
    if (vt.collect !== undefined) c.notApplied(["steps", String(i), "verifier", "collect"]);
    const stepVerifierNetwork = c.policy(vt, ["steps", String(i), "verifier"], false);
    const stepAgent = parseAgent(c, a, ["steps", String(i), "agent"], agent);
    // One exec channel per container runs as one user: a step's own agent user cannot be switched to mid-episode,
    // and running it as another would be a silent difference.
    if (stepAgent.user !== agent.user) {
      c.raise(
        ["steps", String(i), "agent", "user"],
        `steps[${i}].agent.user = ${JSON.stringify(stepAgent.user ?? "")} differs from [agent] user ` +
          `${JSON.stringify(agent.user ?? "the image's")}: pgs runs every step of an episode as one user`,
      );
    }
    const step: StepConfig = {
      name,
      agent: stepAgent,
      verifier: {
        // Harbor's StepConfig builds a VerifierConfig whose timeout_sec defaults to 600, so an unset step timeout is
        // 600 s rather than the task's (harbor@39b85872:src/harbor/trial/multi_step.py, models/task/config.py).
        timeoutSec: c.number(vt, ["steps", String(i), "verifier", "timeout_sec"], "positive", 600),
        env: { ...verifier.env, ...c.env(vt, ["steps", String(i), "verifier", "env"]) },
        user: c.user(vt, ["steps", String(i), "verifier", "user"]) ?? verifier.user,
        ...(stepVerifierNetwork ? { network: stepVerifierNetwork } : {}),
        ...(mode ? { environmentMode: mode as "shared" | "separate" } : {}),
        ...(stepEnv
          ? { environment: parseEnvironment(c, stepEnv, ["steps", String(i), "verifier", "environment"]) }
          : {}),
      },
      artifacts: parseArtifacts(c, st.artifacts, ["steps", String(i), "artifacts"]),
    };
    if (step.verifier.user === undefined) delete step.verifier.user;
    const mr = st.min_reward;
    if (typeof mr === "number") step.minReward = mr;
    else if (isTable(mr)) {
      const m: Record<string, number> = {};
      for (const [k, x] of Object.entries(mr)) {
        if (typeof x !== "number") c.fail(at, `[${i}].min_reward.${k} must be a number`, x);
        m[k] = x;
      }
      step.minReward = m;
    } else if (mr !== undefined) c.fail(at, `[${i}].min_reward must be a number or a table of numbers`, mr);
    const hc = parseHealthcheck(c, st, ["steps", String(i), "healthcheck"]);
    if (hc) step.healthcheck = hc;
    return step;
  });
}

/** smol-toml's message without its prefix and code excerpt: the line number is reported separately. */
function shortReason(e: TomlError): string {
  return e.message.split("\n")[0].replace(/^Invalid TOML document:\s*/, "");
}

/** Copies smol-toml's prototype-less tables into plain objects, so that callers can compare and spread them. */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (isTable(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/**
 * Where a step's tests run as its task.toml says (Harbor's `resolve_step_verifier_mode`): the step's own
 * `environment_mode`, else `separate` for a `[steps.verifier.environment]`, else the task's mode (`separate` for a
 * `[verifier.environment]`); undefined when nothing says (pgs then picks by layout, see `verifier_mode.ts`).
 */
export function saidStepMode(task: TaskConfig, step: StepConfig): "shared" | "separate" | undefined {
  return step.verifier.environmentMode ?? (step.verifier.environment ? "separate" : task.verifier.environmentMode);
}
