/**
 * Harbor conformance cases from tests/unit/models/test_task_config_network.py (TestNetworkAllowlistEntryType and
 * TestNetworkPolicyToml): `network_mode`, `allowed_hosts` (validated, normalized) and legacy `allow_internet` of
 * `[environment]`, `[agent]`, `[verifier]` and `[verifier.environment]`, checked through pgs's network plan.
 * The step cases are in `task_config_network_steps.ts`.
 */
import { type Case, cite, DIFFERS, TESTS_DOCKERFILE } from "./types.ts";

const F = "models/test_task_config_network.py";
const T = "TestNetworkPolicyToml";

const NONE = { mode: "no-network", allowedHosts: [] };
const PUBLIC = { mode: "public", allowedHosts: [] };
/** An allowlist policy of `hosts`. */
const allow = (...hosts: string[]) => ({ mode: "allowlist", allowedHosts: hosts });

/** `[agent]` in allowlist mode with `hosts` (TOML strings). */
const agentAllowlist = (hosts: string) => `[agent]\nnetwork_mode = "allowlist"\nallowed_hosts = [${hosts}]\n`;
/** `[verifier]` in allowlist mode with `hosts` (TOML strings). */
const verifierAllowlist = (hosts: string) => `[verifier]\nnetwork_mode = "allowlist"\nallowed_hosts = [${hosts}]\n`;

const CLASSIFIED: [string, string][] = [
  ["hostname", "example.com"],
  ["wildcard", "*.example.com"],
  ["ipv4", "1.1.1.1"],
  ["ipv6", "2001:db8::1"],
  ["ipv4-cidr", "192.0.2.0/24"],
  ["ipv6-cidr", "2001:db8::/32"],
];

const MALFORMED_WILDCARDS = ["*", "pypi.*", "api.*.pypi.org", "*pypi.org", "*.1.1.1.1"];

export const CASES: Case[] = [
  ...CLASSIFIED.map(([kind, host]): Case => ({
    id: `entry-${kind}`,
    cite: cite(F, "TestNetworkAllowlistEntryType::test_classify_network_allowlist_entry", host),
    toml: agentAllowlist(JSON.stringify(host)),
    expect: { accepted: true, check: { "plan.agent": allow(host) } },
  })),
  {
    id: "default-public",
    cite: cite(F, `${T}::test_environment_defaults_to_public`),
    toml: "",
    expect: {
      accepted: true,
      check: {
        "config.environment.networkUnset": true,
        "plan.agentBaseline": NONE,
        "plan.agent": NONE,
        "plan.verifierBaseline": undefined,
        "plan.verifier": NONE,
      },
    },
    differs: DIFFERS.unsetNetwork,
  },
  {
    id: "agent-public",
    cite: cite(F, `${T}::test_parse_public`),
    toml: '[agent]\nnetwork_mode = "public"\n',
    expect: { accepted: true, check: { "plan.agent": PUBLIC } },
  },
  {
    id: "allowlist-normalized",
    cite: cite(F, `${T}::test_parse_allowlist_hosts`),
    toml: verifierAllowlist('"PyPI.org", "ubuntu.com.", "1.1.1.1"'),
    expect: { accepted: true, check: { "plan.verifier": allow("pypi.org", "ubuntu.com", "1.1.1.1") } },
  },
  {
    id: "allowlist-ipv6",
    cite: cite(F, `${T}::test_parse_allowlist_ipv6_addresses`),
    toml: verifierAllowlist('"2001:0DB8:0000:0000:0000:0000:0000:0001", "::1"'),
    expect: { accepted: true, check: { "plan.verifier": allow("2001:db8::1", "::1") } },
  },
  {
    id: "allowlist-cidr",
    cite: cite(F, `${T}::test_parse_allowlist_cidr_ranges`),
    toml: verifierAllowlist('"192.0.2.0/24", "2001:0DB8::/32"'),
    expect: { accepted: true, check: { "plan.verifier": allow("192.0.2.0/24", "2001:db8::/32") } },
  },
  {
    id: "allowlist-wildcard",
    cite: cite(F, `${T}::test_parse_allowlist_wildcard_hosts`),
    toml: verifierAllowlist('"*.iana.org"'),
    expect: { accepted: true, check: { "plan.verifier": allow("*.iana.org") } },
  },
  {
    id: "allowlist-wildcard-normalized",
    cite: cite(F, `${T}::test_parse_allowlist_wildcard_hosts_normalizes_case_and_trailing_dot`),
    toml: verifierAllowlist('"*.IANA.org."'),
    expect: { accepted: true, check: { "plan.verifier": allow("*.iana.org") } },
  },
  {
    id: "hosts-without-mode",
    cite: cite(F, `${T}::test_allowed_hosts_without_allowlist_is_rejected`),
    toml: '[agent]\nallowed_hosts = ["pypi.org"]\n',
    expect: { refused: /allowed_hosts/ },
  },
  {
    id: "mode-uppercase",
    cite: cite(F, `${T}::test_uppercase_mode_is_rejected`),
    toml: '[agent]\nnetwork_mode = "PUBLIC"\n',
    expect: { refused: /network_mode/ },
  },
  {
    id: "mode-invalid",
    cite: cite(F, `${T}::test_invalid_value`),
    toml: '[agent]\nnetwork_mode = "invalid"\n',
    expect: { refused: /network_mode/ },
  },
  {
    id: "allowlist-no-hosts",
    cite: cite(F, `${T}::test_allowlist_allows_omitted_hosts`),
    toml: '[agent]\nnetwork_mode = "allowlist"\n',
    expect: { accepted: true, check: { "plan.agent": allow() } },
  },
  {
    id: "allowlist-empty-hosts",
    cite: cite(F, `${T}::test_allowlist_allows_empty_hosts`),
    toml: '[environment]\nnetwork_mode = "allowlist"\nallowed_hosts = []\n',
    expect: { accepted: true, check: { "plan.agentBaseline": allow(), "plan.agent": allow() } },
  },
  {
    id: "hosts-with-public",
    cite: cite(F, `${T}::test_allowed_hosts_rejected_for_public`),
    toml: '[agent]\nnetwork_mode = "public"\nallowed_hosts = ["pypi.org"]\n',
    expect: { refused: /allowed_hosts/ },
  },
  {
    id: "hosts-with-no-network",
    cite: cite(F, `${T}::test_allowed_hosts_rejected_for_no_network`),
    toml: '[agent]\nnetwork_mode = "no-network"\nallowed_hosts = ["pypi.org"]\n',
    expect: { refused: /allowed_hosts/ },
  },
  {
    id: "hosts-url",
    cite: cite(F, `${T}::test_allowed_hosts_reject_urls`),
    toml: agentAllowlist('"https://pypi.org/simple"'),
    expect: { refused: /allowed_hosts/ },
  },
  {
    id: "hosts-port",
    cite: cite(F, `${T}::test_allowed_hosts_reject_ports`),
    toml: agentAllowlist('"pypi.org:443"'),
    expect: { refused: /allowed_hosts/ },
  },
  {
    id: "hosts-scoped-ipv6",
    cite: cite(F, `${T}::test_allowed_hosts_reject_scoped_ipv6_address`),
    toml: agentAllowlist('"fe80::1%eth0"'),
    expect: { refused: /allowed_hosts/ },
  },
  {
    id: "hosts-cidr-host-bits",
    cite: cite(F, `${T}::test_allowed_hosts_reject_host_bits_set_cidr`),
    toml: agentAllowlist('"192.0.2.1/24"'),
    expect: { refused: /allowed_hosts/ },
  },
  ...MALFORMED_WILDCARDS.map((host, i): Case => ({
    id: `hosts-bad-wildcard-${i}`,
    cite: cite(F, `${T}::test_allowed_hosts_reject_malformed_wildcards`, host),
    toml: agentAllowlist(JSON.stringify(host)),
    expect: { refused: /allowed_hosts/ },
  })),
  {
    id: "internet-key-not-policy",
    cite: cite(F, `${T}::test_environment_internet_is_not_treated_as_network_policy`),
    toml: '[environment]\ninternet = "optional"\n',
    expect: { accepted: true, check: { "plan.agent": NONE, "plan.verifier": NONE }, warns: /internet/ },
    differs: DIFFERS.unsetNetwork,
  },
  {
    id: "environment-no-network",
    cite: cite(F, `${T}::test_environment_network_mode_is_allowed`),
    toml: '[environment]\nnetwork_mode = "no-network"\n',
    expect: {
      accepted: true,
      check: {
        "plan.agentBaseline": NONE,
        "plan.agent": NONE,
        "plan.verifierBaseline": undefined,
        "plan.verifier": NONE,
      },
    },
  },
  {
    // Harbor's agent phase here is public ([environment] unset); that part is "default-public"'s (a pgs difference).
    id: "verifier-environment-no-network",
    cite: cite(F, `${T}::test_verifier_environment_network_mode_is_allowed`),
    toml: '[verifier]\nenvironment_mode = "separate"\n\n[verifier.environment]\nnetwork_mode = "no-network"\n',
    files: TESTS_DOCKERFILE,
    planMode: "separate",
    expect: { accepted: true, check: { "plan.verifierBaseline": NONE, "plan.verifier": NONE } },
  },
  {
    id: "verifier-environment-own-default",
    cite: cite(F, `${T}::test_verifier_environment_uses_own_default_not_top_level_environment`),
    toml: '[environment]\nnetwork_mode = "no-network"\n\n[verifier]\nenvironment_mode = "separate"\n\n' +
      "[verifier.environment]\ncpus = 1\n",
    files: TESTS_DOCKERFILE,
    planMode: "separate",
    expect: { accepted: true, check: { "plan.agentBaseline": NONE, "plan.verifierBaseline": NONE } },
    differs: `${DIFFERS.unsetNetwork}; so does a [verifier.environment] that sets none (pgs: no network, not ` +
      "inherited from [environment]; Harbor: public)",
  },
  {
    id: "verifier-environment-default-public",
    cite: cite(F, `${T}::test_verifier_environment_defaults_to_public`),
    toml: '[verifier]\nenvironment_mode = "separate"\n\n[verifier.environment]\ncpus = 1\n',
    files: TESTS_DOCKERFILE,
    planMode: "separate",
    expect: { accepted: true, check: { "plan.verifierBaseline": NONE } },
    differs: `${DIFFERS.unsetNetwork}; so does a [verifier.environment] that sets none (Harbor: public)`,
  },
  {
    id: "verifier-environment-default-public-env",
    cite: cite(F, `${T}::test_verifier_environment_defaults_to_public`),
    toml: '[verifier]\nenvironment_mode = "separate"\n\n[verifier.environment]\ncpus = 1\n',
    files: TESTS_DOCKERFILE,
    planMode: "separate",
    expect: {
      accepted: true,
      check: { "config.environment.networkUnset": true, "plan.agentBaseline.mode": "no-network" },
    },
    differs: DIFFERS.unsetNetwork,
  },
  {
    id: "allow-internet-false",
    cite: cite(F, `${T}::test_environment_allow_internet_false_maps_environment_and_inherited_roles`),
    toml: "[environment]\nallow_internet = false\n",
    expect: {
      accepted: true,
      check: {
        "plan.agentBaseline.mode": "no-network",
        "plan.agent.mode": "no-network",
        "plan.verifier.mode": "no-network",
      },
    },
  },
  {
    id: "allow-internet-true",
    cite: cite(F, `${T}::test_environment_allow_internet_true_maps_environment_and_inherited_roles`),
    toml: "[environment]\nallow_internet = true\n",
    expect: {
      accepted: true,
      check: { "plan.agentBaseline.mode": "public", "plan.agent.mode": "public", "plan.verifier.mode": "public" },
    },
  },
  {
    id: "allow-internet-under-explicit",
    cite: cite(F, `${T}::test_environment_allow_internet_does_not_override_explicit_policy`),
    toml: '[agent]\nnetwork_mode = "public"\n\n' + verifierAllowlist('"pypi.org"') +
      "\n[environment]\nallow_internet = false\n",
    expect: { accepted: true, check: { "plan.agent.mode": "public", "plan.verifier": allow("pypi.org") } },
  },
  {
    id: "verifier-allow-internet-separate",
    cite: cite(F, `${T}::test_verifier_environment_allow_internet_sets_separate_env_baseline_only`),
    toml: '[verifier]\nenvironment_mode = "separate"\n\n[verifier.environment]\nallow_internet = false\n',
    files: TESTS_DOCKERFILE,
    planMode: "separate",
    expect: { accepted: true, check: { "plan.verifierBaseline.mode": "no-network" } },
  },
  {
    id: "verifier-allow-internet-shared",
    cite: cite(F, `${T}::test_verifier_environment_allow_internet_sets_separate_env_baseline_only`),
    toml: '[verifier]\nenvironment_mode = "separate"\n\n[verifier.environment]\nallow_internet = false\n',
    files: TESTS_DOCKERFILE,
    planMode: "shared",
    expect: { accepted: true, check: { "plan.agent.mode": "no-network", "plan.verifier.mode": "no-network" } },
    differs: DIFFERS.unsetNetwork,
  },
  {
    id: "verifier-allow-internet-over-legacy-shared",
    cite: cite(F, `${T}::test_verifier_environment_allow_internet_overrides_task_environment_legacy_policy`),
    toml: '[environment]\nallow_internet = false\n\n[verifier]\nenvironment_mode = "separate"\n\n' +
      "[verifier.environment]\nallow_internet = true\n",
    files: TESTS_DOCKERFILE,
    planMode: "shared",
    expect: {
      accepted: true,
      check: { "plan.agentBaseline": NONE, "plan.agent": NONE, "plan.verifier": NONE },
    },
  },
  {
    id: "verifier-allow-internet-over-legacy-separate",
    cite: cite(F, `${T}::test_verifier_environment_allow_internet_overrides_task_environment_legacy_policy`),
    toml: '[environment]\nallow_internet = false\n\n[verifier]\nenvironment_mode = "separate"\n\n' +
      "[verifier.environment]\nallow_internet = true\n",
    files: TESTS_DOCKERFILE,
    planMode: "separate",
    expect: { accepted: true, check: { "plan.verifierBaseline": PUBLIC } },
  },
  {
    id: "matching-phase-policies",
    cite: cite(F, `${T}::test_explicit_matching_phase_policy_is_not_applied`),
    toml: '[environment]\nnetwork_mode = "no-network"\n\n[agent]\nnetwork_mode = "no-network"\n\n[verifier]\n' +
      'network_mode = "no-network"\n',
    expect: {
      accepted: true,
      check: {
        "plan.agentBaseline": NONE,
        "plan.agent": NONE,
        "plan.verifierBaseline": undefined,
        "plan.verifier": NONE,
      },
    },
  },
  {
    id: "phase-policies-roundtrip",
    cite: cite(F, `${T}::test_roundtrip_preserves_network_policy`),
    toml: '[agent]\nnetwork_mode = "public"\n\n' + verifierAllowlist('"pypi.org"'),
    expect: { accepted: true, check: { "plan.agent.mode": "public", "plan.verifier": allow("pypi.org") } },
  },
];
