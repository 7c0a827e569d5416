/**
 * Harbor conformance cases from tests/unit/models/test_artifact_validation.py: root `artifacts` entries (source,
 * destination, service), `[[verifier.collect]]` hooks, and the overlap warnings Harbor gives when collected entries
 * would land on one another. Tests of Harbor's helper functions (no task.toml involved) are left out.
 */
import { type Case, cite, DIFFERS } from "./types.ts";

const F = "models/test_artifact_validation.py";
const V = "TestArtifactConfigValidation";
const C = "TestCollisionValidation";

/** A task whose root `artifacts` list is `entries` (TOML). */
const artifacts = (...entries: string[]) => `artifacts = [${entries.join(", ")}]\n\n[environment]\n`;
/** An inline artifact table with `source` and `destination`. */
const dest = (d: string) => `{ source = "/x", destination = ${JSON.stringify(d)} }`;
/** One `[[verifier.collect]]` hook made of `lines`. */
const collect = (...lines: string[]) => `[[verifier.collect]]\n${lines.join("\n")}\n`;

const sidecar = (id: string, test: string, toml: string, param?: string): Case => ({
  id,
  cite: cite(F, test, param),
  toml,
  expect: { refused: /service/ },
  differs: DIFFERS.sidecar,
});

const overlap = (id: string, test: string, toml: string): Case => ({
  id,
  cite: cite(F, `${C}::${test}`),
  toml,
  expect: { accepted: true, warns: /overlap/ },
});

export const CASES: Case[] = [
  {
    id: "source-only",
    cite: cite(F, `${V}::test_plain_source_only_entry_is_valid`),
    toml: artifacts('"/app/output.csv"'),
    expect: { accepted: true, check: { "config.artifacts": [{ source: "/app/output.csv", exclude: [] }] } },
  },
  sidecar(
    "sidecar-absolute",
    `${V}::test_sidecar_entry_with_absolute_source_is_valid`,
    artifacts('{ source = "/data/dump.sql", service = "db" }'),
  ),
  {
    id: "sidecar-relative",
    cite: cite(F, `${V}::test_sidecar_entry_with_relative_source_is_rejected`),
    toml: artifacts('{ source = "data/dump.sql", service = "db" }'),
    expect: { refused: /artifacts/ },
  },
  {
    id: "main-relative",
    cite: cite(F, `${V}::test_main_entry_with_relative_source_is_allowed`),
    toml: artifacts('"output.csv"'),
    expect: { accepted: true, check: { "config.artifacts.0.source": "output.csv" } },
  },
  ...["/data/../../../etc/passwd", "../escape.txt", "/logs/artifacts/../../../home"].map((s, i): Case => ({
    id: `source-traversal-${i}`,
    cite: cite(F, `${V}::test_traversal_source_rejected`, s),
    toml: artifacts(JSON.stringify(s)),
    expect: { refused: /\.\./ },
  })),
  {
    id: "sidecar-source-traversal",
    cite: cite(F, `${V}::test_traversal_source_rejected_for_sidecars_too`),
    toml: artifacts('{ source = "/data/../../etc/passwd", service = "db" }'),
    expect: { refused: /\.\.|service/ },
  },
  ...["db", "api-server", "load_gen", "redis.cache", "s3"].map((s) =>
    sidecar(
      `service-${s}`,
      `${V}::test_valid_compose_service_names`,
      artifacts(`{ source = "/x", service = ${JSON.stringify(s)} }`),
      s,
    )
  ),
  ...["-db", "db server", "db/x", ""].map((s, i): Case => ({
    id: `service-invalid-${i}`,
    cite: cite(F, `${V}::test_invalid_compose_service_names_rejected`, s),
    toml: artifacts(`{ source = "/x", service = ${JSON.stringify(s)} }`),
    expect: { refused: /service/ },
  })),
  ...["out/result.txt", "result.txt", "deep/nested/dir/"].map((d, i): Case => ({
    id: `destination-${i}`,
    cite: cite(F, `${V}::test_valid_destinations`, d),
    toml: artifacts(dest(d)),
    expect: { accepted: true, check: { "config.artifacts.0.destination": d } },
  })),
  {
    id: "destination-absolute",
    cite: cite(F, `${V}::test_absolute_destination_rejected`),
    toml: artifacts(dest("/etc/cron.d/job")),
    expect: { refused: /destination/ },
  },
  {
    id: "destination-traversal",
    cite: cite(F, `${V}::test_traversal_destination_rejected`),
    toml: artifacts(dest("../../escape.txt")),
    expect: { refused: /destination/ },
  },
  {
    id: "destination-embedded-traversal",
    cite: cite(F, `${V}::test_embedded_traversal_destination_rejected`),
    toml: artifacts(dest("ok/../../escape.txt")),
    expect: { refused: /destination/ },
  },
  {
    id: "destination-backslash",
    cite: cite(F, `${V}::test_backslash_destination_rejected`),
    toml: artifacts(dest("..\\..\\escape.txt")),
    expect: { refused: /destination/ },
  },
  {
    id: "destination-services",
    cite: cite(F, `${V}::test_services_destination_now_allowed`),
    toml: artifacts(dest("services/db/fake.log")),
    expect: { accepted: true, check: { "config.artifacts.0.destination": "services/db/fake.log" } },
  },
  {
    id: "destination-manifest",
    cite: cite(F, `${V}::test_reserved_manifest_destination_rejected`),
    toml: artifacts(dest("manifest.json")),
    expect: { refused: /manifest\.json|destination/ },
  },
  {
    id: "destination-dots",
    cite: cite(F, `${V}::test_dot_lookalike_destination_allowed`),
    toml: artifacts(dest("versions/v1..2/out.txt")),
    expect: { accepted: true, check: { "config.artifacts.0.destination": "versions/v1..2/out.txt" } },
  },
  {
    id: "destination-empty",
    cite: cite(F, `${V}::test_empty_destination_normalized_to_none`),
    toml: artifacts(dest("")),
    expect: { accepted: true, check: { "config.artifacts.0.destination": undefined } },
  },
  {
    id: "collect-defaults",
    cite: cite(F, "TestVerifierCollectConfig::test_defaults"),
    toml: collect('command = "pg_dump app > /tmp/dump.sql"'),
    expect: {
      accepted: true,
      check: { "config.verifier.collect.0.service": "main", "config.verifier.collect.0.timeoutSec": 60 },
    },
  },
  sidecar(
    "collect-sidecar",
    "TestVerifierCollectConfig::test_sidecar_hook",
    collect('command = "echo hi"', 'service = "db"', "timeout_sec = 5"),
  ),
  {
    id: "collect-bad-service",
    cite: cite(F, "TestVerifierCollectConfig::test_invalid_service_rejected"),
    toml: collect('command = "echo hi"', 'service = "bad name"'),
    expect: { refused: /collect|service/ },
  },
  {
    id: "collect-no-command",
    cite: cite(F, "TestVerifierCollectConfig::test_command_required"),
    toml: collect('service = "db"'),
    expect: { refused: /collect|command/ },
  },
  sidecar(
    "multi-service-set",
    `${C}::test_valid_multi_service_set`,
    artifacts(
      '"/app/output.csv"',
      '{ source = "/data/dump.sql", service = "db" }',
      '{ source = "/var/log/api.log", service = "api" }',
    ),
  ),
  sidecar(
    "cross-service-equal",
    `${C}::test_cross_service_equal_sources_warns`,
    artifacts('{ source = "/tmp/x.log", service = "db" }', '{ source = "/tmp/x.log", service = "api" }'),
  ),
  sidecar(
    "main-sidecar-equal",
    `${C}::test_main_and_sidecar_equal_sources_warns`,
    artifacts('"/tmp/x.log"', '{ source = "/tmp/x.log", service = "db" }'),
  ),
  sidecar(
    "cross-service-nested",
    `${C}::test_cross_service_nested_sources_warns`,
    artifacts('"/var/log"', '{ source = "/var/log/api.log", service = "api" }'),
  ),
  sidecar(
    "sidecar-under-convention",
    `${C}::test_sidecar_entry_under_convention_dir_warns`,
    artifacts('{ source = "/logs/artifacts/dump.sql", service = "db" }'),
  ),
  sidecar(
    "sidecar-at-convention",
    `${C}::test_sidecar_entry_equal_to_convention_dir_warns`,
    artifacts('{ source = "/logs/artifacts", service = "db" }'),
  ),
  overlap(
    "same-service-overlap",
    "test_same_service_overlap_warns_but_passes",
    artifacts('"/app"', '"/app/output.csv"'),
  ),
  overlap(
    "convention-file",
    "test_explicit_convention_file_warns_but_passes",
    artifacts('"/logs/artifacts/result.json"'),
  ),
  overlap(
    "duplicate-destinations",
    "test_duplicate_destinations_warns",
    artifacts(
      '{ source = "/a/x.log", destination = "out/x.log" }',
      '{ source = "/b/y.log", destination = "out/x.log" }',
    ),
  ),
  overlap(
    "nested-destinations",
    "test_nested_destinations_warns",
    artifacts('{ source = "/a", destination = "out" }', '{ source = "/b/y.log", destination = "out/y.log" }'),
  ),
  sidecar(
    "toml-sidecar-and-collect",
    "TestTaskConfigArtifacts::test_task_toml_with_sidecar_artifacts_and_collect_hooks",
    'artifacts = [\n    "/app/output.csv",\n    { source = "/data/dump.sql", service = "db" },\n]\n\n[verifier]\n' +
      'environment_mode = "separate"\n\n[[verifier.collect]]\nservice = "db"\ncommand = "pg_dump app > /data/dump.sql"\n' +
      "timeout_sec = 30.0\n\n[environment]\n",
  ),
  sidecar(
    "toml-cross-service",
    "TestTaskConfigArtifacts::test_task_toml_with_cross_service_collision_warns",
    artifacts('"/tmp/x.log"', '{ source = "/tmp/x.log", service = "db" }'),
  ),
  {
    ...sidecar(
      "toml-step-artifacts",
      "TestTaskConfigArtifacts::test_task_toml_step_artifacts_validated_against_task_artifacts",
      'artifacts = ["/tmp/x.log"]\n\n[environment]\n\n[[steps]]\nname = "step-1"\n' +
        'artifacts = [{ source = "/tmp/x.log", service = "db" }]\n',
    ),
    files: { "steps/step-1/instruction.md": "One.\n" },
  },
  {
    id: "toml-destination-traversal",
    cite: cite(F, "TestTaskConfigArtifacts::test_task_toml_traversal_destination_rejected"),
    toml: 'artifacts = [{ source = "/app/x", destination = "../../../etc/escape" }]\n\n[environment]\n',
    expect: { refused: /destination|\.\./ },
  },
];
