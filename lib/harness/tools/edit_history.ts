/**
 * Multi-level undo: a per-path stack of a file's earlier texts, newest last, as OpenHands' FileHistoryManager keeps
 * them (at most `max` per path, the oldest dropped first). One instance per episode (`episodeState`), so an undo never
 * reaches into another episode's files.
 */

/** Earlier texts of each edited path, newest last. */
export class EditHistory {
  readonly #stacks = new Map<string, string[]>();

  /** `max`: entries kept per path (default: no limit; OpenHands keeps 10). */
  constructor(readonly max: number = Infinity) {}

  /** Records `text` as the path's newest entry, dropping the oldest beyond `max`. */
  push(path: string, text: string): void {
    let stack = this.#stacks.get(path);
    if (!stack) this.#stacks.set(path, stack = []);
    stack.push(text);
    while (stack.length > this.max) stack.shift();
  }

  /** Removes and returns the path's newest entry; undefined when there is none. */
  pop(path: string): string | undefined {
    return this.#stacks.get(path)?.pop();
  }

  /** How many entries the path has. */
  depth(path: string): number {
    return this.#stacks.get(path)?.length ?? 0;
  }
}
