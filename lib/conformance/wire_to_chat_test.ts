/** Each wire API's recorded body in chat form: roles, calls, results, tools. */
import assert from "node:assert/strict";
import { toChat, wireApiOf } from "./wire_to_chat.ts";

Deno.test("wire_to_chat: a Responses body (codex): instructions, developer text, calls and their outputs", () => {
  const r = toChat({
    model: "m",
    instructions: "be brief",
    input: [
      { type: "message", role: "developer", content: [{ type: "input_text", text: "perms" }] },
      {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: "ctx" }, { type: "input_text", text: "task" }],
      },
      { type: "reasoning", summary: [{ type: "summary_text", text: "think" }] },
      { type: "function_call", call_id: "call_1", name: "exec_command", arguments: '{"cmd":"ls"}' },
      { type: "function_call", call_id: "call_2", name: "exec_command", arguments: '{"cmd":"pwd"}' },
      { type: "function_call_output", call_id: "call_1", output: "a\n" },
      { type: "function_call_output", call_id: "call_2", output: "/w\n" },
    ],
    tools: [{
      type: "function",
      name: "exec_command",
      description: "d",
      strict: false,
      parameters: { type: "object" },
    }],
  })!;
  assert.equal(r.api, "responses");
  assert.deepEqual(r.messages.map((m) => m.role), ["system", "system", "user", "assistant", "tool", "tool"]);
  assert.deepEqual(r.messages[2].content, [{ type: "text", text: "ctx" }, { type: "text", text: "task" }]);
  assert.equal(r.messages[3].reasoning_content, "think");
  assert.deepEqual(r.messages[3].tool_calls!.map((c) => c.id), ["call_1", "call_2"]);
  assert.equal(r.messages[5].content, "/w\n");
  assert.deepEqual(r.tools, [{
    type: "function",
    function: { name: "exec_command", description: "d", parameters: { type: "object" }, strict: false },
  }]);
});

Deno.test("wire_to_chat: a Messages body (claude-code): system blocks, tool_use, tool_result before the user's text", () => {
  const r = toChat({
    system: [{ type: "text", text: "a" }, { type: "text", text: "b" }],
    messages: [
      { role: "user", content: [{ type: "text", text: "task" }] },
      {
        role: "assistant",
        content: [{ type: "text", text: "ok" }, {
          type: "tool_use",
          id: "toolu_1",
          name: "Bash",
          input: { command: "ls" },
        }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "x" }, {
          type: "text",
          text: "<system-reminder>r</system-reminder>",
        }],
      },
    ],
    tools: [{ name: "Bash", description: "run", input_schema: { type: "object" } }],
  })!;
  assert.equal(r.api, "messages");
  assert.deepEqual(r.messages.map((m) => m.role), ["system", "user", "assistant", "tool", "user"]);
  assert.equal(r.messages[0].content, "a\n\nb");
  assert.equal(r.messages[2].tool_calls![0].function.arguments, '{"command":"ls"}');
  assert.equal(r.messages[3].tool_call_id, "toolu_1");
  assert.equal(r.tools![0].function.name, "Bash");
});

Deno.test("wire_to_chat: a Gemini body (gemini-cli): positional ids pair calls with responses", () => {
  const r = toChat({
    systemInstruction: { parts: [{ text: "sys" }] },
    contents: [
      { role: "user", parts: [{ text: "task" }] },
      { role: "model", parts: [{ functionCall: { name: "read_file", args: { path: "a" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "read_file", response: { output: "x" } } }] },
    ],
    tools: [{
      functionDeclarations: [{ name: "read_file", description: "r", parametersJsonSchema: { type: "object" } }],
    }],
  })!;
  assert.equal(r.api, "gemini");
  assert.deepEqual(r.messages.map((m) => m.role), ["system", "user", "assistant", "tool"]);
  assert.equal(r.messages[2].tool_calls![0].id, "gemini_0");
  assert.equal(r.messages[3].tool_call_id, "gemini_0");
  assert.equal(r.messages[3].content, '{"output":"x"}');
  assert.equal(r.tools![0].function.parameters.type, "object");
});

Deno.test("wire_to_chat: a chat body passes as it is; an unknown body is no request", () => {
  const body = { messages: [{ role: "user", content: "x" }], tools: [] };
  assert.equal(wireApiOf(body), "chat");
  assert.equal(toChat(body)!.messages, body.messages);
  assert.equal(toChat({ prompt: [1, 2] }), undefined);
});
