/**
 * One scan of the name table for a query: every symbol is matched against every
 * term (most are ruled out by a character mask), scored by {@link symbolScore}, and
 * the best `limit` are kept in a bounded heap — so a term that matches ten thousand
 * names costs a scan, not a sort of ten thousand.
 */
import { posix } from "node:path";
import { type MatchContext, matchSymbol, type NameTerm, Tier } from "./match.js";
import type { NameEntry, NameTable } from "./name-table.js";
import { symbolScore } from "./rank.js";
import type { QueryTerms } from "./terms.js";
import { charMask } from "./words.js";

/** What the host's anchors point at, resolved against the table. */
export interface AnchorHints {
  /** Root-relative paths of anchored files (open files, files named in the query text resolve separately). */
  readonly files: ReadonlySet<string>;
  /** Directories of anchored files, and anchored directories (`src/`): symbols there get half the boost. */
  readonly dirs: ReadonlySet<string>;
  /** Anchored directory trees: every file under one gets half the boost. */
  readonly trees: ReadonlySet<string>;
  /** Symbol names the anchors mention (`Config`, `Config.load`), as written. */
  readonly symbols: readonly string[];
}

/** No anchors. */
export const NO_ANCHORS: AnchorHints = { files: new Set(), dirs: new Set(), trees: new Set(), symbols: [] };

/** A symbol with its score. */
export interface Ranked {
  readonly entry: NameEntry;
  readonly path: string;
  readonly score: number;
  readonly tier: Tier | "context";
}

/** The outcome of one scan. */
export interface FindResult {
  /** The best symbols, best first (ties by path, then line, then key). */
  readonly top: readonly Ranked[];
  /** How many symbols matched at all. */
  readonly total: number;
}

/** Orders best first; equal scores by path, line and key, so the order never depends on the scan. */
export function compareRanked(a: Ranked, b: Ranked): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  if (a.entry.startLine !== b.entry.startLine) return a.entry.startLine - b.entry.startLine;
  return a.entry.key < b.entry.key ? -1 : a.entry.key > b.entry.key ? 1 : 0;
}

/** How close each file is to the anchors: 1 anchored (or named in the query), 0.5 beside one or under an anchored tree. */
function fileProximity(table: NameTable, anchors: AnchorHints, named: ReadonlySet<string>): Map<number, number> {
  const proximity = new Map<number, number>();
  if (anchors.files.size + anchors.dirs.size + anchors.trees.size + named.size === 0) return proximity;
  for (const file of table.files()) {
    const base = file.path.slice(file.path.lastIndexOf("/") + 1).toLowerCase();
    if (anchors.files.has(file.path) || named.has(base)) proximity.set(file.id, 1);
    else if (anchors.dirs.has(posix.dirname(file.path))) proximity.set(file.id, 0.5);
    else {
      for (const tree of anchors.trees) {
        if (file.path.startsWith(`${tree}/`)) {
          proximity.set(file.id, 0.5);
          break;
        }
      }
    }
  }
  return proximity;
}

/** A term with the numbers the scan's quick reject needs. */
interface ScanTerm {
  readonly term: NameTerm;
  readonly mask: number;
  /** Mask bit of the first character: every match but a typo starts a word of the name with it. */
  readonly first: number;
  /** Typos are looked for (five letters or more): names of about the same length pass the first-letter test. */
  readonly typoable: boolean;
  readonly length: number;
  readonly stemMask: number | undefined;
}

function scanTerm(term: NameTerm): ScanTerm {
  const lower = term.lower;
  return {
    term,
    mask: term.mask,
    first: charMask(lower.charAt(0)),
    typoable: lower.length >= 5,
    length: lower.length,
    stemMask: term.stem?.mask,
  };
}

/** Scans the table for `terms`; keeps the best `limit`. */
export function findSymbols(table: NameTable, terms: QueryTerms, anchors: AnchorHints, limit: number): FindResult {
  const proximity = fileProximity(table, anchors, terms.files);
  const anchorNames = new Set(anchors.symbols.map((symbol) => symbol.replace(/::|#|->/g, ".").toLowerCase()));
  const anchored = proximity.size > 0 || anchorNames.size > 0;
  const phrases = new Map(terms.phrases.map((phrase) => [phrase.compact, phrase.size]));
  const scans = terms.names.map(scanTerm);
  const termCount = scans.length;
  // A phrase (letters and digits only) can only be a name with all its letters, starting with its
  // first, and not much longer (separators aside).
  const phraseScans = terms.phrases.map((phrase) => ({
    mask: charMask(phrase.compact),
    first: charMask(phrase.compact.charAt(0)),
    length: phrase.compact.length,
  }));
  const context: MatchContext = { containers: new Map() };
  const heap = new TopHeap(limit);
  const { entries, masks, initials, lengths, fileIds } = table.columns();
  // Which terms passed the quick reject for the symbol at hand: bit i for term i.
  let passed = 0;
  let total = 0;

  for (let index = 0; index < entries.length; index++) {
    const mask = masks[index] as number;
    const starts = initials[index] as number;
    const length = lengths[index] as number;
    passed = 0;
    // The quick reject, on the typed arrays only: every match but a typo starts a word of the
    // name with the term's first letter and has all its letters (or its stem's); a typo needs a
    // name of about the same length with at most one letter missing.
    for (let i = 0; i < termCount; i++) {
      const scan = scans[i] as ScanTerm;
      const missing = scan.mask & ~mask;
      if ((starts & scan.first) !== 0) {
        if (missing === 0 || (scan.stemMask !== undefined && (scan.stemMask & ~mask) === 0)) {
          passed |= 1 << i;
          continue;
        }
      }
      if (scan.typoable && (missing & (missing - 1)) === 0 && Math.abs(length - scan.length) <= 2) passed |= 1 << i;
    }
    let maybePhrase = false;
    for (const phrase of phraseScans) {
      if (
        (phrase.mask & ~mask) === 0 &&
        (starts & phrase.first) !== 0 &&
        length >= phrase.length &&
        length <= 2 * phrase.length
      ) {
        maybePhrase = true;
        break;
      }
    }
    if (passed === 0 && !maybePhrase && !anchored) continue;
    const entry = entries[index] as NameEntry;
    let tier = Tier.None;
    let quality = 0;
    let covered = 0;
    for (let i = 0; i < termCount; i++) {
      if ((passed & (1 << i)) === 0) continue;
      const match = matchSymbol((scans[i] as ScanTerm).term, entry, context);
      if (match.tier === Tier.None) continue;
      covered++;
      if (match.tier > tier || (match.tier === tier && match.quality > quality)) {
        tier = match.tier;
        quality = match.quality;
      }
    }
    // "pack frames" spells packFrames: as exact as spaces allow.
    if (maybePhrase) {
      const phrase = phrases.get(entry.compact);
      if (phrase !== undefined) {
        tier = Tier.Exact;
        quality = 1;
        covered = Math.max(covered, phrase);
      }
    }
    if (tier === Tier.None && !anchored) continue;
    let anchor = anchored ? (proximity.get(fileIds[index] as number) ?? 0) : 0;
    if (
      anchorNames.size > 0 &&
      (anchorNames.has(entry.lower) ||
        anchorNames.has(entry.qualifiedKey) ||
        (entry.containerKey !== undefined && anchorNames.has(entry.containerKey)))
    ) {
      anchor = 1;
    }
    if (tier === Tier.None && anchor < 1) continue;
    total++;
    const kindWanted = terms.kinds.size === 0 ? undefined : terms.kinds.has(entry.kind) ? 1 : 0;
    // Among equals, top-level declarations before members (`ts.createSourceFile` before a factory's method);
    // for anchor context alone, that is all there is to go by.
    const depth = entry.containerKey === undefined ? 0 : entry.qualifiedName.split(/\.|::/).length - 1;
    const within = tier === Tier.None ? (depth === 0 ? 1 : 0) : (quality * 3 + 1 / (1 + depth)) / 4;
    const score = symbolScore({
      tier: tier === Tier.None ? "context" : tier,
      exported: entry.exported,
      coverage: termCount > 0 ? covered / termCount : 0,
      anchor,
      quality: kindWanted === undefined ? within : (within + kindWanted) / 2,
    });
    const path = table.file(entry.fileId)?.path ?? "";
    heap.offer({ entry, path, score, tier: tier === Tier.None ? "context" : tier });
  }
  return { top: heap.sorted(), total };
}

/** Keeps the best `limit` items offered: a binary min-heap on {@link compareRanked}. */
class TopHeap {
  private readonly items: Ranked[] = [];

  constructor(private readonly limit: number) {}

  /** `a` is worse than `b`. */
  private worse(a: Ranked, b: Ranked): boolean {
    return compareRanked(a, b) > 0;
  }

  offer(item: Ranked): void {
    if (this.limit <= 0) return;
    const items = this.items;
    if (items.length < this.limit) {
      items.push(item);
      let at = items.length - 1;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!this.worse(items[at] as Ranked, items[parent] as Ranked)) break;
        [items[at], items[parent]] = [items[parent] as Ranked, items[at] as Ranked];
        at = parent;
      }
      return;
    }
    // The root is the worst kept: replace it only with something better.
    if (!this.worse(items[0] as Ranked, item)) return;
    items[0] = item;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let worst = at;
      if (left < items.length && this.worse(items[left] as Ranked, items[worst] as Ranked)) worst = left;
      if (right < items.length && this.worse(items[right] as Ranked, items[worst] as Ranked)) worst = right;
      if (worst === at) break;
      [items[at], items[worst]] = [items[worst] as Ranked, items[at] as Ranked];
      at = worst;
    }
  }

  sorted(): Ranked[] {
    return [...this.items].sort(compareRanked);
  }
}
