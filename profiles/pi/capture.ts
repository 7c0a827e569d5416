/** How pi is recorded against the stub (`pgs harness capture pi --local`): its npm install, config and argv. */
import { type CaptureRecipe, recipeJson } from "../../lib/harness/capture_recipe.ts";

/** pi's capture recipe. */
export const PI_CAPTURE: CaptureRecipe = {
  harbor: {
    agent: "pi",
    wiring: (model, baseUrl, key) => ({
      model: `openai/${model}`,
      ak: { model_api: "openai-completions", base_url: baseUrl },
      ae: { OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: key },
    }),
  },
  local: {
    pkg: "@mariozechner/pi-coding-agent",
    version: "0.73.1",
    bin: "pi",
    files: (baseUrl, model) => [
      {
        path: ".pi/agent/models.json",
        text: recipeJson({
          providers: { stub: { baseUrl, api: "openai-completions", apiKey: "x", models: [{ id: model }] } },
        }),
      },
      { path: ".pi/agent/settings.json", text: recipeJson({ enableInstallTelemetry: false, quietStartup: true }) },
    ],
    env: () => ({ PI_OFFLINE: "1", PI_TELEMETRY: "0", PI_SKIP_VERSION_CHECK: "1" }),
    args: (prompt, model) => ["-p", "--provider", "stub", "--model", model, prompt],
  },
};
