/**
 * Harbor conformance cases from tests/unit/models/test_task_config_os.py: `[environment] os`, case-insensitive
 * "linux" or "windows" (anything else refused), and the legacy root `version` kept as the schema version.
 */
import { type Case, cite, DIFFERS } from "./types.ts";

const F = "models/test_task_config_os.py";
/** A task whose `[environment] os` is `value`. */
const os = (value: string) => `[environment]\nos = ${JSON.stringify(value)}\n`;

export const CASES: Case[] = [
  {
    id: "default-linux",
    cite: cite(F, "TestEnvironmentOSField::test_default_is_linux"),
    toml: "",
    expect: { accepted: true },
  },
  {
    id: "linux",
    cite: cite(F, "TestEnvironmentOSField::test_explicit_linux"),
    toml: os("linux"),
    expect: { accepted: true },
  },
  {
    id: "windows",
    cite: cite(F, "TestEnvironmentOSField::test_explicit_windows"),
    toml: os("windows"),
    expect: { refused: /os/ },
    differs: DIFFERS.windows,
  },
  ...["LINUX", "Linux", "LiNuX"].map((v): Case => ({
    id: `linux-${v}`,
    cite: cite(F, "TestEnvironmentOSField::test_case_insensitive_linux", v),
    toml: os(v),
    expect: { accepted: true },
  })),
  ...["WINDOWS", "Windows", "wInDoWs"].map((v): Case => ({
    id: `windows-${v}`,
    cite: cite(F, "TestEnvironmentOSField::test_case_insensitive_windows", v),
    toml: os(v),
    expect: { refused: /os/ },
    differs: DIFFERS.windows,
  })),
  ...["macos", "darwin", "freebsd", ""].map((v): Case => ({
    id: `invalid-${v || "empty"}`,
    cite: cite(F, "TestEnvironmentOSField::test_invalid_os_rejected", v),
    toml: os(v),
    expect: { refused: /os/ },
  })),
  {
    id: "legacy-version",
    cite: cite(F, "TestTaskConfigOS::test_legacy_schema_version_still_accepted"),
    toml: 'version = "1.0"\n\n[environment]\ncpus = 1\nmemory_mb = 1024\n',
    expect: { accepted: true, check: { "config.schemaVersion": "1.0", "config.environment.memoryMb": 1024 } },
  },
  {
    id: "windows-task",
    cite: cite(F, "TestTaskConfigOS::test_windows_task_loads"),
    toml: 'schema_version = "1.3"\n\n[environment]\nos = "windows"\ncpus = 1\n',
    expect: { refused: /windows/ },
    differs: DIFFERS.windows,
  },
];
