/** serde_json::from_str into a struct: the texts and positions codex 0.171.0 answered (recorded through the stub). */
import assert from "node:assert/strict";
import { type SerdeField, serdeFromStr } from "./serde_struct.ts";

const EXEC: SerdeField[] = [
  { name: "cmd", type: "String" },
  { name: "yield_time_ms", type: "u64", optional: true },
  { name: "workdir", type: "String", optional: true, nullable: true },
];
const STDIN: SerdeField[] = [{ name: "session_id", type: "i32" }];
const err = (raw: string, f = EXEC) => {
  const r = serdeFromStr(raw, f, "ExecCommandArgs");
  return "error" in r ? r.error : "ok";
};

Deno.test("serde_struct: codex's recorded argument errors", () => {
  assert.equal(err("not json"), "expected ident at line 1 column 2");
  assert.equal(err('{"command":"ls"}'), "missing field `cmd` at line 1 column 16");
  assert.equal(err('{"cmd":5}'), "invalid type: integer `5`, expected a string at line 1 column 8");
  assert.equal(err('{"session_id":"abc"}', STDIN), 'invalid type: string "abc", expected i32 at line 1 column 19');
  assert.equal(
    err('{"cmd":"echo hi","yield_time_ms":"fast"}'),
    'invalid type: string "fast", expected u64 at line 1 column 39',
  );
});

Deno.test("serde_struct: values with colons and nesting, null in an Option, duplicates, out of range", () => {
  assert.equal(err('{"x": {"a": [1, "}"]}, "cmd": "a:b", "workdir": null}'), "ok");
  assert.equal(err('{"cmd": "a", "cmd": "b"}'), "duplicate field `cmd` at line 1 column 23");
  assert.equal(
    err('{"cmd": "a", "yield_time_ms": -1}'),
    "invalid value: integer `-1`, expected u64 at line 1 column 32",
  );
});
