/**
 * The exact tokenizers behind token costs, loaded on first use.
 *
 * gpt-tokenizer (pure JS) counts almost everything. Its pre-tokenizer regex
 * disagrees with OpenAI's reference tokenizer wherever JavaScript's Unicode tables
 * and the reference's Rust ones classify a character differently: U+FEFF and U+0085
 * (`\s` differs), and characters one side has assigned and the other has not (Node's
 * ICU knows Unicode 17, tiktoken's regex Unicode 16). Text holding any of them goes
 * to tiktoken, the WASM build of the reference implementation. ASCII text skips
 * gpt-tokenizer's splitting regex for our own equivalent scanner (ascii-pieces.ts). All count special-token
 * text such as `<|endoftext|>` as plain text: content is data, never control.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { asciiPieceEnd } from "./ascii-pieces.js";

/** The BPE encodings we count with. */
export type BpeEncodingName = "o200k_base" | "cl100k_base";

/** Counts the tokens of a string exactly. */
export type ExactCount = (text: string) => number;

interface GptTokenizerModule {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  /** The encoding object; its BPE core is what the ASCII fast path ranks pieces with. */
  default?: { bytePairEncodingCoreProcessor?: Partial<BpeCore> };
}

/** The two methods of gpt-tokenizer's BPE core the ASCII fast path needs (gpt-tokenizer 4.0.0, pinned). */
interface BpeCore {
  /** The rank of a piece that is one token, else undefined. */
  getBpeRankFromString(piece: string): number | undefined;
  /** The tokens of a piece that is not one token (memoised inside gpt-tokenizer). */
  bytePairEncode(piece: string): ArrayLike<number>;
}
interface TiktokenEncoder {
  encode_ordinary(text: string): Uint32Array;
}
interface TiktokenModule {
  get_encoding(name: BpeEncodingName): TiktokenEncoder;
}

/** gpt-tokenizer's encoding class: what its encoding modules build from their rank tables. */
interface GptEncodingClass {
  getEncodingApi(
    name: BpeEncodingName,
    ranks: () => unknown[],
  ): Pick<GptTokenizerModule, "countTokens"> & { bytePairEncodingCoreProcessor?: Partial<BpeCore> };
}

// Loaded lazily and synchronously: the rank tables take ~0.3 s to load, which
// must not delay a handshake, and counting itself is synchronous.
const require = createRequire(import.meta.url);
const gptTokenizers = new Map<BpeEncodingName, GptTokenizerModule>();
const sources = new Map<BpeEncodingName, "snapshot" | "module">();
const tiktokens = new Map<BpeEncodingName, TiktokenEncoder>();
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Where the build writes the rank snapshots (framework/scripts/write-ranks.js): from src/ and dist/ alike. */
export const RANK_SNAPSHOTS = new URL("../../dist/ranks/", import.meta.url);

let installedVersion: string | undefined;
/** The installed gpt-tokenizer's version (its exports map hide its package.json: found beside its main). */
function gptTokenizerVersion(): string {
  installedVersion ??= String(
    JSON.parse(readFileSync(join(dirname(require.resolve("gpt-tokenizer")), "..", "package.json"), "utf8")).version,
  );
  return installedVersion;
}

/** The snapshot of `name`'s rank table, from the installed gpt-tokenizer: what the build writes (write-ranks.js). */
export function rankSnapshotBytes(name: BpeEncodingName): Buffer {
  const ranks = (require(`gpt-tokenizer/bpeRanks/${name}`) as { default: unknown[] }).default;
  return serialize({ format: 1, package: "gpt-tokenizer", version: gptTokenizerVersion(), encoding: name, ranks });
}

/**
 * The rank table of `name` from its snapshot in `dir`, or undefined when there is none
 * this gpt-tokenizer wrote or this V8 can read: the caller then loads gpt-tokenizer's own.
 */
export function rankSnapshot(name: BpeEncodingName, dir: URL = RANK_SNAPSHOTS): unknown[] | undefined {
  try {
    const saved = deserialize(readFileSync(new URL(`${name}.v8`, dir))) as Record<string, unknown> | null;
    const fits =
      saved?.format === 1 &&
      saved.package === "gpt-tokenizer" &&
      saved.version === gptTokenizerVersion() &&
      saved.encoding === name &&
      Array.isArray(saved.ranks);
    return fits ? (saved.ranks as unknown[]) : undefined;
  } catch {
    return undefined;
  }
}

function gptTokenizer(name: BpeEncodingName): GptTokenizerModule {
  let module = gptTokenizers.get(name);
  if (module === undefined) {
    const ranks = rankSnapshot(name);
    if (ranks !== undefined) {
      // What gpt-tokenizer's own encoding module does with the table it parses (its size is checked there).
      const { GptEncoding } = require("gpt-tokenizer/GptEncoding") as { GptEncoding: GptEncodingClass };
      const api = GptEncoding.getEncodingApi(name, () => ranks);
      module = { countTokens: api.countTokens, default: api };
      sources.set(name, "snapshot");
    } else {
      module = require(`gpt-tokenizer/encoding/${name}`) as GptTokenizerModule;
      sources.set(name, "module");
    }
    gptTokenizers.set(name, module);
  }
  return module;
}

/** Where an encoding's table came from once loaded: the build's snapshot or gpt-tokenizer's module (for tests). */
export function encodingSource(name: BpeEncodingName): "snapshot" | "module" | undefined {
  return sources.get(name);
}

function tiktoken(name: BpeEncodingName): TiktokenEncoder {
  let encoder = tiktokens.get(name);
  if (encoder === undefined) {
    encoder = (require("tiktoken") as TiktokenModule).get_encoding(name);
    tiktokens.set(name, encoder);
  }
  return encoder;
}

/**
 * Characters on which the pure-JS tokenizer may differ from the reference one:
 * U+FEFF and U+0085; letters, marks and digits new in Unicode 17, which the
 * reference reads as unassigned (found by comparing both tokenizers on every code
 * point); and whatever this JavaScript engine has unassigned (`\p{Cn}`), which a
 * reference with newer tables may read as letters.
 */
const NEEDS_REFERENCE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: a set of single code points (some are combining marks), never a sequence.
  /[\uFEFF\u0085\u088F\u0C5C\u0CDC\u1ACF-\u1ADD\u1AE0-\u1AEB\uA7CE\uA7CF\uA7D2\uA7D4\uA7F1\u{10940}-\u{10959}\u{10EC5}-\u{10EC7}\u{10EFA}\u{10EFB}\u{11B60}-\u{11B67}\u{11DB0}-\u{11DDB}\u{11DE0}-\u{11DE9}\u{16EA0}-\u{16EB8}\u{16EBB}-\u{16ED3}\u{16FF2}-\u{16FF6}\u{187F8}-\u{187FF}\u{18D09}-\u{18D1E}\u{18D80}-\u{18DF2}\u{1E6C0}-\u{1E6DE}\u{1E6E0}-\u{1E6F5}\u{1E6FE}\u{1E6FF}\u{2B73A}-\u{2B73F}\u{2CEA2}-\u{2CEAD}\u{323B0}-\u{33479}\p{Cn}]/u;

const NON_ASCII = /[\u0080-\u{10FFFF}]/u;

// The class above is slow to test (\p{Cn} alone is hundreds of ranges), and every
// non-ASCII text is tested: answer it per code point instead, from a table of the BMP
// built on first use and a memo of the astral code points met.
let bmpNeedsReference: Uint8Array | undefined;
const astralNeedsReference = new Map<number, boolean>();

/** True if `text` (from index `from` on) holds a character on which gpt-tokenizer may differ from the reference. */
function needsReference(text: string, from: number): boolean {
  if (bmpNeedsReference === undefined) {
    bmpNeedsReference = new Uint8Array(0x10000);
    for (let code = 0x80; code < 0x10000; code++) {
      if (code < 0xd800 || code > 0xdfff)
        bmpNeedsReference[code] = NEEDS_REFERENCE.test(String.fromCharCode(code)) ? 1 : 0;
    }
  }
  for (let at = from; at < text.length; at++) {
    const unit = text.charCodeAt(at);
    if (unit < 0x80) continue;
    if (unit >= 0xd800 && unit <= 0xdbff && at + 1 < text.length) {
      const low = text.charCodeAt(at + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        const point = (unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
        let needs = astralNeedsReference.get(point);
        if (needs === undefined) {
          needs = NEEDS_REFERENCE.test(String.fromCodePoint(point));
          astralNeedsReference.set(point, needs);
        }
        if (needs) return true;
        at++;
        continue;
      }
    }
    // A lone surrogate is a code point of its own (category Cs): never in the class.
    if (bmpNeedsReference[unit] === 1) return true;
  }
  return false;
}

/** gpt-tokenizer's BPE core for `name`, or undefined if this version does not expose one. */
function bpeCore(name: BpeEncodingName): BpeCore | undefined {
  const core = gptTokenizer(name).default?.bytePairEncodingCoreProcessor;
  return typeof core?.getBpeRankFromString === "function" && typeof core.bytePairEncode === "function"
    ? (core as BpeCore)
    : undefined;
}

/** Counts ASCII text: our pre-tokenizer, gpt-tokenizer's ranks and merges. */
function asciiCounter(name: BpeEncodingName, core: BpeCore): ExactCount {
  const pieceEnd = asciiPieceEnd(name);
  return (text) => {
    let tokens = 0;
    for (let at = 0, end = text.length; at < end; ) {
      const stop = pieceEnd(text, at, end);
      const piece = text.slice(at, stop);
      tokens += core.getBpeRankFromString(piece) !== undefined ? 1 : core.bytePairEncode(piece).length;
      at = stop;
    }
    return tokens;
  };
}

/**
 * The exact counter for an encoding. ASCII text (most code and prose) is split by our
 * own pre-tokenizer; other text goes to gpt-tokenizer, or to tiktoken when it holds a
 * character on which gpt-tokenizer and the reference disagree.
 */
export function exactCounter(name: BpeEncodingName): ExactCount {
  let ascii: ExactCount | undefined;
  return (text) => {
    const firstNonAscii = text.search(NON_ASCII);
    if (firstNonAscii === -1) {
      if (ascii === undefined) {
        const core = bpeCore(name);
        ascii =
          core !== undefined ? asciiCounter(name, core) : (plain) => gptTokenizer(name).countTokens(plain, PLAIN_TEXT);
      }
      return ascii(text);
    }
    if (needsReference(text, firstNonAscii)) return tiktoken(name).encode_ordinary(text).length;
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
