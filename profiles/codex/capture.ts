/** How codex is recorded against the stub (`pgs harness capture codex --local`): its npm install, config and argv. */
import type { CaptureRecipe } from "../../lib/harness/capture_recipe.ts";

/** codex's capture recipe. */
export const CODEX_CAPTURE: CaptureRecipe = {
  harbor: { agent: "codex" },
  local: {
    pkg: "@openai/codex",
    version: "0.171.0",
    bin: "codex",
    files: (baseUrl, model) => [{
      path: ".codex/config.toml",
      text: [
        `model = ${JSON.stringify(model)}`,
        `model_provider = "stub"`,
        `approval_policy = "never"`,
        `sandbox_mode = "danger-full-access"`,
        "check_for_update_on_startup = false",
        "",
        "[model_providers.stub]",
        `name = "stub"`,
        `base_url = ${JSON.stringify(baseUrl)}`,
        `wire_api = "responses"`,
        `env_key = "STUB_API_KEY"`,
        // One request per scripted turn: a retry would consume the next turn.
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
        "[analytics]",
        "enabled = false",
        "",
        // Otherwise it looks up remote hosts in the background.
        "[features]",
        "plugins = false",
        "",
      ].join("\n"),
    }],
    env: () => ({ STUB_API_KEY: "x" }),
    args: (
      prompt,
      model,
    ) => ["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "-m", model, prompt],
  },
};
