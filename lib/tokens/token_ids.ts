/**
 * A sampled completion's ids checked against the tokenizer before anything reads them: an id the vocabulary does
 * not hold (a sampler bug, a wrong model behind the endpoint, a trainer's off-by-one) would otherwise decode to
 * nothing and end the episode as if the model had stopped.
 */
import type { TokenModel } from "./model.ts";

/** A completion holding something that is not one of the tokenizer's ids; names the index and the value. */
export class TokenIdError extends Error {
  /** Always "TokenIdError". */
  override name = "TokenIdError";
  /** `field[index]` is `value`, which the tokenizer does not know. */
  constructor(readonly field: string, readonly index: number, readonly value: unknown, vocabSize: number) {
    super(
      `${field}[${index}] = ${JSON.stringify(value) ?? String(value)} is not a token id of the tokenizer ` +
        `(its vocabulary has ${vocabSize} tokens)`,
    );
  }
}

/**
 * Throws TokenIdError at the first element of `ids` that is not in `model`'s vocabulary; `field` names the list in
 * the message (default "completion_token_ids").
 */
export function checkTokenIds(model: TokenModel, ids: readonly unknown[], field = "completion_token_ids"): void {
  for (let i = 0; i < ids.length; i++) {
    if (!model.hasId(ids[i])) throw new TokenIdError(field, i, ids[i], model.vocabSize);
  }
}
