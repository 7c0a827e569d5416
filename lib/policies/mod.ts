/**
 * Policies: what answers each turn of an episode. An OpenAI-compatible endpoint (`endpoint_policy.ts`), token-exact
 * rollouts (`token_policy.ts`), the oracle, the nop and scripts of turns (`policy.ts`), with the checks of an endpoint
 * and of a script before a run.
 * @module
 */
export * from "./endpoint_check.ts";
export * from "./endpoint_policy.ts";
export * from "./policy.ts";
export * from "./script_check.ts";
export * from "./token_policy.ts";
