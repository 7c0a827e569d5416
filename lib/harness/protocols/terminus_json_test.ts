/** terminus-2's tolerant JSON parser and feedback strings, checked against Harbor's own outputs (CPython 3.11). */
import assert from "node:assert/strict";
import {
  limitOutputLength,
  parseTerminusJson,
  terminusConfirmation,
  terminusErrorPrompt,
  terminusFeedback,
  terminusObservation,
} from "./terminus_json.ts";

const obj = (rest: string) => `{"analysis": "a", "plan": "p", "commands": ${rest}}`;
const LS = '[{"keystrokes": "ls\\n", "duration": 0.1}]';

function check(
  text: string,
  want: { commands?: [string, number][]; complete?: boolean; error?: string; warning?: string },
) {
  const r = parseTerminusJson(text);
  assert.deepEqual(r.commands.map((c) => [c.keystrokes, c.duration]), want.commands ?? []);
  assert.equal(r.taskComplete, want.complete ?? false);
  assert.equal(r.error, want.error ?? "");
  assert.equal(r.warning, want.warning ?? "");
}

Deno.test("terminus_json: a valid turn", () => {
  check(`{"analysis": "a", "plan": "p", "commands": ${LS}, "task_complete": false}`, { commands: [["ls\n", 0.1]] });
});

Deno.test("terminus_json: extra text before and after is a warning; the commands still run", () => {
  check(`Sure, here it is:\n${obj(LS)}\nHope this helps`, {
    commands: [["ls\n", 0.1]],
    warning: "- Extra text detected before JSON object\n- Extra text detected after JSON object",
  });
});

Deno.test("terminus_json: a missing closing brace is auto-corrected", () => {
  check(`{"analysis": "a", "plan": "p", "commands": ${LS}`, {
    commands: [["ls\n", 0.1]],
    warning: "- AUTO-CORRECTED: Fixed incomplete JSON by adding missing closing brace - please fix this in future " +
      "responses",
  });
  // A missing `]` too: the appended brace does not help, and the extracted inner object lacks the fields.
  check(`{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "ls\\n", "duration": 0.1}`, {
    error: "No valid JSON found in response",
    warning: "- No valid JSON object found",
  });
});

Deno.test("terminus_json: an object inside prose is extracted", () => {
  check(`I think {the answer} is ${obj("[]")}`, {
    warning: "- AUTO-CORRECTED: Extracted JSON from mixed content - please fix this in future responses",
  });
});

Deno.test("terminus_json: garbage and non-objects are errors", () => {
  check("no json here at all", {
    error: "No valid JSON found in response",
    warning: "- No valid JSON object found",
  });
  check("{not: json}", {
    error: "Invalid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1) | Content: " +
      "'{not: json}'",
  });
  check("[1, 2, 3]", { error: "No valid JSON found in response", warning: "- No valid JSON object found" });
  const long = `{"analysis": "${"x".repeat(200)}", "plan": "p", "commands": [],}`;
  check(long, {
    error: "Invalid JSON: Expecting property name enclosed in double quotes: line 1 column 246 (char 245) | " +
      `Content preview: '{"analysis": "${"x".repeat(86)}'...`,
  });
});

Deno.test("terminus_json: duration missing, non-numeric, boolean, over 60", () => {
  check(obj('[{"keystrokes": "ls\\n"}]'), {
    commands: [["ls\n", 1]],
    warning: "- Command 1: Missing duration field, using default 1.0",
  });
  check(obj('[{"keystrokes": "ls\\n", "duration": "fast"}]'), {
    commands: [["ls\n", 1]],
    warning: "- Command 1: Invalid duration value, using default 1.0",
  });
  check(obj('[{"keystrokes": "ls\\n", "duration": true}]'), { commands: [["ls\n", 1]] });
  // The parser keeps 100; the loop caps the wait at 60.
  check(obj('[{"keystrokes": "sleep 100\\n", "duration": 100}]'), { commands: [["sleep 100\n", 100]] });
});

Deno.test("terminus_json: task_complete as a string, a number, null", () => {
  check(obj('[], "task_complete": "yes"'), { complete: true });
  check(obj('[], "task_complete": "no"'), {});
  check(obj('[], "task_complete": 1'), {
    complete: true,
    warning: "- Field 'task_complete' should be a boolean or string",
  });
  check(obj('[], "task_complete": null'), {});
});

Deno.test("terminus_json: missing fields, commands not an array, bad commands", () => {
  check('{"analysis": "a", "commands": []}', { error: "Missing required fields: plan" });
  check('{"commands": []}', { error: "Missing required fields: analysis, plan" });
  check(obj('"ls"'), { error: "Field 'commands' must be an array" });
  check(obj('["ls"]'), { error: "Command 1 must be an object" });
  check(obj('[{"cmd": "ls"}]'), { error: "Command 1 missing required 'keystrokes' field" });
  check(obj('[{"keystrokes": 5}]'), { error: "Command 1 'keystrokes' must be a string" });
  // When the task is complete, a command error is only a warning and nothing runs.
  check(obj('[{"keystrokes": 5}], "task_complete": true'), {
    complete: true,
    warning: "- Command 1 'keystrokes' must be a string",
  });
});

Deno.test("terminus_json: type, order, unknown-field and newline warnings", () => {
  check('{"analysis": 1, "plan": [], "commands": [], "task_complete": 3.5}', {
    complete: true,
    warning: "- Field 'analysis' should be a string\n- Field 'plan' should be a string\n" +
      "- Field 'task_complete' should be a boolean or string",
  });
  check('{"plan": "p", "analysis": "a", "commands": []}', {
    warning: "- Fields appear in wrong order. Found: plan → analysis → commands, expected: analysis → plan → commands",
  });
  check(
    obj('[{"keystrokes": "ls", "duration": 0.1, "note": 1}, {"keystrokes": "", "duration": 1}, {"keystrokes": "x"}]'),
    {
      commands: [["ls", 0.1], ["", 1], ["x", 1]],
      warning: "- Command 1: Unknown fields: note\n- Command 1 should end with newline when followed by another " +
        "command. Otherwise the two commands will be concatenated together on the same line.\n" +
        "- Command 3: Missing duration field, using default 1.0",
    },
  );
});

Deno.test("terminus_json: braces and quotes inside strings; a fenced block", () => {
  check('{"analysis": "a\\"{", "plan": "p}", "commands": []}', {});
  check(
    '```json\n{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "C-c", "duration": 0.1}], ' +
      '"task_complete": true}\n```',
    {
      commands: [["C-c", 0.1]],
      complete: true,
      warning: "- Extra text detected before JSON object\n- Extra text detected after JSON object",
    },
  );
});

Deno.test("terminus_json: the feedback loop's strings", () => {
  const bad = parseTerminusJson(
    'I need to create hello.txt.\n{\n  "commands": [\n    {\n      "keystrokes": "printf \'Hello\' > hello.txt\\n",\n' +
      '      "duration": 0.1\n    }\n  ]\n}\nThis should work!',
  );
  // As in Harbor's golden trajectory hello-world-invalid-json.
  assert.equal(
    terminusErrorPrompt(terminusFeedback(bad)),
    "Previous response had parsing errors:\nERROR: Missing required fields: analysis, plan\nWARNINGS: - Extra text " +
      "detected before JSON object\n- Extra text detected after JSON object\n\nPlease fix these issues and provide a " +
      "proper JSON response.",
  );
  const warned = parseTerminusJson(`x ${obj(LS)}`);
  assert.equal(
    terminusObservation(terminusFeedback(warned), "New Terminal Output:\nok"),
    "Previous response had warnings:\nWARNINGS: - Extra text detected before JSON object\n\nNew Terminal Output:\nok",
  );
  assert.equal(terminusObservation(terminusFeedback(parseTerminusJson(obj(LS))), "out"), "out");
  assert.equal(
    terminusConfirmation("New Terminal Output:\n"),
    "Current terminal state:\nNew Terminal Output:\n\n\nAre you sure you want to mark the task as complete? This will " +
      "trigger your solution to be graded and you won't be able to make any further corrections. If so, include " +
      '"task_complete": true in your JSON response again.',
  );
});

Deno.test("terminus_json: output is middle-truncated to 10,000 UTF-8 bytes, characters cut at the edges dropped", () => {
  assert.equal(limitOutputLength("x".repeat(10000)), "x".repeat(10000));
  assert.equal(
    limitOutputLength("x".repeat(10001)),
    `${"x".repeat(5000)}\n[... output limited to 10000 bytes; 1 interior bytes omitted ...]\n${"x".repeat(5000)}`,
  );
  assert.equal(
    limitOutputLength("ab" + "€".repeat(5000)),
    `ab${"€".repeat(1666)}\n[... output limited to 10000 bytes; 5004 interior bytes omitted ...]\n${"€".repeat(1666)}`,
  );
  // Harbor limits an executed turn's output twice: the second pass replaces the first marker.
  const twice = limitOutputLength(limitOutputLength("line\n".repeat(3000)));
  assert.match(twice, /\n\[\.\.\. output limited to 10000 bytes; 70 interior bytes omitted \.\.\.\]\n/);
});
