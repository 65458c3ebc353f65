/**
 * The one storage interface, implemented twice: SQLite (`sqlite-backend.ts`)
 * and PostgreSQL (`pg-backend.ts`). It is deliberately small and dumb — rows
 * in, rows out, a monotonic clock, one write transaction at a time — so every
 * bi-temporal rule lives once, in `store.ts`, and both backends obey it.
 */
import type { FactOp } from "./model.js";

/** One version row, times in UTC milliseconds. */
export interface Row {
  id: number;
  version: number;
  subject: string;
  predicate: string;
  statement: string;
  validFrom: number;
  validTo: number | null;
  recordedAt: number;
  supersededAt: number | null;
  source: string | null;
  method: string | null;
  author: string | null;
  op: FactOp;
  note: string | null;
  actor: string | null;
}

/**
 * Which versions a read sees. `validAt`: the instant of valid time (facts true
 * then). `knownAt`: the instant of system time (what the store believed then);
 * undefined means current knowledge (versions not superseded).
 */
export interface TimeFilter {
  validAt: number;
  knownAt?: number;
}

/** A non-text listing: facts true at `time`, optionally of one subject and/or predicate. */
export interface ListFilter {
  time: TimeFilter;
  subject?: string;
  predicate?: string;
  limit: number;
}

/** One entry of the erasure log, times in milliseconds. */
export interface ErasureRow {
  at: number;
  ids: number[];
  versions: number;
  reason: string;
  actor: string | null;
}

/** A subject + predicate pair: what a functional predicate allows one value of at a time. */
export interface SubjectPredicate {
  readonly subject: string;
  readonly predicate: string;
}

/** One version of one fact. */
export interface VersionKey {
  readonly id: number;
  readonly version: number;
}

/** Reads; inside a write transaction they see its own writes. */
export interface Reader {
  /** The current version of fact `id` (any valid time), if the fact exists. */
  current(id: number): Promise<Row | undefined>;
  /** Every version of the given facts, ordered by id then version. */
  versionsOf(ids: readonly number[]): Promise<Row[]>;
  /** Every version of every fact that ever had `subject`, ordered by id then version. */
  historyOfSubject(subject: string): Promise<Row[]>;
  /** Current versions of `subject` + `predicate` (any valid time). */
  currentFor(subject: string, predicate: string): Promise<Row[]>;
  /**
   * Current versions of every given subject + predicate pair, in no particular order:
   * {@link currentFor} for a whole import batch at once (one round trip on a server).
   */
  currentForPairs(pairs: readonly SubjectPredicate[]): Promise<Row[]>;
  /** Versions matching a listing filter, ordered by subject, predicate, valid_from. */
  list(filter: ListFilter): Promise<Row[]>;
  /** How many versions' text matches `term` (any time), counting no further than `cap`. */
  countTerm(term: string, cap: number): Promise<number>;
  /**
   * Versions visible at `time` whose text matches every one of `terms` (stemmed as
   * the engine does), at most `limit`, in no particular order.
   */
  matchAll(terms: readonly string[], time: TimeFilter, limit: number): Promise<Row[]>;
  /** Predicates declared functional. */
  functionalPredicates(): Promise<Set<string>>;
  /** Versions in storage order after the cursor, for export: pass the returned cursor back. */
  scan(after: number, limit: number): Promise<{ rows: Row[]; cursor: number }>;
  /** The erasure log, oldest first. */
  erasures(): Promise<ErasureRow[]>;
  /** The id the store would assign next: every stored fact's id is below it. */
  firstFreeId(): Promise<number>;
}

/** A write transaction: its reads see its writes; all of it commits or none. */
export interface WriteTx extends Reader {
  /**
   * This transaction's system time: later than every earlier transaction's, whatever
   * the wall clock says. Taken on first use, so a transaction that records no time
   * (declaring a predicate functional) does not move the clock.
   */
  now(): Promise<number>;
  /** A new fact id, never used before (erased ids are not reused). */
  nextId(): Promise<number>;
  /**
   * Makes sure ids up to `maxId` are never handed out by {@link nextId} (imports bring their
   * own ids). Returns {@link Reader.firstFreeId} as it was before the call.
   */
  reserveIds(maxId: number): Promise<number>;
  /** Makes sure later transactions get system times after `time` (imports restore recorded history). */
  advanceClock(time: number): Promise<void>;
  insert(rows: readonly Row[]): Promise<void>;
  /** Ends the system interval of version `version` of fact `id` at this transaction's time. */
  close(id: number, version: number): Promise<void>;
  /** {@link close} for many versions at once (one statement): an import batch's supersessions. */
  closeAll(versions: readonly VersionKey[]): Promise<void>;
  /** Changes the valid_to of a version recorded in this same transaction (nobody saw the old value). */
  amendValidTo(id: number, version: number, validTo: number): Promise<void>;
  /** Deletes every version of the given facts; returns how many versions went. */
  remove(ids: readonly number[]): Promise<number>;
  logErasure(entry: ErasureRow): Promise<void>;
  setFunctional(predicate: string, functional: boolean): Promise<void>;
}

/** A storage backend. */
export interface FactBackend {
  readonly kind: "sqlite" | "postgresql";
  /** Where the store lives, for messages (a file path, or host/database without credentials). */
  readonly location: string;
  /** The store's default name in `fact://<name>/<id>` URIs. */
  readonly defaultName: string;
  /** True when the data stays on this machine (a file, a loopback or socket server): no egress. */
  readonly local: boolean;
  /** Runs `fn` in a read snapshot. */
  read<T>(fn: (reader: Reader) => Promise<T>): Promise<T>;
  /** Runs `fn` in one write transaction; writers are serialised. A throw rolls everything back. */
  write<T>(fn: (tx: WriteTx) => Promise<T>): Promise<T>;
  /**
   * After an erase: make deleted data unrecoverable from the files where the engine
   * allows (SQLite: checkpoint and truncate the WAL, whose old pages still hold it).
   */
  purge(): Promise<void>;
  /** After a bulk load: refresh the query planner's statistics, so searches keep using the indexes. */
  analyze(): Promise<void>;
  /** Releases the connection(s). */
  close(): Promise<void>;
}

/** The system-time source a backend ticks from; default the wall clock (PostgreSQL: the server's). */
export type Clock = () => number | Date;

/** Reads a clock as milliseconds. */
export function clockMillis(clock: Clock): number {
  const value = clock();
  return value instanceof Date ? value.getTime() : value;
}
