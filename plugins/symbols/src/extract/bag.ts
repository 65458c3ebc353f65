/**
 * A file's bag of words, for ranking files by a goal written in prose: every
 * identifier and word of the text (code, comments and strings alike) split into
 * subwords (`parseHTTPRequest` → parse, http, request; `MAX_RETRIES` → max, retries),
 * lower-cased and lightly stemmed (`retries` → retry, `parsed`/`parsing`/`parses` →
 * pars), each hashed to 32 bits and counted; and the distinct identifiers as written
 * (`parseConfig`), hashed, which is what the reference graph links to definitions by.
 *
 * Hashes, not strings: one pass over the characters builds both without making a
 * string per token, so a build of thousands of files pays milliseconds for it, and a
 * bag stores as a few hundred 32-bit numbers. Two words that hash alike (a few pairs
 * in a vocabulary of hundreds of thousands) only blur a ranking a little.
 *
 * The query side reads a goal with the same scanner ({@link textWords}), so both
 * sides split, stem and hash identically.
 */

/** What one file's text holds, as hashes. */
export interface TermBag {
  /** `[hash, count]` pairs of stemmed lower-case subwords, sorted by hash. */
  readonly terms: Uint32Array;
  /** Hashes of the distinct identifiers (three characters or more) as written, sorted. */
  readonly idents: Uint32Array;
  /** How many subwords the text has in all (its length, for length normalisation). */
  readonly length: number;
}

/** An empty bag. */
export const EMPTY_BAG: TermBag = { terms: new Uint32Array(0), idents: new Uint32Array(0), length: 0 };

/** Longer words are hashed on their first this many characters. */
const MAX_WORD = 48;
/** Counts saturate here (BM25 saturates far below). */
const MAX_COUNT = 0xffff;

const FNV_BASIS = 0x811c9dc5;
const IDENT_BASIS = 0x50c5d1f;
const FNV_PRIME = 0x01000193;

/** Per ASCII code: 0 upper, 1 lower, 2 digit, 3 `_` or `$`, -1 anything else. */
const CLASSES = (() => {
  const classes = new Int8Array(128).fill(-1);
  for (let code = 65; code <= 90; code++) classes[code] = 0;
  for (let code = 97; code <= 122; code++) classes[code] = 1;
  for (let code = 48; code <= 57; code++) classes[code] = 2;
  classes[95] = 3;
  classes[36] = 3;
  return classes;
})();

const isVowel = (code: number) => code === 97 || code === 101 || code === 105 || code === 111 || code === 117;

/**
 * A light English stem of the lower-case word in `word[0, length)`, in place; returns
 * its new length. Plurals and -ing/-ed go, a final e of longer words goes (so parse,
 * parses, parsed and parsing meet at `pars`), a doubled final consonant left by -ing or
 * -ed is undoubled (`running` → run). Short words (under four letters) are kept.
 */
export function stemCodes(word: Uint16Array, length: number): number {
  let n = length;
  if (n < 4) return n;
  const last = word[n - 1] as number;
  let suffixed = false;
  if (last === 115) {
    const second = word[n - 2] as number;
    if (n > 4 && second === 101 && word[n - 3] === 105) {
      word[n - 3] = 121; // -ies → -y
      return n - 2;
    }
    if (second === 101 && n - 2 >= 3) {
      const before = word[n - 3] as number;
      const h = before === 104 ? (word[n - 4] as number) : 0;
      const sibilant = before === 115 || before === 120 || before === 122 || h === 99 || h === 115;
      n -= sibilant ? 2 : 1; // boxes → box, matches → match; files → file
    } else if (second !== 115 && second !== 117 && second !== 105 && n - 1 >= 3) {
      n -= 1; // tokens → token; not class, status, analysis
    }
  } else if (n - 3 >= 3 && last === 103 && word[n - 2] === 110 && word[n - 3] === 105) {
    n -= 3; // -ing
    suffixed = true;
  } else if (n - 2 >= 3 && last === 100 && word[n - 2] === 101) {
    n -= 2; // -ed
    suffixed = true;
  }
  if (suffixed && n >= 3) {
    const end = word[n - 1] as number;
    // stopped → stop, running → run; but called, passed, buzzed keep theirs.
    if (end === word[n - 2] && !isVowel(end) && end !== 108 && end !== 115 && end !== 122) n -= 1;
  }
  if (n > 4 && word[n - 1] === 101) n -= 1; // parse → pars (as parsed, parsing)
  return n;
}

function hashWord(word: Uint16Array, length: number): number {
  let hash = FNV_BASIS;
  for (let i = 0; i < length; i++) hash = Math.imul(hash ^ (word[i] as number), FNV_PRIME);
  return hash >>> 0 || 1;
}

/**
 * A growable open-addressing table of 32-bit hash → count, with two numbers of
 * payload per entry; 0 marks an empty slot (hashes are never 0). The slots in use are
 * listed, so clearing and sorting cost what was added, not the table's size (one large
 * file grows it for every file after).
 */
class HashTable {
  keys = new Uint32Array(1024);
  counts = new Uint32Array(1024);
  /** Per slot: where the identifier's word hashes start in the word buffer, and how many. */
  first = new Uint32Array(1024);
  words = new Uint8Array(1024);
  used = new Uint32Array(512);
  size = 0;

  clear(): void {
    for (let i = 0; i < this.size; i++) this.keys[this.used[i] as number] = 0;
    this.size = 0;
  }

  /** The slot of `hash`, -1 - slot when it was just added (its count 0). */
  slot(hash: number): number {
    if (this.size * 2 >= this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    let slot = Math.imul(hash, 0x9e3779b1) >>> 0;
    for (;;) {
      slot &= mask;
      const key = this.keys[slot] as number;
      if (key === hash) return slot;
      if (key === 0) {
        this.keys[slot] = hash;
        this.counts[slot] = 0;
        this.used[this.size++] = slot;
        return -1 - slot;
      }
      slot++;
    }
  }

  /** Adds `count` to `hash`'s. */
  add(hash: number, count: number): void {
    let slot = this.slot(hash);
    if (slot < 0) slot = -1 - slot;
    this.counts[slot] = Math.min(MAX_COUNT, (this.counts[slot] as number) + count);
  }

  private grow(): void {
    const { keys, counts, first, words, used, size } = this;
    const capacity = keys.length * 2;
    this.keys = new Uint32Array(capacity);
    this.counts = new Uint32Array(capacity);
    this.first = new Uint32Array(capacity);
    this.words = new Uint8Array(capacity);
    this.used = new Uint32Array(capacity / 2);
    this.size = 0;
    const mask = capacity - 1;
    for (let i = 0; i < size; i++) {
      const old = used[i] as number;
      const key = keys[old] as number;
      let slot = Math.imul(key, 0x9e3779b1) >>> 0;
      for (;;) {
        slot &= mask;
        if (this.keys[slot] === 0) break;
        slot++;
      }
      this.keys[slot] = key;
      this.counts[slot] = counts[old] as number;
      this.first[slot] = first[old] as number;
      this.words[slot] = words[old] as number;
      this.used[this.size++] = slot;
    }
  }

  /** `[hash, count]` pairs sorted by hash. */
  sortedPairs(): Uint32Array {
    // (hash, index) packed in one float64: hash × 2^21 + index is exact below 2^53.
    const order = new Float64Array(this.size);
    for (let i = 0; i < this.size; i++) order[i] = (this.keys[this.used[i] as number] as number) * 2097152 + i;
    order.sort();
    const pairs = new Uint32Array(2 * this.size);
    for (let i = 0; i < this.size; i++) {
      const slot = this.used[(order[i] as number) % 2097152] as number;
      pairs[2 * i] = this.keys[slot] as number;
      pairs[2 * i + 1] = this.counts[slot] as number;
    }
    return pairs;
  }
}

const scratch = new Uint16Array(MAX_WORD);

/**
 * The words of the identifier `text[start, end)`, as {@link splitWords} finds them: a
 * word ends before a capital after a lower-case letter or digit, before the last
 * capital of a run followed by lower case, before a lower-case letter after a digit,
 * and at `_` and `$`. Each word of two characters or more is lower-cased and stemmed
 * in {@link scratch} and handed to `take` with its length.
 */
function identWords(text: string, start: number, end: number, take: (length: number) => void): void {
  let word = 0; // characters of the current word seen
  let previous = -1;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    const kind = CLASSES[code] as number;
    if (kind === 3) {
      if (word >= 2) take(stemCodes(scratch, Math.min(word, MAX_WORD)));
      word = 0;
      previous = 3;
      continue;
    }
    if (word > 0) {
      let boundary = (kind === 0 && (previous === 1 || previous === 2)) || (kind === 1 && previous === 2);
      if (!boundary && kind === 0 && previous === 0 && i + 1 < end) {
        const next = text.charCodeAt(i + 1);
        boundary = next >= 97 && next <= 122; // HTTPServer: the S starts Server
      }
      if (boundary) {
        if (word >= 2) take(stemCodes(scratch, Math.min(word, MAX_WORD)));
        word = 0;
      }
    }
    if (word < MAX_WORD) scratch[word] = kind === 0 ? code + 32 : code;
    word++;
    previous = kind;
  }
  if (word >= 2) take(stemCodes(scratch, Math.min(word, MAX_WORD)));
}

/**
 * Calls `identifier(start, end, hash)` for each identifier of `text`:
 * `[A-Za-z_$][A-Za-z0-9_$]*`, anything else separating; a run that starts with a digit
 * is a number, skipped. `hash` is the identifier's as written ({@link identHash}).
 */
function identifiers(text: string, identifier: (start: number, end: number, hash: number) => void): void {
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128) continue;
    const kind = CLASSES[code] as number;
    if (kind === -1) continue;
    const start = i;
    let hash = Math.imul(IDENT_BASIS ^ code, FNV_PRIME);
    for (i++; i < length; i++) {
      const next = text.charCodeAt(i);
      if (next >= 128 || CLASSES[next] === -1) break;
      hash = Math.imul(hash ^ next, FNV_PRIME);
    }
    if (kind !== 2) identifier(start, i, hash >>> 0 || 1);
  }
}

const idents = new HashTable();
const terms = new HashTable();
let wordHashes = new Uint32Array(4096);
let wordCount = 0;

/** The bag of `text`. */
export function termBag(text: string): TermBag {
  idents.clear();
  terms.clear();
  wordCount = 0;
  // Each distinct identifier is split, stemmed and hashed once; its words count as often as it occurs.
  identifiers(text, (start, end, hash) => {
    let slot = idents.slot(hash);
    if (slot < 0) {
      slot = -1 - slot;
      const from = wordCount;
      identWords(text, start, end, (length) => {
        if (wordCount === wordHashes.length) {
          const grown = new Uint32Array(wordHashes.length * 2);
          grown.set(wordHashes);
          wordHashes = grown;
        }
        wordHashes[wordCount++] = hashWord(scratch, length);
      });
      idents.first[slot] = from;
      idents.words[slot] = Math.min(255, wordCount - from);
      // Bit 16 marks a name of three characters or more, for the identifier list; shorter ones only lend their words.
      idents.counts[slot] = end - start >= 3 ? 0x10000 : 0;
    }
    const counted = idents.counts[slot] as number;
    if ((counted & 0xffff) < MAX_COUNT) idents.counts[slot] = counted + 1;
  });
  let length = 0;
  let named = 0;
  for (let i = 0; i < idents.size; i++) {
    const slot = idents.used[i] as number;
    const raw = idents.counts[slot] as number;
    const count = raw & 0xffff;
    if (raw >= 0x10000) named++;
    const first = idents.first[slot] as number;
    const words = idents.words[slot] as number;
    for (let w = 0; w < words; w++) terms.add(wordHashes[first + w] as number, count);
    length += count * words;
  }
  const names = new Uint32Array(named);
  let n = 0;
  for (let i = 0; i < idents.size; i++) {
    const slot = idents.used[i] as number;
    if ((idents.counts[slot] as number) >= 0x10000) names[n++] = idents.keys[slot] as number;
  }
  return { terms: terms.sortedPairs(), idents: names.sort(), length };
}

/** The hash {@link TermBag.idents} holds for an identifier as written. */
export function identHash(identifier: string): number {
  let hash = IDENT_BASIS;
  for (let k = 0; k < identifier.length; k++) hash = Math.imul(hash ^ identifier.charCodeAt(k), FNV_PRIME);
  return hash >>> 0 || 1;
}

/** One word of a text, as a bag counts it: its stemmed lower-case form and hash. */
export interface BagWord {
  readonly word: string;
  readonly hash: number;
}

/** The words of `text` in order, split, lower-cased, stemmed and hashed as {@link termBag} does. */
export function textWords(text: string): BagWord[] {
  const words: BagWord[] = [];
  identifiers(text, (start, end) => {
    identWords(text, start, end, (length) => {
      words.push({ word: String.fromCharCode(...scratch.subarray(0, length)), hash: hashWord(scratch, length) });
    });
  });
  return words;
}

/**
 * Each word of `text` as {@link textWords} reads it, by hash alone (no strings made):
 * `take(hash, at)` with `at` the offset of the identifier the word is part of.
 */
export function textHashes(text: string, take: (hash: number, at: number) => void): void {
  identifiers(text, (start, end) => {
    identWords(text, start, end, (length) => take(hashWord(scratch, length), start));
  });
}

/** The count of `hash` in a bag's sorted `[hash, count]` pairs, or 0. */
export function termCount(terms: Uint32Array, hash: number): number {
  let low = 0;
  let high = (terms.length >> 1) - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const at = terms[2 * mid] as number;
    if (at === hash) return terms[2 * mid + 1] as number;
    if (at < hash) low = mid + 1;
    else high = mid - 1;
  }
  return 0;
}

/** Whether a sorted hash list holds `hash`. */
export function hasHash(hashes: Uint32Array, hash: number): boolean {
  let low = 0;
  let high = hashes.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const at = hashes[mid] as number;
    if (at === hash) return true;
    if (at < hash) low = mid + 1;
    else high = mid - 1;
  }
  return false;
}

/** {@link stemCodes} of a lower-case word given as a string. */
export function stemWord(word: string): string {
  const codes = new Uint16Array(word.length);
  for (let i = 0; i < word.length; i++) codes[i] = word.charCodeAt(i);
  return String.fromCharCode(...codes.subarray(0, stemCodes(codes, codes.length)));
}

/**
 * A JSON.stringify replacer that writes a Uint32Array (a bag's arrays) as `{ "u32":
 * base64 }`: the worker pool sends extractions across threads as JSON, which would
 * otherwise turn a typed array into an object of numbered keys.
 */
export function typedArrayReplacer(_key: string, value: unknown): unknown {
  return value instanceof Uint32Array
    ? { u32: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") }
    : value;
}

/** The JSON.parse reviver that reads back what {@link typedArrayReplacer} wrote. */
export function typedArrayReviver(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || typeof (value as { u32?: unknown }).u32 !== "string") return value;
  const bytes = Buffer.from((value as { u32: string }).u32, "base64");
  const words = new Uint32Array(bytes.byteLength >>> 2);
  new Uint8Array(words.buffer).set(bytes.subarray(0, words.byteLength));
  return words;
}
