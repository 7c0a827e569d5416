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
