/**
 * Harbor conformance cases from tests/unit/trial/test_network_policy.py, only those that depend on task.toml alone
 * (not on a run's extra allowed hosts or a provider's capabilities): the network each phase gets, as Harbor's trial
 * resolves it and hands it to the environments it starts. Harbor's fixtures have no tests/Dockerfile (the trial's
 * environments are mocks); the separate-verifier cases add one, since pgs needs the image (see validation.ts).
 */
import { type Case, cite, TESTS_DOCKERFILE } from "./types.ts";

const F = "trial/test_network_policy.py";
const NONE = { mode: "no-network", allowedHosts: [] };
const PUBLIC = { mode: "public", allowedHosts: [] };

export const CASES: Case[] = [
  {
    id: "shared-verifier-phase",
    cite: cite(F, "TestTrialNetworkPlan::test_shared_mode_uses_agent_baseline_for_verifier"),
    toml: '[environment]\nnetwork_mode = "no-network"\n\n[verifier]\nnetwork_mode = "public"\n',
    planMode: "shared",
    expect: {
      accepted: true,
      check: { "plan.agentBaseline": NONE, "plan.verifierBaseline": undefined, "plan.verifier": PUBLIC },
    },
  },
  {
    id: "separate-verifier-baseline",
    cite: cite(F, "TestTrialNetworkPlan::test_separate_mode_uses_verifier_environment_baseline"),
    toml: '[environment]\nnetwork_mode = "no-network"\n\n[verifier]\nenvironment_mode = "separate"\n\n' +
      '[verifier.environment]\nnetwork_mode = "public"\n',
    files: TESTS_DOCKERFILE,
    planMode: "separate",
    expect: {
      accepted: true,
      check: { "plan.agentBaseline": NONE, "plan.verifierBaseline": PUBLIC, "plan.verifier": PUBLIC },
    },
  },
  {
    id: "separate-verifier-phase-public",
    cite: cite(F, "TestTrialNetworkPlan::test_verifier_phase_inherits_separate_env_baseline"),
    toml: '[environment]\nnetwork_mode = "no-network"\n\n[verifier]\nnetwork_mode = "public"\n' +
      'environment_mode = "separate"\n\n[verifier.environment]\nnetwork_mode = "public"\n',
    files: TESTS_DOCKERFILE,
    planMode: "separate",
    expect: { accepted: true, check: { "plan.verifierBaseline": PUBLIC, "plan.verifier": PUBLIC } },
  },
  {
    id: "public-everywhere",
    cite: cite(F, "TestEnvironmentPolicyAtStart::test_agent_env_receives_public_baseline_and_phase_policy"),
    toml: '[environment]\nnetwork_mode = "public"\n',
    expect: {
      accepted: true,
      check: { mode: "shared", "plan.agentBaseline": PUBLIC, "plan.agent": PUBLIC, "plan.verifier": PUBLIC },
    },
  },
  {
    id: "no-network-everywhere-separate",
    cite: cite(F, "TestEnvironmentPolicyAtStart::test_agent_env_starts_with_environment_policy"),
    toml: '[environment]\nnetwork_mode = "no-network"\n[agent]\nnetwork_mode = "no-network"\n[verifier]\n' +
      'network_mode = "no-network"\nenvironment_mode = "separate"\n',
    files: TESTS_DOCKERFILE,
    expect: {
      accepted: true,
      check: {
        mode: "separate",
        "plan.agentBaseline": NONE,
        "plan.agent": NONE,
        "plan.verifierBaseline": NONE,
        "plan.verifier": NONE,
      },
    },
  },
  {
    id: "verifier-env-starts-no-network",
    cite: cite(F, "TestEnvironmentPolicyAtStart::test_verifier_env_starts_with_verifier_environment_baseline"),
    toml: '[environment]\nnetwork_mode = "public"\n[verifier]\nnetwork_mode = "no-network"\n' +
      'environment_mode = "separate"\n[verifier.environment]\nnetwork_mode = "no-network"\n',
    files: TESTS_DOCKERFILE,
    expect: {
      accepted: true,
      check: { mode: "separate", "plan.agentBaseline": PUBLIC, "plan.verifierBaseline": NONE, "plan.verifier": NONE },
    },
  },
  {
    id: "separate-verifier-phase-only",
    cite: cite(F, "TestEnvironmentPolicyAtStart::test_separate_verifier_phase_is_passed_only_to_verifier_env"),
    toml: '[environment]\nnetwork_mode = "public"\n[verifier]\nnetwork_mode = "no-network"\n' +
      'environment_mode = "separate"\n[verifier.environment]\nnetwork_mode = "public"\n',
    files: TESTS_DOCKERFILE,
    expect: {
      accepted: true,
      check: {
        "plan.agentBaseline": PUBLIC,
        "plan.agent": PUBLIC,
        "plan.verifierBaseline": PUBLIC,
        "plan.verifier": NONE,
      },
    },
  },
  {
    id: "verifier-phase-from-verifier-env",
    cite: cite(F, "TestEnvironmentPolicyAtStart::test_verifier_phase_inherits_verifier_environment_baseline"),
    toml: '[environment]\nnetwork_mode = "no-network"\n[verifier]\nenvironment_mode = "separate"\n' +
      '[verifier.environment]\nnetwork_mode = "public"\n',
    files: TESTS_DOCKERFILE,
    expect: {
      accepted: true,
      check: { "plan.agentBaseline": NONE, "plan.verifierBaseline": PUBLIC, "plan.verifier": PUBLIC },
    },
  },
  {
    id: "agent-phase-override",
    cite: cite(F, "TestAgentPhasePolicy::test_phase_override_is_passed_to_agent_env"),
    toml: '[environment]\nnetwork_mode = "public"\n[agent]\nnetwork_mode = "no-network"\n',
    expect: {
      accepted: true,
      check: { "plan.agentBaseline": PUBLIC, "plan.agent": NONE, "plan.verifier": PUBLIC },
    },
  },
  {
    id: "shared-verifier-phase-mismatch",
    cite: cite(F, "TestSharedVerifierPhasePolicy::test_allows_mismatched_policies_with_dynamic_provider"),
    toml: '[environment]\nnetwork_mode = "public"\n[agent]\nnetwork_mode = "public"\n[verifier]\n' +
      'network_mode = "no-network"\n',
    expect: {
      accepted: true,
      check: { "plan.agentBaseline": PUBLIC, "plan.agent": PUBLIC, "plan.verifier": NONE },
    },
  },
  {
    id: "shared-allowlist-switch",
    cite: cite(F, "TestSharedVerifierPhasePolicy::test_switches_network_policy_around_agent_and_verify"),
    toml: '[environment]\nnetwork_mode = "no-network"\n[agent]\nnetwork_mode = "allowlist"\n' +
      'allowed_hosts = ["example.com"]\n[verifier]\nnetwork_mode = "allowlist"\nallowed_hosts = ["www.iana.org"]\n',
    expect: {
      accepted: true,
      check: {
        "plan.agentBaseline": NONE,
        "plan.agent": { mode: "allowlist", allowedHosts: ["example.com"] },
        "plan.verifier": { mode: "allowlist", allowedHosts: ["www.iana.org"] },
      },
    },
  },
  {
    // Harbor's baseline here is public ([environment] is empty); pgs's is not (a documented difference), so only the
    // phases are checked.
    id: "step-agent-phase-override",
    cite: cite(F, "TestMultiStepNetworkValidation::test_step_agent_network_override_is_passed_to_agent_env"),
    toml: '[agent]\nnetwork_mode = "public"\n[verifier]\nnetwork_mode = "public"\n[environment]\n\n[[steps]]\n' +
      'name = "one"\n[steps.agent]\nnetwork_mode = "no-network"\n',
    files: { "steps/one/instruction.md": "Do one.\n" },
    expect: { accepted: true, check: { "stepPlan.0.agent": NONE, "stepPlan.0.verifier": PUBLIC } },
  },
];
