/**
 * The in-memory side of the index: every symbol's name, prepared for matching, by
 * file. Queries scan it (a character mask rules most names out with one AND), so
 * they never wait on SQLite; the store holds the rest (signatures, docs) and is read
 * only for the few symbols that ship. It is kept in step with the store file by
 * file, so queries during the first build see every file written so far.
 */
import { EMPTY_BAG, type TermBag } from "../extract/bag.js";
import type { SymbolKind } from "../model.js";
import type { FileRow, SymbolRow } from "../store/store.js";
import type { MatchableName } from "./match.js";
import { charMask, compactForm, initialsMask, splitWords } from "./words.js";

const normalise = (qualified: string) => qualified.replace(/::|#|->/g, ".");

/**
 * One symbol as queries see it. Built for tens of thousands of symbols at a time, so
 * only what every match needs (the lower-case name and its character mask) is computed
 * up front; subwords and normalised names are computed on first use and kept.
 */
export class NameEntry implements MatchableName {
  readonly id: number;
  readonly fileId: number;
  readonly key: string;
  readonly name: string;
  readonly lower: string;
  readonly mask: number;
  readonly initials: number;
  /** The qualified name as written (`Config::retry`). */
  readonly qualifiedName: string;
  /** The container's qualified name as written. */
  readonly container: string | undefined;
  readonly kind: SymbolKind;
  readonly exported: boolean;
  readonly startLine: number;
  readonly endLine: number;
  /** Where the doc comment above it starts, if it has one: frames start there. */
  readonly docStartLine: number | undefined;
  private wordsCache: string[] | undefined;
  private compactCache: string | undefined;
  private normalCache: string | undefined;
  private keyCache: string | undefined;
  private containerCache: string | null | undefined;

  constructor(row: SymbolRow) {
    this.id = row.id;
    this.fileId = row.fileId;
    this.key = row.key;
    this.name = row.name;
    this.lower = row.name.toLowerCase();
    this.mask = charMask(this.lower);
    this.initials = initialsMask(row.name);
    this.qualifiedName = row.qualifiedName;
    this.container = row.container ?? undefined;
    this.kind = row.kind;
    this.exported = row.exported;
    this.startLine = row.startLine;
    this.endLine = row.endLine;
    this.docStartLine = row.docStartLine ?? undefined;
  }

  /** The name's subwords, lower-case. */
  get words(): readonly string[] {
    this.wordsCache ??= splitWords(this.name);
    return this.wordsCache;
  }

  /** The name lower-cased without separators. */
  get compact(): string {
    this.compactCache ??= compactForm(this.name);
    return this.compactCache;
  }

  /** Qualified, `.`-separated: what qualified terms compare with (case-sensitive). */
  get qualifiedNormal(): string {
    this.normalCache ??= normalise(this.qualifiedName);
    return this.normalCache;
  }

  /** {@link qualifiedNormal} lower-cased. */
  get qualifiedKey(): string {
    this.keyCache ??= this.qualifiedNormal.toLowerCase();
    return this.keyCache;
  }

  /** The container's qualified name, `.`-separated and lower-case. */
  get containerKey(): string | undefined {
    if (this.containerCache === undefined) {
      this.containerCache = this.container !== undefined ? normalise(this.container).toLowerCase() : null;
    }
    return this.containerCache ?? undefined;
  }
}

/** Adds `delta` to the document frequency of every term of `bag`. */
function countTerms(frequencies: Map<number, number>, bag: TermBag, delta: number): void {
  const terms = bag.terms;
  for (let i = 0; i < terms.length; i += 2) {
    const hash = terms[i] as number;
    const count = (frequencies.get(hash) ?? 0) + delta;
    if (count > 0) frequencies.set(hash, count);
    else frequencies.delete(hash);
  }
}

/** Prepares a stored symbol for matching. */
export function nameEntry(row: SymbolRow): NameEntry {
  return new NameEntry(row);
}

/**
 * Every symbol in one flat list, with what a scan's quick reject reads in typed arrays
 * beside it: scanning tens of thousands of objects spread over the heap is bound by
 * cache misses, scanning four small arrays is not.
 */
export interface NameColumns {
  readonly entries: readonly NameEntry[];
  readonly masks: Int32Array;
  readonly initials: Int32Array;
  /** Name lengths (UTF-16 units, capped at 65535). */
  readonly lengths: Uint16Array;
  readonly fileIds: Int32Array;
}

/** Every indexed file and symbol, in memory. */
export class NameTable {
  private readonly entriesByFile = new Map<number, readonly NameEntry[]>();
  private columnsCache: NameColumns | undefined;
  private readonly filesById = new Map<number, FileRow>();
  private readonly idsByPath = new Map<string, number>();
  private readonly entriesByName = new Map<string, NameEntry[]>();
  private readonly bagsByFile = new Map<number, TermBag>();
  /** In how many files each term hash occurs: made on first use, then kept in step. */
  private frequencies: Map<number, number> | undefined;
  private wordTotal = 0;
  private symbolTotal = 0;
  /** Bumped by every change: what caches derived from the table (the reference graph) compare. */
  private changes = 0;

  /** How many symbols the table holds. */
  get symbolCount(): number {
    return this.symbolTotal;
  }

  /** How many files the table holds. */
  get fileCount(): number {
    return this.filesById.size;
  }

  /** The flat, columnar view of every symbol; rebuilt on first use after a change. */
  columns(): NameColumns {
    if (this.columnsCache !== undefined) return this.columnsCache;
    const total = this.symbolTotal;
    const entries: NameEntry[] = new Array(total);
    const masks = new Int32Array(total);
    const initials = new Int32Array(total);
    const lengths = new Uint16Array(total);
    const fileIds = new Int32Array(total);
    let i = 0;
    for (const group of this.entriesByFile.values()) {
      for (const entry of group) {
        entries[i] = entry;
        masks[i] = entry.mask;
        initials[i] = entry.initials;
        lengths[i] = Math.min(entry.lower.length, 65535);
        fileIds[i] = entry.fileId;
        i++;
      }
    }
    this.columnsCache = { entries, masks, initials, lengths, fileIds };
    return this.columnsCache;
  }

  /** Bumped by every change of files or symbols. */
  get version(): number {
    return this.changes;
  }

  /** Puts a file and its symbols (and its term bag) in, replacing what the table held for it. */
  setFile(file: FileRow, symbols: readonly SymbolRow[], bag: TermBag = EMPTY_BAG): void {
    this.columnsCache = undefined;
    const previous = this.idsByPath.get(file.path);
    if (previous !== undefined) this.removeFile(previous);
    this.changes++;
    const entries = symbols.map(nameEntry);
    this.bagsByFile.set(file.id, bag);
    this.wordTotal += bag.length;
    if (this.frequencies !== undefined) countTerms(this.frequencies, bag, 1);
    this.filesById.set(file.id, file);
    this.idsByPath.set(file.path, file.id);
    this.entriesByFile.set(file.id, entries);
    this.symbolTotal += entries.length;
    for (const entry of entries) {
      const same = this.entriesByName.get(entry.name);
      if (same === undefined) this.entriesByName.set(entry.name, [entry]);
      else same.push(entry);
    }
  }

  /** Updates a file's row alone (same bytes, new size or mtime). */
  updateFile(file: FileRow): void {
    if (this.filesById.has(file.id)) this.filesById.set(file.id, file);
  }

  /** Takes a file and its symbols out. */
  removeFile(fileId: number): void {
    const file = this.filesById.get(fileId);
    if (file === undefined) return;
    this.columnsCache = undefined;
    this.changes++;
    const bag = this.bagsByFile.get(fileId) ?? EMPTY_BAG;
    this.wordTotal -= bag.length;
    if (this.frequencies !== undefined) countTerms(this.frequencies, bag, -1);
    this.bagsByFile.delete(fileId);
    const entries = this.entriesByFile.get(fileId) ?? [];
    this.symbolTotal -= entries.length;
    for (const entry of entries) {
      const same = this.entriesByName.get(entry.name) ?? [];
      const rest = same.filter((other) => other.fileId !== fileId);
      if (rest.length > 0) this.entriesByName.set(entry.name, rest);
      else this.entriesByName.delete(entry.name);
    }
    this.entriesByFile.delete(fileId);
    this.filesById.delete(fileId);
    this.idsByPath.delete(file.path);
  }

  /** A file by id. */
  file(fileId: number): FileRow | undefined {
    return this.filesById.get(fileId);
  }

  /** A file by root-relative path. */
  fileByPath(path: string): FileRow | undefined {
    const id = this.idsByPath.get(path);
    return id !== undefined ? this.filesById.get(id) : undefined;
  }

  /** Every file. */
  files(): IterableIterator<FileRow> {
    return this.filesById.values();
  }

  /** The symbols of one file, in line order. */
  entriesOf(fileId: number): readonly NameEntry[] {
    return this.entriesByFile.get(fileId) ?? [];
  }

  /** Every file's symbols: what a query scans. */
  groups(): IterableIterator<readonly NameEntry[]> {
    return this.entriesByFile.values();
  }

  /** A file's term bag (empty for a file indexed without one). */
  bag(fileId: number): TermBag {
    return this.bagsByFile.get(fileId) ?? EMPTY_BAG;
  }

  /** The mean number of words in a file's bag. */
  get meanWords(): number {
    return this.filesById.size > 0 ? this.wordTotal / this.filesById.size : 0;
  }

  /** In how many files a term hash occurs. */
  documentFrequency(hash: number): number {
    if (this.frequencies === undefined) {
      this.frequencies = new Map();
      for (const bag of this.bagsByFile.values()) countTerms(this.frequencies, bag, 1);
    }
    return this.frequencies.get(hash) ?? 0;
  }

  /** Symbols with exactly this name (case-sensitive). */
  named(name: string): readonly NameEntry[] {
    return this.entriesByName.get(name) ?? [];
  }
}
