/**
 * The network of each phase of an episode, planned as Harbor plans a trial's (wrongbutworks/harbor@39b85872:
 * src/harbor/trial/network_policy.py, `resolve_trial_network_plan`, without a run's extra hosts): the agent phase
 * has `[agent]`'s own network (a step's over the task's), else the environment's; the tests have `[verifier]`'s own
 * (a step's over the task's), else the network of the box they run in: the agent's environment for every mode but
 * `separate`, whose box has `[verifier.environment]`'s (a step's first) own setting, not inherited.
 */
import type { NetworkPolicy, StepConfig, TaskConfig } from "./task_config_types.ts";
import type { VerifierMode } from "./verifier_mode.ts";

export type { NetworkPolicy } from "./task_config_types.ts";

/** The networks of an episode's phases and boxes. */
export interface NetworkPlan {
  /** The agent's box as it starts (`[environment]`). */
  agentBaseline: NetworkPolicy;
  /** While the agent (or the oracle) works. */
  agent: NetworkPolicy;
  /** A separate verifier's box as it starts (its environment's own); absent in every other mode. */
  verifierBaseline?: NetworkPolicy;
  /** While the tests run. */
  verifier: NetworkPolicy;
}

/** The agent phase's network: `[steps.agent]`'s, else `[agent]`'s, else the environment's (whatever the mode). */
export function agentNetwork(config: TaskConfig, step?: StepConfig): NetworkPolicy {
  return step?.agent.network ?? config.agent.network ?? config.environment.network;
}

/** The plan of `config`'s episode (or of its `step`) verified in `mode`. */
export function networkPlan(config: TaskConfig, mode: VerifierMode, step?: StepConfig): NetworkPlan {
  const agentBaseline = config.environment.network;
  const agent = agentNetwork(config, step);
  const separateEnv = step?.verifier.environment ?? config.verifier.environment;
  const verifierBaseline = mode === "separate" ? (separateEnv ?? config.environment).network : undefined;
  const verifier = step?.verifier.network ?? config.verifier.network ?? verifierBaseline ?? agentBaseline;
  return { agentBaseline, agent, ...(verifierBaseline ? { verifierBaseline } : {}), verifier };
}

/** Whether pgs gives a phase the network: only a public one (an allowlist it cannot enforce runs with none). */
export function networkAllowed(p: NetworkPolicy): boolean {
  return p.mode === "public";
}
