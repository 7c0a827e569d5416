/** How OpenHands is recorded through Harbor (`pgs harness capture openhands`): its LLM_* environment. */
import type { CaptureRecipe } from "../../lib/harness/capture_recipe.ts";

/** OpenHands' capture recipe (Harbor only: it is not an npm package). */
export const OPENHANDS_SDK_CAPTURE: CaptureRecipe = {
  harbor: {
    agent: "openhands",
    wiring: (model, baseUrl, key) => ({
      model: `openai/${model}`,
      ak: {},
      ae: { LLM_MODEL: `openai/${model}`, LLM_BASE_URL: baseUrl, LLM_API_KEY: key },
    }),
  },
};
