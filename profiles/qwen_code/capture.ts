/** How qwen-code is recorded against the stub (`pgs harness capture qwen-code --local`): its npm install, config and argv. */
import { type CaptureRecipe, recipeJson } from "../../lib/harness/capture_recipe.ts";

/** qwen-code's capture recipe. */
export const QWEN_CODE_CAPTURE: CaptureRecipe = {
  harbor: { agent: "qwen-code" },
  local: {
    pkg: "@qwen-code/qwen-code",
    version: "0.24.4",
    bin: "qwen",
    files: () => [{
      path: ".qwen/settings.json",
      text: recipeJson({
        security: { auth: { selectedType: "openai" } },
        general: { enableAutoUpdate: false, disableAutoUpdate: true, disableUpdateNag: true },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        // Task images have no ripgrep, so the profile emulates qwen's built-in grep: record that variant.
        tools: { useRipgrep: false },
      }),
    }],
    env: (baseUrl, model) => ({ OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: "x", OPENAI_MODEL: model }),
    args: (prompt) => ["--yolo", "-p", prompt],
  },
};
