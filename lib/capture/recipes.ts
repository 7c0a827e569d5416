/** Per-harness recipes for a local capture: npm package, binary, config files, environment and argv, as data. */

/** A file the recipe writes under the run's own HOME. */
export interface RecipeFile {
  /** Path relative to HOME. */
  path: string;
  /** File contents. */
  text: string;
}

/** How to run one npm-installed harness against the stub at `baseUrl` (e.g. `http://127.0.0.1:PORT/v1`). */
export interface LocalRecipe {
  /** The npm package to install. */
  pkg: string;
  /** The version recorded and supported. */
  version: string;
  /** The binary name on PATH (or under node_modules/.bin). */
  bin: string;
  /** Config files written under HOME. */
  files(baseUrl: string, model: string): RecipeFile[];
  /** Extra environment (telemetry and updates off, endpoint). */
  env(baseUrl: string, model: string): Record<string, string>;
  /** Arguments after the binary. */
  args(prompt: string, model: string): string[];
}

const json = (v: unknown) => JSON.stringify(v, null, 2) + "\n";

/** The harnesses `--local` supports, by agent name. */
export const LOCAL_RECIPES: Record<string, LocalRecipe> = {
  opencode: {
    pkg: "opencode-ai",
    version: "1.18.33",
    bin: "opencode",
    files: (baseUrl, model) => [{
      path: ".config/opencode/opencode.json",
      text: json({
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
  pi: {
    pkg: "@mariozechner/pi-coding-agent",
    version: "0.73.1",
    bin: "pi",
    files: (baseUrl, model) => [
      {
        path: ".pi/agent/models.json",
        text: json({
          providers: { stub: { baseUrl, api: "openai-completions", apiKey: "x", models: [{ id: model }] } },
        }),
      },
      { path: ".pi/agent/settings.json", text: json({ enableInstallTelemetry: false, quietStartup: true }) },
    ],
    env: () => ({ PI_OFFLINE: "1", PI_TELEMETRY: "0", PI_SKIP_VERSION_CHECK: "1" }),
    args: (prompt, model) => ["-p", "--provider", "stub", "--model", model, prompt],
  },
  "qwen-code": {
    pkg: "@qwen-code/qwen-code",
    version: "0.24.4",
    bin: "qwen",
    files: () => [{
      path: ".qwen/settings.json",
      text: json({
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
  codex: {
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
  "claude-code": {
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
  "gemini-cli": {
    pkg: "@google/gemini-cli",
    version: "0.61.0",
    bin: "gemini",
    files: () => [{
      path: ".gemini/settings.json",
      text: json({
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

/** The install hint for a missing harness binary. */
export function missingBinaryMessage(agent: string, recipe: LocalRecipe, tried: string): string {
  return `harness capture: ${agent} binary not found (${tried}); install it with ` +
    `\`npm install ${recipe.pkg}@${recipe.version}\` and pass --bin node_modules/.bin/${recipe.bin}, or put ${recipe.bin} on PATH`;
}
