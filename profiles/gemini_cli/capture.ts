/** How gemini-cli is recorded against the stub (`pgs harness capture gemini-cli --local`): its npm install, config and argv. */
import { type CaptureRecipe, recipeJson } from "../../lib/harness/capture_recipe.ts";

/** gemini-cli's capture recipe. */
export const GEMINI_CLI_CAPTURE: CaptureRecipe = {
  harbor: { agent: "gemini-cli" },
  local: {
    pkg: "@google/gemini-cli",
    version: "0.61.0",
    bin: "gemini",
    files: () => [{
      path: ".gemini/settings.json",
      text: recipeJson({
        security: { auth: { selectedType: "gemini-api-key" } },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        // Task images have no ripgrep: record the built-in grep tool gemini falls back to there.
        tools: { sandbox: false, useRipgrep: false },
      }),
    }],
    // The Gemini SDK appends /v1beta/models/M:method itself: give it the bare origin.
    env: (baseUrl) => ({
      GOOGLE_GEMINI_BASE_URL: baseUrl.replace(/\/v1\/?$/, ""),
      GEMINI_API_KEY: "dummy",
      GEMINI_SANDBOX: "false",
    }),
    // Without --skip-trust it exits 55 in an untrusted folder; without -m a router side request picks the model.
    args: (prompt, model) => ["--yolo", "--skip-trust", "-m", model, "-p", prompt],
  },
};
