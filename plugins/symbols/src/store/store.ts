/**
 * The persisted index: one SQLite file (better-sqlite3) with a row per indexed file:
 * its size, mtime, sha256 and status, and its symbols as two JSON arrays — what
 * queries load (names, kinds, lines) and what they never need in memory (signatures,
 * docs). One row per file, not per symbol, makes a build's writes a few thousand
 * rows instead of a hundred thousand; the `symbols` view lays them out one row per
 * symbol for anyone querying the cache with SQL.
 *
 * The file format is versioned with `PRAGMA user_version`: a cache of ours written by
 * another format (or for another root) is emptied and rebuilt, never misread; a file that
 * is not a database at all is replaced. A database the plugin did not create is never
 * touched (ownership.ts), and the file is never reached through a link (cache-file.ts).
 * WAL mode and a busy timeout let two providers on the same root share the cache.
 *
 * `meta` holds the root the cache was made for and, once a build over the whole tree has
 * finished, `complete`: a cache without it is a first build cut short (its rows are
 * good; the files it lacks were never parsed), which a query must not present as whole.
 */
import { rmSync } from "node:fs";
import Database from "better-sqlite3";
import type { Logger } from "ocp-provider";
import { EMPTY_BAG, type TermBag } from "../extract/bag.js";
import type { ExtractedSymbol, ExtractionMethod, FileExtraction, FileStatus, Language, SymbolKind } from "../model.js";
import { checkOpenedAs, prepareDatabaseFile, SIDECARS } from "./cache-file.js";
import { APPLICATION_ID, ownerOf } from "./ownership.js";

/**
 * The format of the cache: bump it whenever the schema or what the extractors
 * produce changes, so every existing cache is rebuilt.
 */
export const INDEX_FORMAT = 4;

/** A bag as stored: little-endian uint32s (every platform Node runs on is little-endian). */
export function encodeBag(bag: TermBag): Buffer {
  const words = new Uint32Array(2 + bag.terms.length + bag.idents.length);
  words[0] = bag.terms.length / 2;
  words[1] = bag.length;
  words.set(bag.terms, 2);
  words.set(bag.idents, 2 + bag.terms.length);
  return Buffer.from(words.buffer, words.byteOffset, words.byteLength);
}

/** A stored bag read back; a missing or malformed one is empty. */
export function decodeBag(blob: Uint8Array | null | undefined): TermBag {
  if (blob === null || blob === undefined || blob.byteLength < 8 || blob.byteLength % 4 !== 0) return EMPTY_BAG;
  // Copied: a Buffer SQLite hands out need not be 4-byte aligned.
  const words = new Uint32Array(blob.byteLength / 4);
  new Uint8Array(words.buffer).set(blob);
  const pairs = words[0] as number;
  if (2 + 2 * pairs > words.length) return EMPTY_BAG;
  return {
    terms: words.subarray(2, 2 + 2 * pairs),
    idents: words.subarray(2 + 2 * pairs),
    length: words[1] as number,
  };
}

/** Symbol ids are `file id × this + position in the file`: stable while the file is unchanged. */
const IDS_PER_FILE = 1 << 20;

/** A file as the index last saw it. */
export interface FileRow {
  id: number;
  /** Root-relative, `/`-separated. */
  path: string;
  size: number;
  mtimeMs: number;
  /** sha256 hex of the bytes that were indexed. */
  hash: string;
  language: Language;
  method: ExtractionMethod;
  status: FileStatus;
  lineCount: number;
  /** When the file was read, epoch ms: an mtime this close to it may hide a later same-size write. */
  indexedAtMs: number;
}

/** A symbol as stored. */
export interface SymbolRow {
  id: number;
  fileId: number;
  /** Unique within the file: the qualified name, with `@L<line>` when the name repeats. */
  key: string;
  name: string;
  qualifiedName: string;
  kind: SymbolKind;
  container: string | null;
  startLine: number;
  endLine: number;
  docStartLine: number | null;
  signature: string;
  doc: string | null;
  exported: boolean;
}

/** A file as stored, with its symbols and its term bag. */
export interface StoredFile {
  file: FileRow;
  symbols: SymbolRow[];
  bag: TermBag;
}

/** What one write of a file holds. */
export interface FileWrite {
  path: string;
  size: number;
  mtimeMs: number;
  language: Language;
  method: ExtractionMethod;
  indexedAtMs: number;
  extraction: FileExtraction;
}

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  hash TEXT NOT NULL,
  language TEXT NOT NULL,
  method TEXT NOT NULL,
  status TEXT NOT NULL,
  line_count INTEGER NOT NULL,
  indexed_at_ms REAL NOT NULL,
  symbol_count INTEGER NOT NULL,
  -- [[key, name, qualified, kind, container, start_line, end_line, doc_start_line, exported], ...]
  names TEXT NOT NULL,
  -- [[signature, doc], ...], in the same order
  details TEXT NOT NULL,
  -- the file's term bag (extract/bag.ts), as little-endian uint32:
  -- term pair count, word count, [hash, count] pairs, then identifier hashes
  bag BLOB
);
CREATE VIEW symbols AS
SELECT f.id * ${IDS_PER_FILE} + n.key AS id, f.id AS file_id, f.path AS path,
  n.value ->> 0 AS key, n.value ->> 1 AS name, n.value ->> 2 AS qualified, n.value ->> 3 AS kind,
  n.value ->> 4 AS container, n.value ->> 5 AS start_line, n.value ->> 6 AS end_line,
  n.value ->> 7 AS doc_start_line, json_extract(f.details, '$[' || n.key || '][0]') AS signature,
  json_extract(f.details, '$[' || n.key || '][1]') AS doc, n.value ->> 8 AS exported
FROM files f, json_each(f.names) n;
`;

const FILE_COLUMNS =
  "id, path, size, mtime_ms AS mtimeMs, hash, language, method, status, line_count AS lineCount, indexed_at_ms AS indexedAtMs";

type NameTuple = [string, string, string, SymbolKind, string | null, number, number, number | null, 0 | 1];
type DetailTuple = [string, string | null];

/** The symbols of one file from its JSON columns (`details` omitted: empty signatures, no docs). */
function symbolsFrom(fileId: number, names: string, details?: string): SymbolRow[] {
  const extra = details !== undefined ? (JSON.parse(details) as DetailTuple[]) : undefined;
  return (JSON.parse(names) as NameTuple[]).map((tuple, i) => ({
    id: fileId * IDS_PER_FILE + i,
    fileId,
    key: tuple[0],
    name: tuple[1],
    qualifiedName: tuple[2],
    kind: tuple[3],
    container: tuple[4],
    startLine: tuple[5],
    endLine: tuple[6],
    docStartLine: tuple[7],
    signature: extra?.[i]?.[0] ?? "",
    doc: extra?.[i]?.[1] ?? null,
    exported: tuple[8] === 1,
  }));
}

/**
 * The rows of one file's symbols: `keys` from {@link symbolKeys}, ids counting up from
 * `firstId`. Built field by field: a build makes tens of thousands, and spreads are slow.
 */
export function symbolRows(
  symbols: readonly ExtractedSymbol[],
  keys: readonly string[],
  fileId: number,
  firstId: number,
): SymbolRow[] {
  return symbols.map((symbol, i) => ({
    id: firstId + i,
    fileId,
    key: keys[i] as string,
    name: symbol.name,
    qualifiedName: symbol.qualifiedName,
    kind: symbol.kind,
    container: symbol.container ?? null,
    startLine: symbol.startLine,
    endLine: symbol.endLine,
    docStartLine: symbol.docStartLine ?? null,
    signature: symbol.signature,
    doc: symbol.doc ?? null,
    exported: symbol.exported,
  }));
}

/** Keys unique within a file: `Config.size` twice (getter and setter) becomes `Config.size@L43`, `Config.size@L47`. */
export function symbolKeys(symbols: readonly ExtractedSymbol[]): string[] {
  const counts = new Map<string, number>();
  for (const symbol of symbols) counts.set(symbol.qualifiedName, (counts.get(symbol.qualifiedName) ?? 0) + 1);
  const seen = new Set<string>();
  return symbols.map((symbol) => {
    let key =
      (counts.get(symbol.qualifiedName) ?? 0) > 1
        ? `${symbol.qualifiedName}@L${symbol.startLine}`
        : symbol.qualifiedName;
    for (let n = 2; seen.has(key); n++) key = `${symbol.qualifiedName}@L${symbol.startLine}#${n}`;
    seen.add(key);
    return key;
  });
}

/** Options of {@link SymbolStore.open}. */
export interface StoreOptions {
  /** The database file, or `:memory:`. */
  file: string;
  /** The root the paths are relative to: a cache made for another root is rebuilt. */
  root: string;
  log: Logger;
}

/** The SQLite side of the index. Synchronous: better-sqlite3 is, and a transaction per batch keeps it short. */
export class SymbolStore {
  private readonly statements;
  private readonly writeTransaction: (writes: readonly FileWrite[]) => StoredFile[];
  private completed: boolean;

  private constructor(
    private readonly db: Database.Database,
    /** The database file, or `:memory:`. */
    readonly location: string,
  ) {
    // Prepared once: a build writes thousands of rows through these.
    this.statements = {
      insertFile: db.prepare(
        "INSERT INTO files (path, size, mtime_ms, hash, language, method, status, line_count, indexed_at_ms, " +
          "symbol_count, names, details, bag) VALUES (@path, @size, @mtime, @hash, @language, @method, @status, " +
          "@lines, @at, @count, @names, @details, @bag) ON CONFLICT (path) DO UPDATE SET size = @size, " +
          "mtime_ms = @mtime, hash = @hash, language = @language, method = @method, status = @status, " +
          "line_count = @lines, indexed_at_ms = @at, symbol_count = @count, names = @names, details = @details, " +
          "bag = @bag RETURNING id",
      ),
    };
    this.writeTransaction = db.transaction((writes: readonly FileWrite[]) =>
      writes.map((write) => this.writeOne(write)),
    );
    this.completed = db.prepare("SELECT 1 FROM meta WHERE key = 'complete'").get() !== undefined;
  }

  /** A build over the whole tree has finished into this cache (by this process or an earlier one). */
  get complete(): boolean {
    return this.completed;
  }

  /** Records that a build over the whole tree finished: the cache is no longer a first build cut short. */
  markComplete(): void {
    this.db
      .prepare(
        "INSERT INTO meta (key, value) VALUES ('complete', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      )
      .run(new Date().toISOString());
    this.completed = true;
  }

  /** Opens (creating, upgrading or replacing as needed) the cache at `options.file`. */
  static open(options: StoreOptions): SymbolStore {
    let db: Database.Database;
    try {
      db = connect(options);
    } catch (error) {
      if (options.file === ":memory:" || !isNotADatabase(error)) throw error;
      options.log.warn(`cache ${options.file} is not a usable database (${(error as Error).message}); replacing it`);
      // Checked as plain files by the failed connect (and rm removes a link, never what it names).
      for (const suffix of ["", ...SIDECARS]) rmSync(`${options.file}${suffix}`, { force: true });
      db = connect(options);
    }
    return new SymbolStore(db, options.file);
  }

  /** Every indexed file. */
  files(): FileRow[] {
    return this.db.prepare(`SELECT ${FILE_COLUMNS} FROM files`).all() as FileRow[];
  }

  /** One file by path. */
  file(path: string): FileRow | undefined {
    return this.db.prepare(`SELECT ${FILE_COLUMNS} FROM files WHERE path = ?`).get(path) as FileRow | undefined;
  }

  /**
   * Every file with its symbols, without their signatures and docs (empty): what the
   * in-memory name table is loaded from at start.
   */
  filesWithNames(): StoredFile[] {
    const rows = this.db.prepare(`SELECT ${FILE_COLUMNS}, names, bag FROM files ORDER BY id`).all() as (FileRow & {
      names: string;
      bag: Buffer | null;
    })[];
    return rows.map(({ names, bag, ...file }) => ({ file, symbols: symbolsFrom(file.id, names), bag: decodeBag(bag) }));
  }

  /** The symbols of one file, with signatures and docs. */
  symbolsOf(fileId: number): SymbolRow[] {
    const row = this.db.prepare("SELECT names, details FROM files WHERE id = ?").get(fileId) as
      | { names: string; details: string }
      | undefined;
    return row === undefined ? [] : symbolsFrom(fileId, row.names, row.details);
  }

  /** Symbols by id, with signatures and docs; ids of files since re-indexed may name other symbols or none. */
  symbolsById(ids: readonly number[]): SymbolRow[] {
    const wanted = new Set(ids);
    const files = new Set(ids.map((id) => Math.floor(id / IDS_PER_FILE)));
    return [...files].flatMap((fileId) => this.symbolsOf(fileId).filter((symbol) => wanted.has(symbol.id)));
  }

  /** Replaces files and their symbols in one transaction; returns each file's row and symbols. */
  writeFiles(writes: readonly FileWrite[]): StoredFile[] {
    return this.writeTransaction(writes);
  }

  private writeOne(write: FileWrite): StoredFile {
    const { extraction } = write;
    const keys = symbolKeys(extraction.symbols);
    const names: NameTuple[] = extraction.symbols.map((symbol, i) => [
      keys[i] as string,
      symbol.name,
      symbol.qualifiedName,
      symbol.kind,
      symbol.container ?? null,
      symbol.startLine,
      symbol.endLine,
      symbol.docStartLine ?? null,
      symbol.exported ? 1 : 0,
    ]);
    const details: DetailTuple[] = extraction.symbols.map((symbol) => [symbol.signature, symbol.doc ?? null]);
    const { id } = this.statements.insertFile.get({
      path: write.path,
      size: write.size,
      mtime: write.mtimeMs,
      hash: extraction.hash,
      language: write.language,
      method: write.method,
      status: extraction.status,
      lines: extraction.lineCount,
      at: write.indexedAtMs,
      count: names.length,
      names: JSON.stringify(names),
      details: JSON.stringify(details),
      bag: extraction.bag !== undefined ? encodeBag(extraction.bag) : null,
    }) as { id: number };
    const file: FileRow = {
      id,
      path: write.path,
      size: write.size,
      mtimeMs: write.mtimeMs,
      hash: extraction.hash,
      language: write.language,
      method: write.method,
      status: extraction.status,
      lineCount: extraction.lineCount,
      indexedAtMs: write.indexedAtMs,
    };
    const symbols = symbolRows(extraction.symbols, keys, id, id * IDS_PER_FILE);
    return { file, symbols, bag: extraction.bag ?? EMPTY_BAG };
  }

  /** Records that a file's bytes are unchanged under a new size/mtime (a `touch`, a checkout). */
  touchFile(id: number, stat: { size: number; mtimeMs: number }, indexedAtMs: number): void {
    this.db
      .prepare("UPDATE files SET size = ?, mtime_ms = ?, indexed_at_ms = ? WHERE id = ?")
      .run(stat.size, stat.mtimeMs, indexedAtMs, id);
  }

  /** Forgets files (and their symbols) by id. */
  deleteFiles(ids: readonly number[]): void {
    if (ids.length === 0) return;
    this.db.prepare("DELETE FROM files WHERE id IN (SELECT value FROM json_each(?))").run(JSON.stringify(ids));
  }

  /** How many files and symbols the cache holds. */
  counts(): { files: number; symbols: number } {
    const row = this.db.prepare("SELECT count(*) AS files, coalesce(sum(symbol_count), 0) AS symbols FROM files").get();
    return row as { files: number; symbols: number };
  }

  /** Closes the database; later calls do nothing. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}

function isNotADatabase(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT";
}

/**
 * Opens the file and makes its schema this format's, rebuilding an incompatible cache of
 * ours. Nothing is written before the file is known to be ours: a foreign database is
 * refused as it was found.
 */
function connect(options: StoreOptions): Database.Database {
  const onDisk = options.file !== ":memory:";
  const realPath = onDisk ? prepareDatabaseFile(options.file) : undefined;
  // The file exists now (made above, not through a link): SQLite must not create one elsewhere.
  const db = new Database(options.file, { fileMustExist: onDisk });
  try {
    db.pragma("busy_timeout = 5000");
    if (realPath !== undefined) {
      const [main] = db.pragma("database_list") as { name: string; file: string }[];
      checkOpenedAs(main?.file ?? "", options.file, realPath);
    }
    ownerOf(db, options.file);
    if (onDisk) db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    // IMMEDIATE: two providers starting together must not both rebuild the schema.
    db.transaction(() => {
      const owner = ownerOf(db, options.file);
      const version = db.pragma("user_version", { simple: true }) as number;
      const root =
        owner !== "empty" && version === INDEX_FORMAT
          ? (db.prepare("SELECT value FROM meta WHERE key = 'root'").get() as { value: string } | undefined)?.value
          : undefined;
      if (version === INDEX_FORMAT && root === options.root) {
        // A cache of this format from before the mark: ours, so marked now rather than rebuilt.
        if (owner === "unmarked") db.pragma(`application_id = ${APPLICATION_ID}`);
        return;
      }
      if (owner !== "empty") {
        const why = version !== INDEX_FORMAT ? `format ${version}, this is ${INDEX_FORMAT}` : `made for root ${root}`;
        options.log.info(`cache ${options.file} is incompatible (${why}); rebuilding it`);
      }
      // Whatever an older format of ours left, tables or views, goes.
      const objects = db
        .prepare("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'")
        .all() as { type: "table" | "view"; name: string }[];
      for (const { type, name } of objects)
        db.exec(`DROP ${type.toUpperCase()} IF EXISTS "${name.replaceAll('"', '""')}"`);
      db.exec(SCHEMA);
      db.prepare("INSERT INTO meta (key, value) VALUES ('root', ?)").run(options.root);
      db.pragma(`user_version = ${INDEX_FORMAT}`);
      db.pragma(`application_id = ${APPLICATION_ID}`);
    }).immediate();
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
