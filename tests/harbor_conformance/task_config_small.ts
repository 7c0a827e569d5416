/**
 * Harbor conformance cases from the small task-model test files: test_task_config_env.py, _skills.py, _timeout.py,
 * _toml.py, _workdir.py, test_task_short_name.py, test_task_windows_multistep.py (all under tests/unit/models/) and
 * tests/unit/test_task_relative_path.py. Serialization-only tests (dump order, round trips) are restated as loads.
 */
import { type Case, cite, DIFFERS, TESTS_DOCKERFILE } from "./types.ts";

const ENV = "models/test_task_config_env.py";
const SKILLS = "models/test_task_config_skills.py";
const TIMEOUT = "models/test_task_config_timeout.py";
const TOML = "models/test_task_config_toml.py";
const WORKDIR = "models/test_task_config_workdir.py";
const SHORT = "models/test_task_short_name.py";
const WIN = "models/test_task_windows_multistep.py";
const REL = "test_task_relative_path.py";

/** A `[[steps]]` task whose only step, grade, runs `test.bat` on Windows (Harbor's `_make_windows_multi_step_task`). */
const WINDOWS_STEPS = '[environment]\nos = "windows"\nbuild_timeout_sec = 600\n\n[[steps]]\nname = "grade"\n';
const WINDOWS_FILES = {
  "environment/Dockerfile": "FROM mcr.microsoft.com/windows/servercore:ltsc2022\n",
  "steps/grade/instruction.md": "Grade it.\n",
  "instruction.md": null,
  "tests/test.sh": null,
};

/** The legacy task of the skills and mcp tests, with neither `skills_dir` nor `mcp_servers`. */
export const LEGACY_TOML = 'version = "1.0"\n\n[metadata]\n\n[verifier]\ntimeout_sec = 300.0\n\n[agent]\n' +
  "timeout_sec = 600.0\n\n[environment]\ncpus = 2\nmemory_mb = 4096\n";

export const CASES: Case[] = [
  {
    id: "env-templates",
    cite: cite(ENV, "TestEnvironmentEnvToml::test_parse_environment_env"),
    toml: '[environment.env]\nAPI_KEY = "${OPENAI_API_KEY}"\nDEBUG = "true"\nMODEL = "${MODEL:-gpt-4}"\n',
    // Harbor keeps the templates in the config and resolves them when the trial starts; pgs resolves them on load.
    hostEnv: { OPENAI_API_KEY: "sk-test", MODEL: null },
    expect: {
      accepted: true,
      check: { "config.environment.env": { API_KEY: "sk-test", DEBUG: "true", MODEL: "gpt-4" } },
    },
  },
  {
    id: "env-empty",
    cite: cite(ENV, "TestEnvironmentEnvToml::test_empty_environment_env"),
    toml: "",
    expect: { accepted: true, check: { "config.environment.env": {} } },
  },
  {
    id: "env-roundtrip",
    cite: cite(ENV, "TestEnvironmentEnvToml::test_roundtrip"),
    toml: '[environment.env]\nKEY = "value"\n',
    expect: { accepted: true, check: { "config.environment.env": { KEY: "value" } } },
  },
  {
    id: "skills-unset",
    cite: cite(SKILLS, "TestTaskConfigSkillsDir::test_no_skills_dir_defaults_to_none"),
    toml: 'version = "1.0"\n',
    expect: { accepted: true, check: { "config.schemaVersion": "1.0" } },
  },
  {
    id: "skills-dir",
    cite: cite(SKILLS, "TestTaskConfigSkillsDir::test_skills_dir_parses"),
    toml: 'version = "1.0"\n\n[environment]\nskills_dir = "/workspace/skills"\n',
    expect: { accepted: true, warns: /skills_dir/ },
  },
  {
    id: "skills-legacy",
    cite: cite(SKILLS, "TestTaskConfigSkillsDir::test_backwards_compatibility"),
    toml: LEGACY_TOML,
    expect: { accepted: true, check: { "config.verifier.timeoutSec": 300, "config.environment.cpus": 2 } },
  },
  {
    id: "skills-with-mcp",
    cite: cite(SKILLS, "TestTaskConfigSkillsDir::test_skills_dir_alongside_mcp_servers"),
    toml: 'version = "1.0"\n\n[environment]\nskills_dir = "/workspace/skills"\n\n[[environment.mcp_servers]]\n' +
      'name = "mcp-server"\ntransport = "sse"\nurl = "http://mcp-server:8000/sse"\n',
    expect: { accepted: true },
  },
  {
    id: "agent-timeout-default",
    cite: cite(TIMEOUT, "TestAgentTimeoutOptional::test_task_config_no_agent_section"),
    toml: "",
    expect: { accepted: true, check: { "config.agent.timeoutSec": 900 } },
    differs: `${DIFFERS.seedDefault}: the agent timeout is 900 s (Harbor: None, no timeout)`,
  },
  {
    id: "agent-timeout-omitted",
    cite: cite(TIMEOUT, "TestAgentTimeoutOptional::test_task_config_omit_timeout"),
    toml: '[metadata]\nauthor_name = "test"\n',
    expect: { accepted: true, check: { "config.agent.timeoutSec": 900, "config.metadata.author_name": "test" } },
    differs: `${DIFFERS.seedDefault}: the agent timeout is 900 s (Harbor: None, no timeout)`,
  },
  {
    id: "agent-timeout-set",
    cite: cite(TIMEOUT, "TestAgentTimeoutOptional::test_task_config_with_timeout"),
    toml: "[agent]\ntimeout_sec = 300.0\n",
    expect: { accepted: true, check: { "config.agent.timeoutSec": 300 } },
  },
  {
    id: "agent-timeout-explicit",
    cite: cite(TIMEOUT, "TestAgentTimeoutOptional::test_explicit_timeout"),
    toml: "[agent]\ntimeout_sec = 120.0\n",
    expect: { accepted: true, check: { "config.agent.timeoutSec": 120 } },
  },
  {
    id: "package-version-free-form",
    cite: cite(TOML, "test_task_package_version_accepts_non_semver_strings"),
    toml: '[task]\nname = "org/example"\nversion = "release-candidate"\n',
    expect: { accepted: true, check: { name: "org/example" } },
  },
  {
    id: "package-version-empty",
    cite: cite(TOML, "test_task_package_version_rejects_empty_strings"),
    toml: '[task]\nname = "org/example"\nversion = ""\n',
    expect: { refused: /version/ },
  },
  {
    id: "package-version-absent",
    cite: cite(TOML, "test_legacy_task_without_package_version_preserves_none"),
    toml: '[task]\nname = "org/example"\n',
    expect: { accepted: true, check: { name: "org/example", "config.name": "org/example" } },
  },
  {
    id: "sections-any-order",
    cite: cite(TOML, "test_model_dump_toml_orders_task_before_steps_and_sections"),
    toml: '[task]\nname = "org/example"\ndescription = "Example task"\n\n[metadata]\ndifficulty = "easy"\n\n' +
      '[agent]\ntimeout_sec = 600.0\n\n[environment]\ncpus = 2\n\n[[steps]]\nname = "step-1"\n\n[[steps]]\n' +
      'name = "step-2"\n',
    files: { "steps/step-1/instruction.md": "One.\n", "steps/step-2/instruction.md": "Two.\n" },
    expect: {
      accepted: true,
      check: {
        "config.description": "Example task",
        "config.metadata": { difficulty: "easy" },
        "config.agent.timeoutSec": 600,
        "config.environment.cpus": 2,
        "steps.0.config.name": "step-1",
        "steps.1.config.name": "step-2",
      },
    },
  },
  {
    id: "root-fields",
    cite: cite(TOML, "test_model_dump_toml_keeps_root_fields_before_tables"),
    toml: 'source = "registry"\nmulti_step_reward_strategy = "final"\nartifacts = ["logs/out.txt"]\n\n[task]\n' +
      'name = "org/example"\n',
    expect: {
      accepted: true,
      check: { "config.multiStepRewardStrategy": "final", "config.artifacts.0.source": "logs/out.txt" },
    },
  },
  {
    id: "verifier-environment-windows",
    cite: cite(TOML, "test_verifier_environment_round_trips_as_nested_section"),
    toml: '[task]\nname = "org/example"\n\n[verifier]\nenvironment_mode = "separate"\n\n[verifier.environment]\n' +
      'cpus = 4\nos = "windows"\n',
    files: TESTS_DOCKERFILE,
    expect: { refused: /windows/ },
    differs: DIFFERS.windows,
  },
  {
    id: "step-verifier-environment",
    cite: cite(TOML, "test_step_verifier_environment_round_trips"),
    toml: '[task]\nname = "org/example"\n\n[[steps]]\nname = "grade"\n\n[steps.verifier]\n' +
      'environment_mode = "separate"\n\n[steps.verifier.environment]\ncpus = 2\n',
    files: { ...TESTS_DOCKERFILE, "steps/grade/instruction.md": "Grade.\n" },
    expect: { accepted: true, check: { "steps.0.config.verifier.environment.cpus": 2, "stepMode.0": "separate" } },
  },
  {
    id: "no-verifier-environment",
    cite: cite(TOML, "test_default_verifier_does_not_emit_empty_environment_subtable"),
    toml: '[task]\nname = "org/example"\n',
    expect: { accepted: true, check: { "config.verifier.environment": undefined, mode: "shared" } },
  },
  {
    id: "resources-unset",
    cite: cite(TOML, "test_default_environment_resources_are_none_and_omitted"),
    toml: '[task]\nname = "org/example"\n',
    expect: {
      accepted: true,
      check: {
        "config.environment.cpus": 1,
        "config.environment.memoryMb": 2048,
        "config.environment.storageMb": undefined,
        "config.environment.gpus": undefined,
      },
    },
    differs: `${DIFFERS.seedDefault}: cpus 1 and memory 2048 MB (Harbor: cpus and memory_mb None)`,
  },
  {
    id: "workdir-parse",
    cite: cite(WORKDIR, "TestWorkdirConfig::test_parse_from_toml"),
    toml: '[environment]\nworkdir = "/workspace/project"\n',
    expect: { accepted: true, check: { "config.environment.workdir": "/workspace/project" } },
  },
  {
    id: "workdir-omitted",
    cite: cite(WORKDIR, "TestWorkdirConfig::test_omitted_in_toml_is_none"),
    toml: "",
    expect: { accepted: true, check: { "config.environment.workdir": undefined } },
  },
  {
    id: "workdir-app",
    cite: cite(WORKDIR, "TestWorkdirConfig::test_roundtrip"),
    toml: '[environment]\nworkdir = "/app"\n',
    expect: { accepted: true, check: { "config.environment.workdir": "/app" } },
  },
  {
    id: "name-from-task-section",
    cite: cite(SHORT, "test_short_name_with_registry_task_section"),
    dirName: "cancel-async-tasks",
    toml: 'schema_version = "1.1"\n[task]\nname = "terminal-bench/cancel-async-tasks"\ndescription = "test"\n' +
      '[[task.authors]]\nname = "Test"\nemail = "t@example.com"\n[environment]\ncpus = 1\nmemory_mb = 512\n' +
      "storage_mb = 1024\n[verifier]\ntimeout_sec = 60.0\n[agent]\ntimeout_sec = 60.0\n",
    files: { "environment/Dockerfile": "FROM ubuntu:22.04\n", "instruction.md": "Do the thing.\n" },
    expect: { accepted: true, check: { name: "terminal-bench/cancel-async-tasks" } },
  },
  {
    id: "name-from-directory",
    cite: cite(SHORT, "test_short_name_without_task_section"),
    dirName: "local-task",
    toml: 'schema_version = "1.1"\n[environment]\ncpus = 1\nmemory_mb = 512\nstorage_mb = 1024\n[verifier]\n' +
      "timeout_sec = 60.0\n[agent]\ntimeout_sec = 60.0\n",
    files: { "environment/Dockerfile": "FROM ubuntu:22.04\n", "instruction.md": "Do the thing.\n" },
    expect: { accepted: true, check: { name: "local-task", "config.verifier.timeoutSec": 60 } },
  },
  {
    id: "windows-steps-shared-bat",
    cite: cite(WIN, "test_windows_multi_step_task_accepts_shared_bat_test"),
    toml: WINDOWS_STEPS,
    files: { ...WINDOWS_FILES, "tests/test.bat": "@echo off\r\nexit /b 0\r\n" },
    expect: { refused: /windows/ },
    differs: DIFFERS.windows,
  },
  {
    id: "windows-steps-step-bat",
    cite: cite(WIN, "test_windows_multi_step_task_accepts_step_bat_test"),
    toml: WINDOWS_STEPS,
    files: { ...WINDOWS_FILES, "steps/grade/tests/test.bat": "@echo off\r\nexit /b 0\r\n" },
    expect: { refused: /windows/ },
    differs: DIFFERS.windows,
  },
  {
    // Both refuse; Harbor for the missing test.bat, pgs for the Windows os.
    id: "windows-steps-sh-only",
    cite: cite(WIN, "test_windows_multi_step_task_rejects_sh_only_test"),
    toml: WINDOWS_STEPS,
    files: { ...WINDOWS_FILES, "steps/grade/tests/test.sh": "#!/bin/bash\nexit 0\n" },
    expect: { refused: /windows|test\.bat/ },
  },
  {
    id: "load-dot",
    cite: cite(REL, "test_task_init_with_dot_path"),
    dirName: "my-task",
    relative: true, // Harbor's test loads "." from inside the task; a relative path is resolved the same way.
    toml: 'version = "1.0"\n\n[environment]',
    files: { "environment/Dockerfile": "FROM alpine:3.19\n", "instruction.md": "Do something simple.\n" },
    expect: { accepted: true, check: { name: "my-task" } },
  },
];
