/**
 * Harbor conformance cases from tests/unit/models/test_verifier_config_validation.py: `environment_mode = "shared"`
 * cannot go with a `[verifier.environment]` (task or step); `separate` goes with one or without.
 * Harbor's separate verifier image is built from tests/, so those cases carry a tests/Dockerfile.
 */
import { type Case, cite, TESTS_DOCKERFILE } from "./types.ts";

const F = "models/test_verifier_config_validation.py";

export const CASES: Case[] = [
  {
    id: "task-shared-with-environment",
    cite: cite(F, "test_task_level_shared_with_environment_raises"),
    toml: '[verifier]\nenvironment_mode = "shared"\n\n[verifier.environment]\n',
    expect: { refused: /environment_mode/ },
  },
  {
    id: "step-shared-with-environment",
    cite: cite(F, "test_step_level_shared_with_environment_raises"),
    toml:
      '[task]\nname = "org/example"\n\n[[steps]]\nname = "grade"\n\n[steps.verifier]\nenvironment_mode = "shared"\n' +
      "\n[steps.verifier.environment]\ncpus = 2\n",
    files: { "steps/grade/instruction.md": "Grade.\n" },
    expect: { refused: /environment_mode/ },
  },
  {
    id: "separate-with-environment",
    cite: cite(F, "test_separate_with_environment_is_valid"),
    toml: '[verifier]\nenvironment_mode = "separate"\n\n[verifier.environment]\n',
    files: TESTS_DOCKERFILE,
    expect: { accepted: true, check: { mode: "separate", "config.verifier.environmentMode": "separate" } },
  },
  {
    id: "separate-without-environment",
    cite: cite(F, "test_separate_without_environment_is_valid"),
    toml: '[verifier]\nenvironment_mode = "separate"\n',
    files: TESTS_DOCKERFILE,
    expect: { accepted: true, check: { mode: "separate", "config.verifier.environment": undefined } },
  },
  {
    // Harbor leaves environment_mode None and infers separate; pgs records the inferred mode. Both verify separately.
    id: "environment-without-mode",
    cite: cite(F, "test_omitted_with_environment_is_valid"),
    toml: "[verifier.environment]\n",
    files: TESTS_DOCKERFILE,
    expect: { accepted: true, check: { mode: "separate" } },
  },
];
