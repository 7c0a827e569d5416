/** `pgs harness serve --script turns.json --out requests.jsonl [--host H] [--port N] [--model NAME] [--tokenizer DIR]`. */
import { UsageError } from "../lib/base/errors.ts";
import { parseScript } from "../lib/script/script.ts";
import { startStub } from "../stub/server.ts";
import { TOKEN_FLAGS, TOKEN_FLAGS_HELP, tokenModeFlags } from "./token_flags.ts";
import { listenError } from "./listen.ts";
import { checkOutputFile } from "./output_path.ts";
import { type Command, parseFlags } from "./args.ts";

const usage =
  `Usage: pgs harness serve --script turns.json --out requests.jsonl [--host 127.0.0.1] [--port 8000] [--model NAME]

A stub OpenAI-compatible endpoint, a scripted model for pgs eval and for recording a real harness: answers POST
/v1/chat/completions (streaming or not) from the script and lists the model at GET /v1/models. Every request body is
appended to --out (created, or extended when it exists), one line each, exactly as received (a body that spans lines
or is not a JSON object is recorded as a JSON string). Each request gets the script turn its history has reached (the
number of assistant turns it holds), so any number of identical conversations run at once, as pgs eval's k samples
do; past the script's end, "Done.". --advance requests moves per conversation (its first two messages) and per
request instead, as pgs harness capture does for real harnesses.
POST /v1/responses (OpenAI Responses), POST /v1/messages (Anthropic Messages) and the Gemini API (POST
/v1beta/models/M:generateContent, :streamGenerateContent and :countTokens, GET /v1beta/models) are answered from the
same script in their own shapes. Chat completions also answer vLLM's extensions:
"return_token_ids": true adds prompt_token_ids and choices[0].token_ids, "logprobs": true adds per-token logprobs
(deterministic: the UTF-8 bytes of a ChatML-style rendering). With --tokenizer the stub speaks as that model: it
answers vLLM's POST /v1/completions (prompt as token ids) and SGLang's POST /generate (input_ids), each scripted turn
written in the model's format (think block, tool calls), tokenised, ended with the end-of-turn token and given
deterministic logprobs, the turn taken from the prompt's assistant turns; chat completions then report the chat
template's real prompt_token_ids. Stops on Ctrl-C (SIGINT) or SIGTERM.

Options:
  --script FILE   turns.json: a list of {"tool_calls": [{"name", "arguments"}]} or {"content"} (required)
  --out FILE      the JSONL file bodies are appended to (required)
  --host HOST     address to bind (default 127.0.0.1)
  --port N        port (default 8000; 0 picks a free one)
  --model NAME    model name listed and answered (default pgs-stub)
  --advance MODE  history (default): the turn is the number of assistant turns in the request (pgs eval with any
                  k, identical episodes at once, text protocols); requests: each request with tools takes its
                  conversation's next turn, and one without tools (a title, a summary) is a side request that gets
                  "Untitled" (recording a real harness that sends side requests or drops rejected turns)
${TOKEN_FLAGS_HELP}
                            (with a reasoning parser, every turn opens with the model's think block)
  -h, --help      this help`;

function port(value: string | undefined): number {
  if (value === undefined) return 8000;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new UsageError(`harness serve: --port must be an integer from 0 to 65535, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** The `harness serve` command. */
export const harnessServe: Command = {
  name: "harness serve",
  summary: "serve a scripted OpenAI-compatible stub and record every request (JSONL)",
  usage,
  ownSignals: true,
  async run(argv) {
    const { values, positionals } = parseFlags("harness serve", argv, {
      script: { type: "string" },
      out: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      model: { type: "string" },
      advance: { type: "string" },
      ...TOKEN_FLAGS,
    });
    if (values.help) return console.log(usage), 0;
    if (positionals.length) throw new UsageError(`harness serve: unexpected argument ${positionals[0]}`);
    if (!values.script) throw new UsageError("harness serve: --script is required");
    if (!values.out) throw new UsageError("harness serve: --out is required");
    const listen = port(values.port);
    const advance = values.advance ?? "history";
    if (advance !== "requests" && advance !== "history") {
      throw new UsageError(`harness serve: --advance must be requests or history, got ${JSON.stringify(advance)}`);
    }
    let text: string;
    try {
      text = await Deno.readTextFile(values.script);
    } catch (e) {
      throw new UsageError(`harness serve: cannot read ${values.script}: ${(e as Error).message}`);
    }
    let turns;
    try {
      turns = parseScript(text);
    } catch (e) {
      throw new UsageError(`harness serve: ${values.script}: ${(e as Error).message}`);
    }
    const existed = await checkOutputFile("harness serve", "--out", values.out) === "file";
    const t = await tokenModeFlags("harness serve", values);
    const tokens = t && { model: t.tokenizer, toolParser: t.toolParser, reasoningParser: t.reasoningParser };
    const hostname = values.host ?? "127.0.0.1";
    let stub;
    try {
      stub = await startStub({
        tokens,
        turns,
        out: values.out,
        model: values.model ?? "pgs-stub",
        hostname,
        port: listen,
        truncate: false,
        advance,
      });
    } catch (e) {
      throw listenError("harness serve", hostname, listen, e);
    }
    console.error(
      `pgs harness serve: listening on http://${hostname}:${stub.port}/v1 (${turns.length} turns, advance by ${advance}${
        existed ? `; appending to ${values.out}` : ""
      })`,
    );
    const stopped = Promise.withResolvers<void>();
    const onSignal = () => stopped.resolve();
    Deno.addSignalListener("SIGINT", onSignal);
    Deno.addSignalListener("SIGTERM", onSignal);
    try {
      await stopped.promise;
    } finally {
      Deno.removeSignalListener("SIGINT", onSignal);
      Deno.removeSignalListener("SIGTERM", onSignal);
      await stub.stop();
    }
    console.error(`pgs harness serve: recorded ${stub.count} requests to ${values.out}`);
    return 0;
  },
};
