/**
 * Harbor conformance cases from tests/unit/models/test_task_config_deprecated_fields.py: `memory_mb`/`storage_mb`
 * and the legacy `memory = "1G"` / `storage = "512M"` sizes, which migrate to MB and conflict when they disagree.
 */
import { type Case, cite, DIFFERS } from "./types.ts";

const F = "models/test_task_config_deprecated_fields.py";

export const CASES: Case[] = [
  {
    id: "modern-resources",
    cite: cite(F, "TestDeprecatedResourceFields::test_supported_resource_fields_do_not_warn"),
    toml: '[environment]\ndocker_image = "alpine"\nmemory_mb = 512\nstorage_mb = 1024\n',
    expect: {
      accepted: true,
      check: { "config.environment.memoryMb": 512, "config.environment.storageMb": 1024 },
    },
  },
  {
    id: "resource-defaults",
    cite: cite(F, "TestDeprecatedResourceFields::test_default_construction_uses_provider_defaults_without_warning"),
    toml: '[environment]\ndocker_image = "alpine"\n',
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
    id: "legacy-sizes-migrate",
    cite: cite(F, "TestDeprecatedResourceFields::test_legacy_resource_fields_warn_and_migrate"),
    toml: '[environment]\nmemory = "1G"\nstorage = "512M"\n',
    expect: {
      accepted: true,
      check: { "config.environment.memoryMb": 1024, "config.environment.storageMb": 512 },
    },
  },
  {
    id: "legacy-sizes-from-toml",
    cite: cite(F, "TestDeprecatedResourceFields::test_legacy_resource_fields_migrate_from_task_toml"),
    toml: '[environment]\nmemory = "1G"\nstorage = "512M"\n',
    expect: {
      accepted: true,
      check: { "config.environment.memoryMb": 1024, "config.environment.storageMb": 512 },
    },
  },
  {
    id: "legacy-and-modern-match",
    cite: cite(F, "TestDeprecatedResourceFields::test_matching_legacy_and_modern_resource_fields"),
    toml: '[environment]\nmemory = "1G"\nmemory_mb = 1024\nstorage = "512M"\nstorage_mb = 512\n',
    expect: {
      accepted: true,
      check: { "config.environment.memoryMb": 1024, "config.environment.storageMb": 512 },
    },
  },
  {
    id: "memory-conflict",
    cite: cite(F, "TestDeprecatedResourceFields::test_conflicting_memory_fields_raise"),
    toml: '[environment]\nmemory = "1G"\nmemory_mb = 2048\n',
    expect: { refused: /memory/ },
  },
  {
    id: "storage-conflict",
    cite: cite(F, "TestDeprecatedResourceFields::test_conflicting_storage_fields_raise"),
    toml: '[environment]\nstorage = "512M"\nstorage_mb = 1024\n',
    expect: { refused: /storage/ },
  },
];
