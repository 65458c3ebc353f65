/**
 * Token counters: the exact cost the framework writes into every frame's `token_cost`.
 */
import { createHash } from "node:crypto";
import { type BpeEncodingName, exactCounter, preloadEncoding } from "./encoders.js";

/** `o200k_base` (default), `cl100k_base`, or `canonical` = ceil(UTF-8 bytes / 4). */
export type TokenizerName = BpeEncodingName | "canonical";

/** The tokenizers a provider can count with. */
export const TOKENIZERS: readonly TokenizerName[] = ["o200k_base", "cl100k_base", "canonical"];

/** Counts tokens exactly, with a cheap upper bound for deciding what is worth counting. */
export interface TokenCounter {
  /** The tokenizer this counter reproduces. */
  readonly tokenizer: TokenizerName;
  /** The exact number of tokens of `text`. */
  count(text: string): number;
  /** A number never below `count(text)`, computed without tokenizing; subadditive (the bound of a concatenation is at most the sum). */
  upperBound(text: string): number;
  /** Loads tokenizer tables ahead of the first count. */
  preload(): void;
}

/** Options of {@link createTokenCounter}. */
export interface TokenCounterOptions {
  /** Which tokenizer to reproduce; default `o200k_base`. */
  tokenizer?: TokenizerName;
  /** Entries of the content-keyed LRU cache; 0 disables it. Default 4096. */
  cacheSize?: number;
}

/** Texts up to this many UTF-16 units are their own cache key; longer ones are keyed by SHA-256. */
const INLINE_KEY_LIMIT = 4096;

/** ceil(UTF-8 bytes / 4): the budget unit of hosts that count bytes, not tokens. */
export function canonicalTokenCount(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / 4);
}

/**
 * Creates a counter. Every byte-level BPE token is at least one byte, so a text's
 * UTF-8 length bounds its token count from above; that bound is `upperBound`.
 */
export function createTokenCounter(options: TokenCounterOptions = {}): TokenCounter {
  const tokenizer = options.tokenizer ?? "o200k_base";
  if (!TOKENIZERS.includes(tokenizer)) {
    throw new RangeError(`unknown tokenizer '${tokenizer}' (expected one of ${TOKENIZERS.join(", ")})`);
  }
  if (tokenizer === "canonical") {
    return { tokenizer, count: canonicalTokenCount, upperBound: canonicalTokenCount, preload: () => {} };
  }
  const exact = exactCounter(tokenizer);
  const cacheSize = options.cacheSize ?? 4096;
  const count = cacheSize > 0 ? cached(exact, cacheSize) : exact;
  return {
    tokenizer,
    count,
    upperBound: (text) => Buffer.byteLength(text, "utf8"),
    preload: () => preloadEncoding(tokenizer),
  };
}

/** Wraps an exact count in an LRU cache keyed by content. */
function cached(exact: (text: string) => number, capacity: number): (text: string) => number {
  // Two maps so a short text can never collide with a long text's digest key.
  const short = new Lru(capacity);
  const long = new Lru(Math.max(1, capacity >> 3));
  return (text) => {
    const [cache, key] =
      text.length <= INLINE_KEY_LIMIT ? [short, text] : [long, createHash("sha256").update(text).digest("base64")];
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const value = exact(text);
    cache.set(key, value);
    return value;
  };
}

/** A least-recently-used map: a Map keeps insertion order, so re-inserting on a hit keeps the oldest key first. */
class Lru {
  readonly #entries = new Map<string, number>();
  readonly #capacity: number;
  constructor(capacity: number) {
    this.#capacity = capacity;
  }
  get(key: string): number | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: number): void {
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value as string);
  }
}
