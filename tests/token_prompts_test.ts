/**
 * Token mode's first prompt under every built-in profile, with Qwen3's real tokenizer and chat template (local
 * runtime, no container): the ids are encode(render(messages, tools)), decode back to the same text, and the text
 * holds each tool as the template writes it (Python's json.dumps) and the profile's own system prompt.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { getProfile, profileNames } from "../lib/harness/registry.ts";
import { templateMessages } from "../lib/tokens/chat_messages.ts";
import { pyJson } from "../lib/tokens/py_json.ts";
import { TokenSession } from "../lib/tokens/token_session.ts";
import { hermesTools } from "../lib/tokens/parsers/hermes.ts";
import { registerBuiltins } from "../profiles/mod.ts";
import { EXAMPLE_TASKS, withLocalEpisode } from "./profile_helpers.ts";
import { qwen3 } from "./qwen3_model.ts";

registerBuiltins();
const FIX = join(EXAMPLE_TASKS, "fix-word-count");

for (const name of profileNames()) {
  const profile = getProfile(name);
  if (profile.terminal !== undefined) continue; // drives tmux: its first prompt needs a container (same messages)
  Deno.test(`token mode: ${name}'s first prompt is encode(render(messages, tools)) and decodes back`, async () => {
    const model = await qwen3();
    await withLocalEpisode(profile, FIX, (ep) => {
      const tools = ep.tools;
      const kwargs = profile.chatTemplateKwargs ?? {};
      const s = new TokenSession(model, { tools, kwargs, toolParser: hermesTools });
      const ids = s.start(ep.messages);
      const text = model.render(templateMessages(ep.messages), { tools, kwargs });
      assert.deepEqual(ids, model.encode(text));
      assert.equal(model.decode(ids), text);
      assert.ok(text.endsWith("<|im_start|>assistant\n") || text.endsWith("</think>\n\n"));
      if (profile.protocol.kind === "native") {
        assert.ok(tools.length > 0);
        for (const t of tools) assert.ok(text.includes(`\n${pyJson(t)}\n`), `tool ${t.function.name} as tojson`);
      } else assert.equal(tools.length, 0);
      const system = ep.messages.find((m) => m.role === "system");
      if (system) assert.ok(text.includes(String(system.content).slice(0, 200)), "the system prompt is in the text");
      assert.deepEqual([...s.mask], ids.map(() => 0), "nothing of a prompt is trained on");
      return Promise.resolve();
    });
  });
}
