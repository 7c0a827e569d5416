/**
 * Harbor's host-variable templates in task.toml env tables, so that secrets stay on the host and out of the task:
 * a value that is entirely `${NAME}` or `${NAME:-default}` (wrongbutworks/harbor@39b85872597ea710077d8c93095059bca3ca4ed2
 * :src/harbor/utils/env.py, `fullmatch`). Anything else passes as written (`Bearer ${T}`, `$HOME`, `a$$b`).
 */

/** Harbor's pattern, matched against the whole value (Python's `.` stops at a newline, and so does this one). */
const TEMPLATE = /^\$\{([^}:]+)(?::-(.*))?\}$/;

/**
 * Resolves `value` as Harbor does: a set variable gives its value (even ""), an unset one its default; an unset one
 * without a default is `missing` (Harbor refuses to start the task). Any other value is returned as written.
 */
export function expandEnv(
  value: string,
  lookup: (name: string) => string | undefined,
): { value: string; missing?: string } {
  const m = TEMPLATE.exec(value);
  if (!m) return { value };
  const [, name, fallback] = m;
  const set = lookup(name);
  if (set !== undefined) return { value: set };
  if (fallback !== undefined) return { value: fallback };
  return { value: "", missing: name };
}
