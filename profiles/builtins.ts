/** The built-in profiles, one line each: [name, version, factory, default?]. Pure data: importing registers nothing. */
import { deriveProfile } from "../lib/harness/derive.ts";
import type { ProfileEntry } from "../lib/harness/registry.ts";
import { GEMINI_CLI_0_60_0 } from "./gemini_cli/v0_60_0.ts";
import { PI_0_73_0 } from "./pi/v0_73_0.ts";
import { QWEN_CODE_0_24_3 } from "./qwen_code/v0_24_3.ts";
import { claudeCode } from "./claude_code.ts";
import { codex } from "./codex.ts";
import { geminiCli } from "./gemini_cli.ts";
import { goose } from "./goose.ts";
import { hermes } from "./hermes.ts";
import { kimiCli } from "./kimi_cli.ts";
import { miniSweAgent, miniSweAgentText } from "./mini_swe_agent.ts";
import { opencode } from "./opencode.ts";
import { openhandsSdk } from "./openhands_sdk.ts";
import { palingenesisDefaultV1 } from "./palingenesis_default_v1.ts";
import { palingenesisDefaultV2 } from "./palingenesis_default_v2.ts";
import { pi } from "./pi.ts";
import { qwenCode } from "./qwen_code.ts";
import { smallAgent } from "./small_agent.ts";
import { sweAgent } from "./swe_agent.ts";
import { terminus2 } from "./terminus_2.ts";

/** Every built-in profile; `registerBuiltins` adds them to a registry. Adding a profile is one line here. */
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
