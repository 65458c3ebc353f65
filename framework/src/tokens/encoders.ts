/**
 * The exact tokenizers behind token costs, loaded on first use.
 *
 * gpt-tokenizer (pure JS) counts almost everything. Its pre-tokenizer regex
 * disagrees with OpenAI's reference tokenizer on U+FEFF and U+0085 (JavaScript's
 * `\s` and Rust's `\s` classify them differently), so text holding either goes to
 * tiktoken, the WASM build of the reference implementation. Both count special-token
 * text such as `<|endoftext|>` as plain text: content is data, never control.
 */
import { createRequire } from "node:module";

/** The BPE encodings we count with. */
export type BpeEncodingName = "o200k_base" | "cl100k_base";

/** Counts the tokens of a string exactly. */
export type ExactCount = (text: string) => number;

interface GptTokenizerModule {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}
interface TiktokenEncoder {
  encode_ordinary(text: string): Uint32Array;
}
interface TiktokenModule {
  get_encoding(name: BpeEncodingName): TiktokenEncoder;
}

// Loaded lazily and synchronously: the rank tables take ~150 ms to load, which
// must not delay a handshake, and counting itself is synchronous.
const require = createRequire(import.meta.url);
const gptTokenizers = new Map<BpeEncodingName, GptTokenizerModule>();
const tiktokens = new Map<BpeEncodingName, TiktokenEncoder>();
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

function gptTokenizer(name: BpeEncodingName): GptTokenizerModule {
  let module = gptTokenizers.get(name);
  if (module === undefined) {
    module = require(`gpt-tokenizer/encoding/${name}`) as GptTokenizerModule;
    gptTokenizers.set(name, module);
  }
  return module;
}

function tiktoken(name: BpeEncodingName): TiktokenEncoder {
  let encoder = tiktokens.get(name);
  if (encoder === undefined) {
    encoder = (require("tiktoken") as TiktokenModule).get_encoding(name);
    tiktokens.set(name, encoder);
  }
  return encoder;
}

/** Characters on which the pure-JS tokenizer differs from the reference one. */
const NEEDS_REFERENCE = /[\uFEFF\u0085]/;

/** The exact counter for an encoding: gpt-tokenizer, or tiktoken for the characters it gets wrong. */
export function exactCounter(name: BpeEncodingName): ExactCount {
  return (text) => {
    if (NEEDS_REFERENCE.test(text)) return tiktoken(name).encode_ordinary(text).length;
    return gptTokenizer(name).countTokens(text, PLAIN_TEXT);
  };
}

/** Counts with gpt-tokenizer alone (special tokens as plain text); the baseline our benchmarks compare to. */
export function gptTokenizerCount(name: BpeEncodingName): ExactCount {
  return (text) => gptTokenizer(name).countTokens(text, PLAIN_TEXT);
}

/** Counts with tiktoken alone (`encode_ordinary`): the reference tokenizer, for tests and benchmarks. */
export function tiktokenCount(name: BpeEncodingName): ExactCount {
  return (text) => tiktoken(name).encode_ordinary(text).length;
}

/** Loads an encoding's tables now, so the first query does not pay for it. */
export function preloadEncoding(name: BpeEncodingName): void {
  gptTokenizer(name);
}
