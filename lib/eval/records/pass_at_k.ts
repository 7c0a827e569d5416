/** The unbiased pass@k estimator (Chen et al. 2021, "Evaluating Large Language Models Trained on Code", eq. 1). */

/**
 * The chance that at least one of `k` samples drawn without replacement from `n` samples, `c` of them passing,
 * passes: 1 − C(n−c, k) / C(n, k), computed as a product so large `n` does not overflow. Needs 1 ≤ k ≤ n.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { passAtK } from "./pass_at_k.ts";
 * assert.equal(passAtK(4, 1, 1), 0.25);
 * assert.equal(passAtK(4, 1, 4), 1);
 * ```
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!(k >= 1 && k <= n)) throw new RangeError(`pass@k needs 1 <= k <= n (n=${n}, k=${k})`);
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/**
 * The one definition of pass@k that summary.json, the report's headline, its per-profile figures and its curves use,
 * in words for the pages that show it.
 */
export const PASS_AT_K_DEFINITION: string =
  "pass@k is computed per group: the samples of one row, that is one task under one profile (a rows file that " +
  "lists a task once per profile, or --cross, gives one group per task and profile). Per group, the unbiased " +
  "estimator 1 − C(n−c, k) / C(n, k) over its n scored samples, c of them passing (Chen et al. 2021); then the " +
  "mean over the groups with at least k scored samples. pass@1 is the same with k = 1 (the mean over groups of " +
  "c / n). Infrastructure errors are not samples.";

/** One group's scored samples: `n` scored, `c` of them passing. */
export interface SampleGroup {
  /** Scored samples. */
  n: number;
  /** Passing samples among them. */
  c: number;
}

/** A mean pass@k and how many groups it is over. */
export interface PassAtKMean {
  /** The mean of the groups' unbiased pass@k, rounded to 4 decimals. */
  value: number;
  /** Groups with at least k scored samples (the ones averaged). */
  groups: number;
}

/** pass@k of `groups` by `PASS_AT_K_DEFINITION`, or null when no group has k scored samples. */
export function meanPassAtK(groups: SampleGroup[], k: number): PassAtKMean | null {
  const g = groups.filter((x) => x.n >= k);
  if (!g.length) return null;
  const sum = g.reduce((a, x) => a + passAtK(x.n, x.c, k), 0);
  return { value: Math.round((sum / g.length) * 1e4) / 1e4, groups: g.length };
}
