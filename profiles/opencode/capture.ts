/** How opencode is recorded against the stub (`pgs harness capture opencode --local`): its npm install, config and argv. */
import { type CaptureRecipe, recipeJson } from "../../lib/harness/capture_recipe.ts";

/** opencode's capture recipe. */
export const OPENCODE_CAPTURE: CaptureRecipe = {
  harbor: {
    agent: "opencode",
    // A provider config through @ai-sdk/openai-compatible, passed as OPENCODE_CONFIG_CONTENT.
    wiring: (model, baseUrl, key) => {
      const config = {
        model: `stub/${model}`,
        provider: {
          stub: {
            npm: "@ai-sdk/openai-compatible",
            options: { baseURL: baseUrl, apiKey: key },
            models: { [model]: { tool_call: true } },
          },
        },
      };
      return { model: `stub/${model}`, ak: {}, ae: { OPENCODE_CONFIG_CONTENT: JSON.stringify(config) } };
    },
  },
  local: {
    pkg: "opencode-ai",
    version: "1.18.33",
    bin: "opencode",
    files: (baseUrl, model) => [{
      path: ".config/opencode/opencode.json",
      text: recipeJson({
        model: `stub/${model}`,
        provider: {
          stub: {
            npm: "@ai-sdk/openai-compatible",
            options: { baseURL: baseUrl, apiKey: "x" },
            models: { [model]: { tool_call: true } },
          },
        },
      }),
    }],
    env: () => ({
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_SHARE: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    }),
    args: (prompt, model) => ["run", "--auto", "-m", `stub/${model}`, prompt],
  },
};
