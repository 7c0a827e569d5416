/** What the task.toml tests share: warnings captured, and a TaskError's message checked. */
import assert from "node:assert/strict";
import { TaskError } from "../lib/base/errors.ts";
import { setWarningSink } from "../lib/base/warn.ts";

/** An environment with no variables. */
export const noEnv = (_: string): string | undefined => undefined;

/** Runs `fn` with warnings captured, so that tests neither print nor depend on stderr. */
export function captured<T>(fn: () => T): { result: T; warned: string[] } {
  const warned: string[] = [];
  setWarningSink((m) => warned.push(m));
  try {
    return { result: fn(), warned };
  } finally {
    setWarningSink(null);
  }
}

/** Asserts that `fn` throws a TaskError whose message is (or matches) `message`. */
export function throwsTask(fn: () => unknown, message: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof TaskError, `expected TaskError, got ${e}`);
    if (typeof message === "string") assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}
