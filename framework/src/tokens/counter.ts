/**
 * Token counters: the exact cost the framework writes into every frame's `token_cost`.
 */
import { createHash } from "node:crypto";
import { GenerationalCache } from "../cache/generational.js";
import { byteBound, bytesSurelyFit, nfdByteBound, nfdBytesSurelyFit } from "./bounds.js";
import { type BpeEncodingName, exactCounter, preloadEncoding } from "./encoders.js";
import { TokenizerMissingError } from "./errors.js";
import { type FamilyName, familyCount, familyTokenizer } from "./families.js";
import { DEFAULT_TOKENIZER, isInstalled, TOKENIZERS, type TokenizerName, tokenizerSpec } from "./registry.js";

export { TOKENIZERS, type TokenizerName } from "./registry.js";

/** Counts tokens exactly, with a cheap upper bound for deciding what is worth counting. */
export interface TokenCounter {
  /** The tokenizer this counter reproduces. */
  readonly tokenizer: TokenizerName;
  /** The exact number of tokens of `text`. */
  count(text: string): number;
  /** A number never below `count(text)`, computed without tokenizing; subadditive (the bound of a concatenation is at most the sum). */
  upperBound(text: string): number;
  /** True only if `count(text) <= budget` is certain; decided from the text's length when it can be. */
  surelyFits(text: string, budget: number): boolean;
  /** Loads tokenizer tables ahead of the first count. */
  preload(): void;
  /** How often `count` found its answer in the content cache, since the counter was made (when it has one). */
  cacheStats?(): CacheStats;
  /**
   * Empties the content cache (when it has one); the counts of `cacheStats` go on. For
   * measuring a cold cache, as `ocp bench` does after drawing its goals.
   */
  clearCache?(): void;
}

/** Hits and misses of a counter's content cache. */
export interface CacheStats {
  readonly hits: number;
  readonly misses: number;
}

/** Options of {@link createTokenCounter}. */
export interface TokenCounterOptions {
  /** Which tokenizer to reproduce (see the registry, `TOKENIZERS`); default `o200k_base`. */
  tokenizer?: TokenizerName;
  /** Entries of the content-keyed cache (about the most recently used); 0 disables it. Default 4096. */
  cacheSize?: number;
}

/** Texts up to this many UTF-16 units are their own cache key; longer ones are keyed by SHA-256. */
const INLINE_KEY_LIMIT = 4096;

/** ceil(UTF-8 bytes / 4): the budget unit of hosts that count bytes, not tokens. */
export function canonicalTokenCount(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / 4);
}

/**
 * Creates a counter. Throws a RangeError for a name that is not registered, and a
 * {@link TokenizerMissingError} (naming the package to install) for a family whose
 * optional package is not installed. Loads no vocabulary: the first count (or
 * `preload()`) does.
 */
export function createTokenCounter(options: TokenCounterOptions = {}): TokenCounter {
  const tokenizer = options.tokenizer ?? DEFAULT_TOKENIZER;
  if (!TOKENIZERS.includes(tokenizer)) {
    throw new RangeError(`unknown tokenizer '${tokenizer}' (expected one of ${TOKENIZERS.join(", ")})`);
  }
  const spec = tokenizerSpec(tokenizer);
  if (spec.package !== undefined && !isInstalled(tokenizer)) {
    throw new TokenizerMissingError(tokenizer, spec.package.name, spec.package.version);
  }
  if (tokenizer === "canonical") {
    return {
      tokenizer,
      count: canonicalTokenCount,
      upperBound: canonicalTokenCount,
      // A UTF-16 unit is 1–3 UTF-8 bytes: the length settles most cases without measuring.
      surelyFits: (text, budget) =>
        Math.ceil((3 * text.length) / 4) <= budget ||
        (text.length <= 4 * budget && canonicalTokenCount(text) <= budget),
      preload: () => {},
    };
  }
  const isFamily = spec.package !== undefined;
  const exact = isFamily ? familyCount(tokenizer as FamilyName) : exactCounter(tokenizer as BpeEncodingName);
  const cacheSize = options.cacheSize ?? 4096;
  const stats = { hits: 0, misses: 0 };
  const memo = cacheSize > 0 ? cached(exact, cacheSize, stats) : undefined;
  const count = memo?.count ?? exact;
  const nfd = spec.bound === "nfd-bytes";
  const bound = nfd ? nfdByteBound : byteBound;
  const fits = nfd ? nfdBytesSurelyFit : bytesSurelyFit;
  return {
    tokenizer,
    count,
    ...(memo !== undefined ? { cacheStats: () => ({ ...stats }), clearCache: memo.clear } : {}),
    // Functions of this counter's own, as every other member: two providers share nothing.
    upperBound: (text) => bound(text),
    surelyFits: (text, budget) => fits(text, budget),
    preload: isFamily
      ? () => void familyTokenizer(tokenizer as FamilyName)
      : () => preloadEncoding(tokenizer as BpeEncodingName),
  };
}

/** Wraps an exact count in a bounded memo keyed by content, counting its hits and misses into `stats`. */
function cached(
  exact: (text: string) => number,
  capacity: number,
  stats: { hits: number; misses: number },
): { count: (text: string) => number; clear: () => void } {
  // Two caches so a short text can never collide with a long text's digest key.
  let short = new GenerationalCache<string, number>(capacity);
  let long = new GenerationalCache<string, number>(Math.max(2, capacity >> 3));
  const clear = () => {
    short = new GenerationalCache<string, number>(capacity);
    long = new GenerationalCache<string, number>(Math.max(2, capacity >> 3));
  };
  const count = (text: string) => {
    const inline = text.length <= INLINE_KEY_LIMIT;
    const cache = inline ? short : long;
    const key = inline ? text : createHash("sha256").update(text).digest("base64");
    const hit = cache.get(key);
    if (hit !== undefined) {
      stats.hits++;
      return hit;
    }
    stats.misses++;
    const value = exact(text);
    cache.set(key, value);
    return value;
  };
  return { count, clear };
}
