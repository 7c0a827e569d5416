/**
 * The verifier: the task's own tests/test.sh run where its verifier mode says (isolated, shared, separate, snapshot)
 * and its reward read as Harbor reads it, plus the gates and scores of multi-step tasks.
 * @module
 */
export { verify, type VerifyOptions, type VerifyResult } from "./verifier.ts";
export { EpisodeVerifier, startBoxes, type VerifierOptions } from "./episode_verifier.ts";
export type { VerifierBox } from "./verifier_container.ts";
export type { InputGuard, Neutralised } from "./input_guard.ts";
export { parseReward, type Reward } from "./reward.ts";
export { combineSteps, passesGate, startStep, type StepOutcome, type StepsScore } from "./steps.ts";
