/**
 * How a harness is recorded (`pgs harness capture`), as data on its profile (`HarnessProfile.capture`): the npm
 * package, binary, config files, environment and argv that run it here against the stub (`local`), and the Harbor
 * agent name and wiring that run it through Harbor (`harbor`). Each profile version carries its own.
 */

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

/** How a Harbor agent is pointed at the stub: its model flag, agent kwargs and agent environment. */
export interface StubWiring {
  /** The `-m` value. */
  model: string;
  /** `--ak` pairs. */
  ak: Record<string, string>;
  /** `--ae` pairs. */
  ae: Record<string, string>;
}

/** A profile's capture recipes. */
export interface CaptureRecipe {
  /** Running the npm-installed harness here (`capture --local`; default: not supported). */
  local?: LocalRecipe;
  /**
   * Harbor's name for the agent and, when it is not pointed at the stub by OPENAI_BASE_URL/OPENAI_API_KEY and
   * `-m openai/MODEL`, its own wiring (`key`: the stub's dummy API key).
   */
  harbor?: { agent: string; wiring?: (model: string, baseUrl: string, key: string) => StubWiring };
}

/** A recipe file's JSON text, as the recipes write them. */
export const recipeJson = (v: unknown): string => JSON.stringify(v, null, 2) + "\n";
