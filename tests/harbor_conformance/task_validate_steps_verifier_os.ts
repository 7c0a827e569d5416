/**
 * Harbor conformance cases from tests/unit/models/test_task_validate_steps_verifier_os.py: which test script a step
 * needs on the host. A shared step needs `steps/<name>/tests/test.sh` or `tests/test.sh`; a separate step's image
 * owns its test, so it needs none on the host (Harbor checks no Dockerfile when the task loads).
 */
import { type Case, cite, DIFFERS } from "./types.ts";

const F = "models/test_task_validate_steps_verifier_os.py";
const SH = "#!/bin/bash\nexit 0\n";
/** Harbor's scaffold: a Dockerfile and steps/grade/instruction.md, no instruction.md nor tests/ at the root. */
const GRADE = {
  "environment/Dockerfile": "FROM ubuntu:22.04\n",
  "instruction.md": null,
  "tests/test.sh": null,
  "steps/grade/instruction.md": "Grade.\n",
};

export const CASES: Case[] = [
  {
    id: "separate-step-windows-agent",
    cite: cite(F, "test_separate_step_with_host_test_loads_even_when_agent_os_differs"),
    toml: '[environment]\nos = "windows"\n[[steps]]\nname = "grade"\n[steps.verifier.environment]\nos = "linux"\n',
    files: { ...GRADE, "steps/grade/tests/test.sh": SH },
    expect: { refused: /windows/ },
    differs: DIFFERS.windows,
  },
  {
    // Both refuse; Harbor for the missing test.bat, pgs for the Windows os.
    id: "windows-shared-step-needs-bat",
    cite: cite(F, "test_windows_shared_step_rejects_missing_test_bat"),
    toml: '[environment]\nos = "windows"\n[[steps]]\nname = "grade"\n',
    files: { ...GRADE, "tests/test.sh": SH },
    expect: { refused: /windows|test\.bat/ },
  },
  {
    id: "separate-step-own-test",
    cite: cite(F, "test_separate_step_with_per_step_test_loads"),
    toml: '[environment]\n[[steps]]\nname = "grade"\n[steps.verifier]\nenvironment_mode = "separate"\n',
    files: { ...GRADE, "steps/grade/tests/test.sh": SH },
    expect: { refused: /Dockerfile: missing/ },
    differs: DIFFERS.separateImage,
  },
  {
    id: "separate-step-dockerfile-only",
    cite: cite(F, "test_separate_step_with_dockerfile_only_tests_dir_loads"),
    toml: '[environment]\n[[steps]]\nname = "grade"\n[steps.verifier]\nenvironment_mode = "separate"\n',
    files: {
      ...GRADE,
      "steps/grade/tests/Dockerfile": 'FROM ubuntu:22.04\nRUN mkdir -p /tests && printf "#!/bin/sh\\nexit 0\\n" > ' +
        "/tests/test.sh\n",
    },
    expect: { accepted: true, check: { "stepMode.0": "separate" } },
  },
  {
    id: "task-separate-step-no-test",
    cite: cite(F, "test_task_level_separate_step_does_not_require_host_test"),
    toml: '[verifier]\nenvironment_mode = "separate"\n[environment]\n[[steps]]\nname = "grade"\n',
    files: GRADE,
    expect: { refused: /Dockerfile: missing/ },
    differs: DIFFERS.separateImage,
  },
  {
    id: "shared-step-under-separate-task",
    cite: cite(F, "test_step_shared_override_under_task_separate_requires_host_test"),
    toml: '[verifier]\nenvironment_mode = "separate"\n[environment]\n[[steps]]\nname = "grade"\n[steps.verifier]\n' +
      'environment_mode = "shared"\n',
    files: GRADE,
    expect: { refused: /test\.sh/ },
  },
  {
    id: "separate-step-root-test",
    cite: cite(F, "test_separate_step_falls_back_to_top_level_test"),
    toml: '[environment]\n[[steps]]\nname = "grade"\n[steps.verifier]\nenvironment_mode = "separate"\n',
    files: { ...GRADE, "tests/test.sh": SH },
    expect: { refused: /Dockerfile: missing/ },
    differs: DIFFERS.separateImage,
  },
  {
    id: "mixed-steps-windows-verifier",
    cite: cite(F, "test_mixed_steps_each_validated_against_their_own_verifier_os"),
    toml: '[environment]\n[[steps]]\nname = "build"\n[[steps]]\nname = "grade"\n[steps.verifier.environment]\n' +
      'os = "windows"\n',
    files: {
      ...GRADE,
      "steps/build/instruction.md": "Grade.\n",
      "tests/test.sh": SH,
      "tests/test.bat": "@echo off\r\nexit /b 0\r\n",
    },
    expect: { refused: /windows/ },
    differs: DIFFERS.windows,
  },
];
