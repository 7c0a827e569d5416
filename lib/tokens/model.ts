/**
 * A model's tokenizer and chat template, loaded from a local model folder (`tokenizer.json`, `tokenizer_config.json`
 * with `chat_template`, or `chat_template.jinja`) or a hub id found in the local HF cache. Rendering follows
 * `transformers`' `apply_chat_template`: the template gets `messages`, `tools`, `add_generation_prompt`, the special
 * tokens as strings and the chat-template kwargs; the text is tokenised without adding special tokens (the template
 * writes them). The tokenizer is `@huggingface/tokenizers`, the template engine `@huggingface/jinja`.
 */
import { Template } from "npm:@huggingface/jinja@0.5.11";
import { Tokenizer } from "npm:@huggingface/tokenizers@0.2.0";
import { join } from "node:path";
import { findInHubCache } from "./hf_cache.ts";

/** What a model folder holds, already parsed (a test or an embedder can build one without files). */
export interface TokenModelFiles {
  /** The parsed `tokenizer.json`. */
  tokenizer: Record<string, unknown>;
  /** The parsed `tokenizer_config.json`. */
  config: Record<string, unknown>;
  /** The chat template (`chat_template.jinja` wins over the config's `chat_template`). */
  chatTemplate?: string;
  /** The parsed `generation_config.json`, when there is one (its `eos_token_id` adds stop tokens). */
  generationConfig?: Record<string, unknown>;
}

/** How to render a conversation. */
export interface RenderOptions {
  /** OpenAI-style tool schemas, passed to the template as `tools` (default: none, so `tools` is undefined). */
  tools?: unknown[];
  /** Chat-template kwargs such as `enable_thinking` (default none). */
  kwargs?: Record<string, unknown>;
  /** Ends the text with the assistant's generation prompt (default true). */
  addGenerationPrompt?: boolean;
}

/** A loaded tokenizer and chat template. */
export class TokenModel {
  readonly #tok: Tokenizer;
  readonly #template: Template;
  readonly #specials: Record<string, string>;
  #vocabSize: number | undefined;
  /** Token ids that end a turn: the config's `eos_token` and generation_config's `eos_token_id`. */
  readonly stopIds: ReadonlySet<number>;
  /** Where the model came from (a folder, or "inline"). */
  readonly source: string;

  /** Builds the model from parsed files; throws an Error naming what is missing. */
  constructor(files: TokenModelFiles, source = "inline") {
    this.source = source;
    const template = files.chatTemplate ?? pickTemplate(files.config.chat_template);
    if (!template) {
      throw new Error(`${source}: no chat template (tokenizer_config.json chat_template or chat_template.jinja)`);
    }
    this.#tok = new Tokenizer(files.tokenizer, files.config);
    this.#template = new Template(template);
    this.#specials = {};
    for (const k of ["bos_token", "eos_token", "unk_token", "pad_token"]) {
      const s = tokenString(files.config[k]);
      if (s !== undefined) this.#specials[k] = s;
    }
    const stops = new Set<number>();
    const eos = this.#specials.eos_token === undefined ? undefined : this.#tok.token_to_id(this.#specials.eos_token);
    if (eos !== undefined) stops.add(eos);
    const gen = files.generationConfig?.eos_token_id;
    for (const id of Array.isArray(gen) ? gen : gen === undefined ? [] : [gen]) {
      if (typeof id === "number") stops.add(id);
    }
    if (stops.size === 0) throw new Error(`${source}: no eos_token in tokenizer_config.json or generation_config.json`);
    this.stopIds = stops;
  }

  /** Token ids of `text`, with no special tokens added (the template wrote them). */
  encode(text: string): number[] {
    return this.#tok.encode(text, { add_special_tokens: false }).ids;
  }

  /** The text of `ids`; `skipSpecial` drops special tokens, as vLLM does for a completion's text (default false). */
  decode(ids: number[], skipSpecial = false): string {
    return this.#tok.decode(ids, { skip_special_tokens: skipSpecial, clean_up_tokenization_spaces: false });
  }

  /** The id of a token string, or undefined. */
  tokenId(token: string): number | undefined {
    return this.#tok.token_to_id(token);
  }

  /** Whether `id` is a token of the vocabulary (added tokens included): a non-negative integer the tokenizer knows. */
  hasId(id: unknown): boolean {
    return typeof id === "number" && Number.isInteger(id) && id >= 0 && this.#tok.id_to_token(id) !== undefined;
  }

  /** Tokens in the vocabulary, added tokens included. */
  get vocabSize(): number {
    return this.#vocabSize ??= this.#tok.get_vocab(true).size;
  }

  /** The conversation as the chat template renders it. */
  render(messages: unknown[], opts: RenderOptions = {}): string {
    const ctx: Record<string, unknown> = {
      ...this.#specials,
      ...opts.kwargs,
      messages,
      add_generation_prompt: opts.addGenerationPrompt ?? true,
    };
    if (opts.tools?.length) ctx.tools = opts.tools;
    return this.#template.render(ctx);
  }
}

function tokenString(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (v && typeof v === "object" && typeof (v as { content?: unknown }).content === "string") {
    return (v as { content: string }).content;
  }
  return undefined;
}

/** A config's `chat_template`: a string, or a list of named templates (the "default" one is taken, as transformers does). */
function pickTemplate(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) {
    const named = v as { name?: unknown; template?: unknown }[];
    const t = named.find((x) => x?.name === "default") ?? named[0];
    return typeof t?.template === "string" ? t.template : undefined;
  }
  return undefined;
}

const loaded = new Map<string, Promise<TokenModel>>();

/**
 * Loads a model folder, or a hub id (`org/name`) from the local HF cache; loaded once per process. Throws an Error
 * naming the folder and the file when something is missing or not JSON.
 */
export function loadTokenModel(dirOrId: string): Promise<TokenModel> {
  let p = loaded.get(dirOrId);
  if (!p) {
    p = readModel(dirOrId);
    loaded.set(dirOrId, p);
    p.catch(() => loaded.delete(dirOrId));
  }
  return p;
}

async function readModel(dirOrId: string): Promise<TokenModel> {
  let dir = dirOrId;
  if (!await isDir(dir)) {
    const looksLikeId = /^[\w.-]+\/[\w.-]+(@[\w.-]+)?$/.test(dirOrId);
    const found = looksLikeId ? await findInHubCache(dirOrId) : undefined;
    if (!found) {
      throw new Error(
        looksLikeId
          ? `${dirOrId}: no such folder, and not in the local Hugging Face cache (nothing is downloaded)`
          : `${dirOrId}: no such folder`,
      );
    }
    dir = found;
  }
  const json = async (name: string, required: boolean) => {
    const path = join(dir, name);
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (e) {
      if (!required && e instanceof Deno.errors.NotFound) return undefined;
      throw new Error(`${path}: ${e instanceof Deno.errors.NotFound ? "missing" : (e as Error).message}`);
    }
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch (e) {
      throw new Error(`${path}: not JSON: ${(e as Error).message}`);
    }
  };
  const tokenizer = (await json("tokenizer.json", true))!;
  const config = await json("tokenizer_config.json", false) ?? {};
  const generationConfig = await json("generation_config.json", false);
  let chatTemplate: string | undefined;
  try {
    chatTemplate = await Deno.readTextFile(join(dir, "chat_template.jinja"));
  } catch { /* the config's own template */ }
  return new TokenModel({ tokenizer, config, chatTemplate, generationConfig }, dir);
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
