/** What the report and the viewer share: HTML escaping, data embedded in a page, and the number formats. */

/** `s` escaped for HTML text and attribute values. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]!));
}

/**
 * `value` as JSON safe inside a `<script type="application/json">` element: `<` is written `\u003c`, so no text in
 * an episode (a `</script>` in a tool result, say) can end the element. U+2028/2029 are escaped for old parsers.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/** A rate (0..1) as a percentage with one decimal, or an en dash when there is none. */
export function pct(x: number | null | undefined): string {
  return x === null || x === undefined ? "–" : `${(x * 100).toFixed(1)}%`;
}

/** The hash of a viewer link that shows the episodes matching `filters` (profile, task, reward, status, infra, ep). */
export function viewerHash(filters: Record<string, string>): string {
  return "#" + Object.entries(filters).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&");
}
