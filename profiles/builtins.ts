/**
 * The built-in profiles, one line each: [name, version, factory, default?]. Pure data: importing registers nothing.
 * A profile is one folder, `profiles/<name>/`, whose `mod.ts` exports its factory (and a derived version's data).
 */
import { deriveProfile } from "../lib/harness/derive.ts";
import type { ProfileEntry } from "../lib/harness/registry.ts";
import { claudeCode } from "./claude_code/mod.ts";
import { codex } from "./codex/mod.ts";
import { GEMINI_CLI_0_60_0, geminiCli } from "./gemini_cli/mod.ts";
import { goose } from "./goose/mod.ts";
import { hermes } from "./hermes/mod.ts";
import { kimiCli } from "./kimi_cli/mod.ts";
import { miniSweAgent, miniSweAgentText } from "./mini_swe_agent/mod.ts";
import { opencode } from "./opencode/mod.ts";
import { openhandsSdk } from "./openhands_sdk/mod.ts";
import { palingenesisDefaultV1, palingenesisDefaultV2 } from "./palingenesis_default/mod.ts";
import { pi, PI_0_73_0 } from "./pi/mod.ts";
import { QWEN_CODE_0_24_3, qwenCode } from "./qwen_code/mod.ts";
import { smallAgent } from "./small_agent/mod.ts";
import { sweAgent } from "./swe_agent/mod.ts";
import { terminus2 } from "./terminus_2/mod.ts";

/**
 * Every built-in profile; `registerBuiltins` adds them to a registry. Adding a profile, or a version of one, is its
 * folder (or a file in it) and one line here.
 */
export const BUILTIN_PROFILES: ProfileEntry[] = [
  ["palingenesis-default", "1", palingenesisDefaultV1],
  ["palingenesis-default", "2", palingenesisDefaultV2, true],
  ["mini-swe-agent", "2.4.6", miniSweAgent],
  ["mini-swe-agent-text", "2.4.6", miniSweAgentText],
  ["pi", "0.73.1", pi, true],
  ["pi", "0.73.0", () => deriveProfile(pi(), PI_0_73_0)],
  ["opencode", "1.18.33", opencode],
  ["qwen-code", "0.24.4", qwenCode, true],
  ["qwen-code", "0.24.3", () => deriveProfile(qwenCode(), QWEN_CODE_0_24_3)],
  ["goose", "1.55.0", goose],
  ["openhands-sdk", "1.43.1", openhandsSdk],
  ["terminus-2", "harbor-0.22.0", terminus2],
  ["hermes", "main-e6899c8", hermes],
  ["kimi-cli", "1.49.0", kimiCli],
  ["swe-agent", "main-3ea751c", sweAgent],
  ["codex", "0.171.0", codex],
  ["gemini-cli", "0.61.0", geminiCli, true],
  ["gemini-cli", "0.60.0", () => deriveProfile(geminiCli(), GEMINI_CLI_0_60_0)],
  ["claude-code", "2.1.332", claudeCode],
  ["small-agent", "1", smallAgent],
];
