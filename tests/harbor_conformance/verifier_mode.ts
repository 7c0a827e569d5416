/**
 * Harbor conformance cases from tests/unit/models/test_verifier_mode.py: where a task's and each step's tests run
 * (`shared` by default; `separate` when said or implied by a `[verifier.environment]`; a step's own setting wins),
 * through pgs's `resolveVerifierMode` / `resolveStepVerifierMode`. Separate cases carry Harbor's tests/Dockerfile.
 */
import { type Case, cite, TESTS_DOCKERFILE } from "./types.ts";

const F = "models/test_verifier_mode.py";
const GRADE = { "steps/grade/instruction.md": "Grade.\n" };

export const CASES: Case[] = [
  {
    id: "default-shared",
    cite: cite(F, "TestResolveTaskVerifierMode::test_defaults_to_shared"),
    toml: "",
    expect: { accepted: true, check: { mode: "shared" } },
  },
  {
    id: "environment-implies-separate",
    cite: cite(F, "TestResolveTaskVerifierMode::test_environment_without_mode_implies_separate"),
    toml: "[verifier.environment]\n",
    files: TESTS_DOCKERFILE,
    expect: { accepted: true, check: { mode: "separate" } },
  },
  {
    id: "explicit-separate",
    cite: cite(F, "TestResolveTaskVerifierMode::test_explicit_separate_without_environment"),
    toml: '[verifier]\nenvironment_mode = "separate"\n',
    files: TESTS_DOCKERFILE,
    expect: { accepted: true, check: { mode: "separate" } },
  },
  {
    id: "explicit-shared",
    cite: cite(F, "TestResolveTaskVerifierMode::test_explicit_shared"),
    toml: '[verifier]\nenvironment_mode = "shared"\n',
    expect: { accepted: true, check: { mode: "shared" } },
  },
  {
    id: "shared-with-environment",
    cite: cite(F, "TestResolveTaskVerifierMode::test_shared_with_environment_raises"),
    toml: '[verifier]\nenvironment_mode = "shared"\n\n[verifier.environment]\n',
    expect: { refused: /environment_mode/ },
  },
  {
    id: "shared-no-environment",
    cite: cite(F, "TestResolveEffectiveVerifierEnvConfig::test_shared_returns_none"),
    toml: "",
    expect: { accepted: true, check: { mode: "shared", "config.verifier.environment": undefined } },
  },
  {
    id: "separate-own-environment",
    cite: cite(F, "TestResolveEffectiveVerifierEnvConfig::test_separate_with_verifier_environment_returns_that"),
    toml: "[verifier.environment]\ncpus = 4\n",
    files: TESTS_DOCKERFILE,
    expect: { accepted: true, check: { mode: "separate", "config.verifier.environment.cpus": 4 } },
  },
  {
    id: "separate-task-environment",
    cite: cite(
      F,
      "TestResolveEffectiveVerifierEnvConfig::test_separate_without_verifier_environment_returns_fresh_top_level_copy",
    ),
    toml: '[environment]\ncpus = 8\n\n[verifier]\nenvironment_mode = "separate"\n',
    files: TESTS_DOCKERFILE,
    expect: {
      accepted: true,
      check: { mode: "separate", "config.environment.cpus": 8, "config.verifier.environment": undefined },
    },
  },
  {
    id: "step-inherits-separate",
    cite: cite(F, "TestResolveStepVerifierMode::test_step_inherits_task_separate"),
    toml: '[verifier.environment]\n\n[[steps]]\nname = "grade"\n',
    files: { ...GRADE, ...TESTS_DOCKERFILE },
    expect: { accepted: true, check: { "stepMode.0": "separate" } },
  },
  {
    id: "step-shared-wins",
    cite: cite(F, "TestResolveStepVerifierMode::test_step_explicit_shared_wins_over_task_separate"),
    toml: '[verifier.environment]\n\n[[steps]]\nname = "grade"\n\n[steps.verifier]\nenvironment_mode = "shared"\n',
    files: { ...GRADE, ...TESTS_DOCKERFILE },
    expect: { accepted: true, check: { "stepMode.0": "shared" } },
  },
  {
    id: "step-environment-implies-separate",
    cite: cite(F, "TestResolveStepVerifierMode::test_step_environment_implies_separate_when_mode_omitted"),
    toml: '[[steps]]\nname = "grade"\n\n[steps.verifier.environment]\ncpus = 2\n',
    files: { ...GRADE, ...TESTS_DOCKERFILE },
    expect: { accepted: true, check: { "stepMode.0": "separate", "steps.0.config.verifier.environment.cpus": 2 } },
  },
  {
    id: "step-default-shared",
    cite: cite(F, "TestResolveStepVerifierMode::test_step_default_inherits_task_shared"),
    toml: '[[steps]]\nname = "grade"\n',
    files: GRADE,
    expect: { accepted: true, check: { "stepMode.0": "shared" } },
  },
  {
    id: "any-shared-only",
    cite: cite(F, "TestTaskHasAnyVerifier::test_single_step_shared_only"),
    toml: "",
    expect: { accepted: true, check: { mode: "shared" } },
  },
  {
    id: "any-separate-only",
    cite: cite(F, "TestTaskHasAnyVerifier::test_single_step_separate_only"),
    toml: "[verifier.environment]\n",
    files: TESTS_DOCKERFILE,
    expect: { accepted: true, check: { mode: "separate" } },
  },
  {
    id: "any-mixed-steps",
    cite: cite(F, "TestTaskHasAnyVerifier::test_multi_step_mixed"),
    toml: '[[steps]]\nname = "build"\n\n[[steps]]\nname = "grade"\n\n[steps.verifier.environment]\n',
    files: { ...GRADE, ...TESTS_DOCKERFILE, "steps/build/instruction.md": "Build.\n" },
    expect: { accepted: true, check: { "stepMode.0": "shared", "stepMode.1": "separate" } },
  },
];
