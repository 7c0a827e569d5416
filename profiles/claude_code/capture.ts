/** How claude-code is recorded against the stub (`pgs harness capture claude-code --local`): its npm install, config and argv. */
import type { CaptureRecipe } from "../../lib/harness/capture_recipe.ts";

/** claude-code's capture recipe. */
export const CLAUDE_CODE_CAPTURE: CaptureRecipe = {
  harbor: { agent: "claude-code" },
  local: {
    pkg: "@anthropic-ai/claude-code",
    version: "2.1.332",
    bin: "claude",
    files: () => [],
    // Anthropic's SDK appends /v1/messages itself: give it the bare origin.
    env: (baseUrl) => ({
      ANTHROPIC_BASE_URL: baseUrl.replace(/\/v1\/?$/, ""),
      ANTHROPIC_API_KEY: "x",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      // Lets --dangerously-skip-permissions run as root (containers, this machine).
      IS_SANDBOX: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    }),
    args: (prompt, model) => ["-p", "--dangerously-skip-permissions", "--model", model, prompt],
  },
};
