/**
 * Harbor conformance cases from tests/unit/models/test_task_config_network.py::TestStepNetworkInheritance: a step's
 * own `[steps.agent]` / `[steps.verifier]` network policy overrides the task's phase policy for that step only.
 */
import { type Case, cite, TESTS_DOCKERFILE } from "./types.ts";

const F = "models/test_task_config_network.py";
const T = "TestStepNetworkInheritance";
const STEP_ONE = { "steps/one/instruction.md": "Do one.\n" };

export const CASES: Case[] = [
  {
    id: "step-agent-override",
    cite: cite(F, `${T}::test_step_agent_can_override_task_policy`),
    toml: '[agent]\nnetwork_mode = "public"\n\n[[steps]]\nname = "one"\n\n[steps.agent]\nnetwork_mode = "no-network"\n',
    files: STEP_ONE,
    expect: { accepted: true, check: { "stepPlan.0.agent.mode": "no-network" } },
  },
  {
    id: "step-verifier-inherits",
    cite: cite(F, `${T}::test_step_verifier_inherits_task_policy`),
    toml: '[verifier]\nnetwork_mode = "public"\n\n[[steps]]\nname = "one"\n',
    files: STEP_ONE,
    expect: { accepted: true, check: { "stepPlan.0.verifier.mode": "public" } },
  },
  {
    id: "step-verifier-override",
    cite: cite(F, `${T}::test_step_verifier_can_override_task_policy`),
    toml: '[verifier]\nnetwork_mode = "public"\n\n[[steps]]\nname = "one"\n\n[steps.verifier]\n' +
      'network_mode = "no-network"\n',
    files: STEP_ONE,
    expect: { accepted: true, check: { "stepPlan.0.verifier.mode": "no-network" } },
  },
  {
    id: "step-verifier-environment-allow-internet",
    cite: cite(F, `${T}::test_step_verifier_environment_allow_internet_sets_separate_env_baseline`),
    toml: '[verifier]\nnetwork_mode = "no-network"\n\n[[steps]]\nname = "one"\n\n[steps.verifier]\n' +
      'environment_mode = "separate"\n\n[steps.verifier.environment]\nallow_internet = true\n',
    files: { ...STEP_ONE, ...TESTS_DOCKERFILE },
    expect: {
      accepted: true,
      check: {
        "stepMode.0": "separate",
        "stepPlan.0.verifier.mode": "no-network",
        "stepPlan.0.verifierBaseline.mode": "public",
      },
    },
  },
  {
    id: "step-agent-allowlist-inherited",
    cite: cite(F, `${T}::test_environment_allow_internet_does_not_create_step_agent_override`),
    toml:
      '[agent]\nnetwork_mode = "allowlist"\nallowed_hosts = ["pypi.org"]\n\n[environment]\nallow_internet = false\n\n' +
      '[[steps]]\nname = "one"\n',
    files: STEP_ONE,
    expect: { accepted: true, check: { "stepPlan.0.agent": { mode: "allowlist", allowedHosts: ["pypi.org"] } } },
  },
];
