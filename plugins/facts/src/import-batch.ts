/**
 * One import batch, planned in memory and written in a few set-wide statements.
 *
 * The rules are those of writing the records one by one — `FactStore.place()` for
 * each new fact of a functional predicate, every other row as it comes — and the
 * stored result is the same, down to the order rows are stored in. Only the I/O
 * differs: the current facts of every functional subject + predicate in the batch
 * are read in one query up front, supersession runs on those rows in memory (kept
 * up to date as the batch goes), and the writes go out at the end: the closed
 * versions in one statement, then every new row in one bulk insert. A record-by-
 * record import made two to four round trips per functional record on PostgreSQL,
 * and on SQLite a one-row statement each, which costs a full-text segment each.
 */
import type { Reader, Row, SubjectPredicate, VersionKey, WriteTx } from "./backend.js";
import { FACT_ERRORS, FactError } from "./errors.js";
import { checkInterval } from "./model.js";
import type { ParsedRecord } from "./records.js";
import { planSupersession, supersedingVersion } from "./supersede.js";
import { formatTime } from "./time.js";

/** What one atomic import batch did. */
export interface ImportBatchResult {
  /** Records written as new versions. */
  readonly inserted: number;
  /** Records already in the store under the same id (and version): skipped, so a re-run is harmless. */
  readonly skipped: number;
  /** Versions of other facts closed because an imported fact superseded them. */
  readonly superseded: number;
}

/**
 * Refuses a restored version that would leave a fact's current version below its own
 * history. The store's next write to that fact (a supersession, a correction) makes
 * version current + 1, which would then collide with the history above it: better a
 * clear refusal now than a constraint error later.
 */
function checkRestoredVersion(record: ParsedRecord, current: number | undefined, highest: number | undefined) {
  if (record.recordedAt === undefined) return;
  const below =
    record.supersededAt === null
      ? highest !== undefined && highest > record.version
      : current !== undefined && record.version > current;
  if (below) {
    throw new FactError(
      FACT_ERRORS.CONFLICT,
      `fact ${record.id}: a current version must be its latest, but version ${record.version} ` +
        (record.supersededAt === null
          ? `would be current below stored version ${highest}`
          : `would be history above current version ${current}`) +
        "; nothing of this batch was imported",
    );
  }
}

/** Whether a stored version says what `record` says: then the record is a re-run's, and skipped. */
function sameContent(stored: Row, record: ParsedRecord): boolean {
  return (
    stored.subject === record.subject && stored.predicate === record.predicate && stored.statement === record.statement
  );
}

/**
 * The records whose id and version `reader` already holds with different content: what
 * {@link ImportLedger.admit} refuses a batch for, found without writing anything.
 */
export async function findClashes(
  reader: Reader,
  records: readonly ParsedRecord[],
): Promise<{ record: ParsedRecord; stored: Row }[]> {
  const stored = new Map<string, Row>();
  for (const row of await reader.versionsOf([...new Set(records.map((record) => record.id))])) {
    stored.set(`${row.id}@${row.version}`, row);
  }
  const clashes: { record: ParsedRecord; stored: Row }[] = [];
  for (const record of records) {
    const row = stored.get(`${record.id}@${record.version}`);
    if (row !== undefined && !sameContent(row, record)) clashes.push({ record, stored: row });
  }
  return clashes;
}

/**
 * What an import knows of the versions of the facts its records name, and the checks
 * every record passes before it is planned or written. Both importers (this one and the
 * tests' record-at-a-time reference) admit records through it.
 */
export class ImportLedger {
  readonly #stored = new Map<string, Row>();
  readonly #current = new Map<number, number>();
  readonly #highest = new Map<number, number>();
  #maxId = 0;
  #latest = Number.NEGATIVE_INFINITY;

  /** Reads the stored versions of every fact `records` name. */
  static async load(tx: WriteTx, records: readonly ParsedRecord[]): Promise<ImportLedger> {
    const ledger = new ImportLedger();
    for (const row of await tx.versionsOf([...new Set(records.map((record) => record.id))])) {
      ledger.#stored.set(`${row.id}@${row.version}`, row);
      ledger.note(row);
    }
    return ledger;
  }

  /**
   * Checks `record` against what is stored and what the batch has admitted so far: the
   * row to write (system time `now` for a new fact), or undefined for a version already
   * stored with the same content. Throws a conflict otherwise.
   */
  admit(record: ParsedRecord, now: number): Row | undefined {
    const key = `${record.id}@${record.version}`;
    const existing = this.#stored.get(key);
    if (existing !== undefined) {
      if (!sameContent(existing, record)) {
        throw new FactError(
          FACT_ERRORS.CONFLICT,
          `fact ${record.id} version ${record.version} is already stored with different content ` +
            `('${existing.subject} · ${existing.predicate}'); nothing of this batch was imported`,
        );
      }
      return undefined;
    }
    const restoring = record.recordedAt !== undefined;
    const known = this.#current.get(record.id);
    if (known !== undefined && (!restoring || record.supersededAt === null)) {
      throw new FactError(
        FACT_ERRORS.CONFLICT,
        `fact ${record.id} already has a current version (${known}); a record for version ${record.version} ` +
          `would be a second one; nothing of this batch was imported`,
      );
    }
    checkRestoredVersion(record, known, this.#highest.get(record.id));
    const validFrom = record.validFrom ?? now;
    if (!restoring) {
      const validTo = record.validTo;
      checkInterval(
        validFrom,
        validTo,
        () => `valid_from ${formatTime(validFrom)}, valid_to ${formatTime(validTo ?? 0)}`,
      );
    }
    const row: Row = { ...record, validFrom, recordedAt: record.recordedAt ?? now };
    this.#stored.set(key, row);
    this.note(row);
    this.#maxId = Math.max(this.#maxId, row.id);
    this.#latest = Math.max(this.#latest, row.recordedAt, row.supersededAt ?? row.recordedAt);
    return row;
  }

  /** Notes a version the store holds or the import writes (a supersession's new version too). */
  note(row: { id: number; version: number; supersededAt: number | null }): void {
    if (row.supersededAt === null) this.#current.set(row.id, row.version);
    this.#highest.set(row.id, Math.max(this.#highest.get(row.id) ?? 0, row.version));
  }

  /** Reserves the imported ids and moves the clock past the restored history. */
  async finish(tx: WriteTx): Promise<void> {
    if (this.#maxId > 0) await tx.reserveIds(this.#maxId);
    if (Number.isFinite(this.#latest)) await tx.advanceClock(this.#latest);
  }
}

/**
 * Appends `source` to `target` one element at a time. `target.push(...source)` passes every
 * element as an argument, and a batch of 150,000 rows overflows the call stack.
 */
function append<T>(target: T[], source: readonly T[]): void {
  for (const item of source) target.push(item);
}

// A separator no checked text contains (checkText refuses NUL), so two pairs never share a key.
const pairKey = (subject: string, predicate: string) => `${subject}\u0000${predicate}`;

/**
 * Imports checked records inside `tx` (see `FactStore.importBatch` for the rules):
 * a known id and version is skipped, a different one is a conflict that throws.
 */
export async function importRecords(tx: WriteTx, records: readonly ParsedRecord[]): Promise<ImportBatchResult> {
  const ledger = await ImportLedger.load(tx, records);
  const functional = await tx.functionalPredicates();
  // System time is taken once, and only if some record is new (restored ones bring theirs).
  const now = records.some((record) => record.recordedAt === undefined) ? await tx.now() : 0;

  // The current versions of every pair a new functional fact will reconcile with: read
  // once, then kept current in memory (rows this batch adds, versions it closes).
  const pairs = new Map<string, SubjectPredicate>();
  for (const record of records) {
    if (record.recordedAt === undefined && functional.has(record.predicate)) {
      pairs.set(pairKey(record.subject, record.predicate), { subject: record.subject, predicate: record.predicate });
    }
  }
  const current = new Map<string, Row[]>([...pairs.keys()].map((key) => [key, []]));
  const fromStore = new Set<Row>();
  if (pairs.size > 0) {
    for (const row of await tx.currentForPairs([...pairs.values()])) {
      current.get(pairKey(row.subject, row.predicate))?.push(row);
      fromStore.add(row);
    }
  }
  const track = (row: Row) => {
    if (row.supersededAt === null) current.get(pairKey(row.subject, row.predicate))?.push(row);
  };

  // Rows in the order the record-by-record import stored them: a functional fact (after
  // the versions it closes) at once; other rows wait, and go in before the next functional
  // fact of one of their predicates, since supersession read that predicate's rows.
  const rows: Row[] = [];
  const closed: VersionKey[] = [];
  const amended: (VersionKey & { validTo: number })[] = [];
  let pending: Row[] = [];
  const pendingPredicates = new Set<string>();
  let inserted = 0;
  let skipped = 0;
  let superseded = 0;
  for (const record of records) {
    const row = ledger.admit(record, now);
    if (row === undefined) {
      skipped++;
      continue;
    }
    inserted++;
    if (record.recordedAt === undefined && functional.has(row.predicate)) {
      if (pendingPredicates.has(row.predicate)) {
        append(rows, pending);
        pending = [];
        pendingPredicates.clear();
      }
      const holds = row.validTo === null || row.validTo > row.validFrom;
      const others = current.get(pairKey(row.subject, row.predicate)) ?? [];
      if (holds) {
        // As the store reads them: current versions only, by id, the newcomer's own id excluded.
        const live = others.filter((other) => other.supersededAt === null && other.id !== row.id);
        live.sort((a, b) => a.id - b.id);
        const plan = planSupersession(row, live);
        row.validTo = plan.validTo;
        for (const { id, validTo } of plan.close) {
          const other = live.find((candidate) => candidate.id === id) as Row;
          superseded++;
          if (other.recordedAt === now) {
            // Recorded in this same transaction: nobody ever saw the longer interval, so no new version.
            if (fromStore.has(other)) amended.push({ id: other.id, version: other.version, validTo });
            other.validTo = validTo;
            continue;
          }
          const next = supersedingVersion(other, row, validTo, now);
          // A row of this batch is not stored yet: it goes in already closed.
          if (fromStore.has(other)) closed.push({ id: other.id, version: other.version });
          other.supersededAt = now;
          rows.push(next);
          track(next);
          ledger.note(next);
        }
        // Closed versions leave the pair's current rows.
        current.set(
          pairKey(row.subject, row.predicate),
          others.filter((other) => other.supersededAt === null),
        );
      }
      rows.push(row);
      track(row);
    } else {
      pending.push(row);
      pendingPredicates.add(row.predicate);
      track(row);
    }
  }
  append(rows, pending);
  // Closes first: a fact's new current version may only go in once its old one is closed.
  if (closed.length > 0) await tx.closeAll(closed);
  for (const { id, version, validTo } of amended) await tx.amendValidTo(id, version, validTo);
  if (rows.length > 0) await tx.insert(rows);
  await ledger.finish(tx);
  return { inserted, skipped, superseded };
}
