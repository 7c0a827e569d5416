/**
 * Python's `json.dumps(value, ensure_ascii=False)` for the token layer, through the chat-template engine's own
 * `tojson` filter (`@huggingface/jinja`, which follows Python's separators), so a formatted or re-serialised tool
 * call reads exactly as the model's template writes one.
 */
import { Template } from "npm:@huggingface/jinja@0.5.11";

const dumps = new Template("{{ value | tojson }}");

/** `value` as Python's `json.dumps(value, ensure_ascii=False)` writes it (JSON numbers stay JS numbers: 1.0 is "1"). */
export function pyJson(value: unknown): string {
  return dumps.render({ value });
}
