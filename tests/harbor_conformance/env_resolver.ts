/**
 * Harbor conformance cases from tests/unit/test_env_resolver.py and tests/unit/test_verifier_env_override.py: a
 * task.toml env value that is wholly `${VAR}` or `${VAR:-default}` is read from the host (an unset `${VAR}` refused);
 * anything else passes as written. Harbor resolves when the trial starts, pgs when the task loads; the result is the
 * same. Run-time `override_env` cases and the bool/listing helpers (no task.toml involved) are left out.
 */
import { type Case, cite } from "./types.ts";

const R = "test_env_resolver.py";
const T = "TestResolveEnvVars";
const O = "test_verifier_env_override.py";

/** `[environment.env]` holding `vars`. */
function envTable(vars: Record<string, string>): string {
  return `[environment.env]\n${Object.entries(vars).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join("\n")}\n`;
}

const LITERALS = { MODEL_NAME: "claude-3-5-sonnet-20241022", TEMPERATURE: "0.3", MAX_TOKENS: "1024" };
const PARTIALS = { PARTIAL1: "$VAR", PARTIAL2: "{VAR}", PARTIAL3: "${", PARTIAL4: "prefix_${VAR}_suffix" };

export const CASES: Case[] = [
  {
    id: "literals",
    cite: cite(R, `${T}::test_literal_values_pass_through`),
    toml: envTable(LITERALS),
    expect: { accepted: true, check: { "config.environment.env": LITERALS } },
  },
  {
    id: "templates",
    cite: cite(R, `${T}::test_template_substitution_from_environment`),
    toml: envTable({ API_KEY: "${TEST_API_KEY}", MODEL: "${TEST_MODEL}" }),
    hostEnv: { TEST_API_KEY: "sk-test-123", TEST_MODEL: "gpt-4" },
    expect: { accepted: true, check: { "config.environment.env": { API_KEY: "sk-test-123", MODEL: "gpt-4" } } },
  },
  {
    id: "mixed",
    cite: cite(R, `${T}::test_mixed_templates_and_literals`),
    toml: envTable({ SECRET_KEY: "${TEST_SECRET}", MODEL_NAME: "claude-3-5-sonnet-20241022", TEMPERATURE: "0.7" }),
    hostEnv: { TEST_SECRET: "secret-value" },
    expect: {
      accepted: true,
      check: {
        "config.environment.env": {
          SECRET_KEY: "secret-value",
          MODEL_NAME: "claude-3-5-sonnet-20241022",
          TEMPERATURE: "0.7",
        },
      },
    },
  },
  {
    id: "missing-variable",
    cite: cite(R, `${T}::test_missing_environment_variable_raises_error`),
    toml: envTable({ API_KEY: "${MISSING_ENV_VAR}" }),
    hostEnv: { MISSING_ENV_VAR: null },
    expect: { refused: /MISSING_ENV_VAR/ },
  },
  {
    id: "empty",
    cite: cite(R, `${T}::test_empty_dict_returns_empty_dict`),
    toml: "[environment.env]\n",
    expect: { accepted: true, check: { "config.environment.env": {} } },
  },
  {
    id: "partial-templates",
    cite: cite(R, `${T}::test_partial_template_not_substituted`),
    toml: envTable(PARTIALS),
    hostEnv: { VAR: "set" },
    expect: { accepted: true, check: { "config.environment.env": PARTIALS } },
  },
  {
    id: "special-characters",
    cite: cite(R, `${T}::test_special_characters_in_values`),
    toml: envTable({ SPECIAL: "${TEST_SPECIAL}" }),
    hostEnv: { TEST_SPECIAL: "value=with=equals&symbols!" },
    expect: { accepted: true, check: { "config.environment.env": { SPECIAL: "value=with=equals&symbols!" } } },
  },
  {
    id: "default-unset",
    cite: cite(R, `${T}::test_default_value_when_var_unset`),
    toml: envTable({ KEY: "${UNSET_VAR_FOR_TEST:-fallback}" }),
    hostEnv: { UNSET_VAR_FOR_TEST: null },
    expect: { accepted: true, check: { "config.environment.env": { KEY: "fallback" } } },
  },
  {
    id: "default-set",
    cite: cite(R, `${T}::test_default_value_when_var_set`),
    toml: envTable({ KEY: "${TEST_DEFAULT_SET:-fallback}" }),
    hostEnv: { TEST_DEFAULT_SET: "real-value" },
    expect: { accepted: true, check: { "config.environment.env": { KEY: "real-value" } } },
  },
  {
    id: "empty-default",
    cite: cite(R, `${T}::test_empty_default_value`),
    toml: envTable({ KEY: "${UNSET_VAR_FOR_TEST:-}" }),
    hostEnv: { UNSET_VAR_FOR_TEST: null },
    expect: { accepted: true, check: { "config.environment.env": { KEY: "" } } },
  },
  {
    id: "template-no-spaces",
    cite: cite(R, `${T}::test_whitespace_in_template`),
    toml: envTable({ KEY: "${TEST_VAR}" }),
    hostEnv: { TEST_VAR: "test-value" },
    expect: { accepted: true, check: { "config.environment.env.KEY": "test-value" } },
  },
  {
    id: "verifier-env-template",
    cite: cite(O, "test_verifier_no_override_uses_task_env"),
    toml: '[verifier.env]\nOPENAI_API_KEY = "${HOST_API_KEY}"\n',
    hostEnv: { HOST_API_KEY: "host-secret" },
    expect: { accepted: true, check: { "config.verifier.env": { OPENAI_API_KEY: "host-secret" } } },
  },
  {
    // The task's part of the override test: its [verifier.env] as resolved before any run-time override applies.
    id: "verifier-env-before-override",
    cite: cite(O, "test_verifier_runtime_env_overrides_task_env"),
    toml: '[verifier.env]\nOPENAI_API_KEY = "${HOST_API_KEY}"\nMODEL_NAME = "task-model"\n' +
      'OPENAI_BASE_URL = "http://task.example/v1"\n',
    hostEnv: { HOST_API_KEY: "host-secret" },
    expect: {
      accepted: true,
      check: {
        "config.verifier.env": {
          OPENAI_API_KEY: "host-secret",
          MODEL_NAME: "task-model",
          OPENAI_BASE_URL: "http://task.example/v1",
        },
      },
    },
  },
];
