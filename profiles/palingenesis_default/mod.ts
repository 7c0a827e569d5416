/**
 * palingenesis-default, pgs's own dialect, in two versions: `v1.ts` is HarborEnv's design table (bash, read_file,
 * write_file, str_replace, submit); `v2.ts`, the default, is modelled on nanocode, with its file tools run in the
 * container as the Python program `nanocode.py` (embedded as `nanocode_py.ts`). `prompt.ts` holds the default texts.
 */
export { DEFAULT_SYSTEM_PROMPT, defaultSystemPrompt } from "./prompt.ts";
export { palingenesisDefaultV1 } from "./v1.ts";
export { NO_PYTHON3, palingenesisDefaultV2 } from "./v2.ts";
