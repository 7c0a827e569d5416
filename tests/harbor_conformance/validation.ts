/**
 * Harbor conformance cases from tests/unit/models/test_validation.py: the files a task directory needs when it loads
 * (instruction.md, an OS-compatible test script for a shared verifier, each step's folder and instruction), and
 * that a separate verifier needs no test script on the host. `disable_verification` cases are run-time flags, left out.
 */
import { type Case, cite, DIFFERS } from "./types.ts";

const F = "models/test_validation.py";
const SH = "#!/bin/bash\nexit 0\n";
/** Harbor's `_scaffold`: task.toml and a Dockerfile only. */
const SCAFFOLD = { "environment/Dockerfile": "FROM ubuntu:22.04\n", "instruction.md": null, "tests/test.sh": null };
const DO_IT = { "instruction.md": "Do it.\n" };

export const CASES: Case[] = [
  {
    id: "missing-test-sh",
    cite: cite(F, "TestSingleStepShared::test_linux_missing_test_sh_raises"),
    toml: "",
    files: { ...SCAFFOLD, ...DO_IT, "tests/": "" },
    expect: { refused: /tests\/test\.sh/ },
  },
  {
    // Both refuse; Harbor for the missing test.bat, pgs for the Windows os.
    id: "windows-missing-test-bat",
    cite: cite(F, "TestSingleStepShared::test_windows_missing_test_bat_raises"),
    toml: '[environment]\nos = "windows"\n',
    files: { ...SCAFFOLD, ...DO_IT, "tests/": "" },
    expect: { refused: /windows|test\.bat/ },
  },
  {
    id: "with-test-sh",
    cite: cite(F, "TestSingleStepShared::test_with_test_sh_passes"),
    toml: "",
    files: { ...SCAFFOLD, ...DO_IT, "tests/test.sh": SH },
    expect: { accepted: true, check: { mode: "shared", instruction: "Do it.\n" } },
  },
  {
    id: "missing-instruction",
    cite: cite(F, "TestSingleStepShared::test_missing_instruction_raises"),
    toml: "",
    files: { ...SCAFFOLD, "tests/test.sh": SH },
    expect: { refused: /instruction\.md/ },
  },
  {
    id: "separate-no-host-test",
    cite: cite(F, "TestSingleStepSeparate::test_separate_verifier_no_host_test_passes"),
    toml: '[verifier]\nenvironment_mode = "separate"\n',
    files: { ...SCAFFOLD, ...DO_IT },
    expect: { refused: /Dockerfile: missing/ },
    differs: DIFFERS.separateImage,
  },
  {
    id: "separate-verifier-environment",
    cite: cite(F, "TestSingleStepSeparate::test_separate_verifier_with_explicit_environment_passes"),
    toml: '[verifier.environment]\nos = "linux"\n',
    files: { ...SCAFFOLD, ...DO_IT },
    expect: { refused: /Dockerfile: missing/ },
    differs: DIFFERS.separateImage,
  },
  {
    id: "missing-step-directory",
    cite: cite(F, "TestMultiStep::test_missing_step_directory_raises"),
    toml: '[[steps]]\nname = "grade"\n',
    files: SCAFFOLD,
    expect: { refused: /steps\/grade/ },
  },
  {
    id: "missing-step-instruction",
    cite: cite(F, "TestMultiStep::test_missing_step_instruction_raises"),
    toml: '[[steps]]\nname = "grade"\n',
    files: { ...SCAFFOLD, "steps/grade/": "" },
    expect: { refused: /instruction\.md/ },
  },
  {
    // Both refuse; Harbor for the missing test.bat, pgs for the Windows os.
    id: "windows-step-needs-bat",
    cite: cite(F, "TestMultiStep::test_windows_shared_step_requires_test_bat"),
    toml: '[environment]\nos = "windows"\n[[steps]]\nname = "grade"\n',
    files: { ...SCAFFOLD, "steps/grade/instruction.md": "Step.\n", "tests/test.sh": SH },
    expect: { refused: /windows|test\.bat/ },
  },
  {
    id: "root-test-for-step",
    cite: cite(F, "TestMultiStep::test_top_level_test_satisfies_shared_step"),
    toml: '[[steps]]\nname = "grade"\n',
    files: { ...SCAFFOLD, "steps/grade/instruction.md": "Step.\n", "tests/test.sh": SH },
    expect: { accepted: true, check: { "steps.0.instruction": "Step.\n", "stepMode.0": "shared" } },
  },
  {
    id: "step-own-test",
    cite: cite(F, "TestMultiStep::test_step_level_test_satisfies_step"),
    toml: '[[steps]]\nname = "grade"\n',
    files: { ...SCAFFOLD, "steps/grade/instruction.md": "Step.\n", "steps/grade/tests/test.sh": SH },
    expect: { accepted: true, check: { "stepMode.0": "shared" } },
  },
  {
    id: "valid-dir-missing-test",
    cite: cite(F, "TestTaskIsValidDir::test_single_step_shared_missing_test_returns_false"),
    toml: "",
    files: { ...SCAFFOLD, ...DO_IT, "tests/": "" },
    expect: { refused: /test\.sh/ },
  },
  {
    id: "valid-dir-separate",
    cite: cite(F, "TestTaskIsValidDir::test_single_step_separate_no_host_test_returns_true"),
    toml: '[verifier]\nenvironment_mode = "separate"\n',
    files: { ...SCAFFOLD, ...DO_IT },
    expect: { refused: /Dockerfile: missing/ },
    differs: DIFFERS.separateImage,
  },
  {
    id: "valid-dir-missing-step",
    cite: cite(F, "TestTaskIsValidDir::test_multi_step_missing_step_directory_returns_false"),
    toml: '[[steps]]\nname = "grade"\n',
    files: SCAFFOLD,
    expect: { refused: /steps\/grade/ },
  },
  {
    id: "valid-dir-bad-toml",
    cite: cite(F, "TestTaskIsValidDir::test_invalid_toml_returns_false"),
    toml: "not toml",
    files: SCAFFOLD,
    expect: { refused: /TOML/ },
  },
  {
    id: "docker-image-no-dockerfile",
    cite: cite(F, "TestTaskIsValidDir::test_docker_image_only_without_dockerfile_returns_true"),
    toml: '[environment]\ndocker_image = "ubuntu:22.04"\n',
    files: { "environment/Dockerfile": null, "environment/": "", ...DO_IT, "tests/test.sh": SH },
    expect: {
      accepted: true,
      check: { "config.environment.dockerImage": "ubuntu:22.04", "paths.dockerfile": undefined },
    },
  },
];
