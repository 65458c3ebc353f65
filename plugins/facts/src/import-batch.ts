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
import type { Row, SubjectPredicate, VersionKey, WriteTx } from "./backend.js";
import { FACT_ERRORS, FactError } from "./errors.js";
import { checkInterval } from "./model.js";
import type { ParsedRecord } from "./records.js";
import { planSupersession } from "./supersede.js";
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
export function checkRestoredVersion(record: ParsedRecord, current: number | undefined, highest: number | undefined) {
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

// A separator no checked text contains (checkText refuses NUL), so two pairs never share a key.
const pairKey = (subject: string, predicate: string) => `${subject}\u0000${predicate}`;

/**
 * Imports checked records inside `tx` (see `FactStore.importBatch` for the rules):
 * a known id and version is skipped, a different one is a conflict that throws.
 */
export async function importRecords(tx: WriteTx, records: readonly ParsedRecord[]): Promise<ImportBatchResult> {
  const stored = new Map<string, Row>();
  const currentVersion = new Map<number, number>();
  const highest = new Map<number, number>();
  const seen = (row: { id: number; version: number }) =>
    highest.set(row.id, Math.max(highest.get(row.id) ?? 0, row.version));
  for (const row of await tx.versionsOf([...new Set(records.map((record) => record.id))])) {
    stored.set(`${row.id}@${row.version}`, row);
    if (row.supersededAt === null) currentVersion.set(row.id, row.version);
    seen(row);
  }
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
  let maxId = 0;
  let latest = Number.NEGATIVE_INFINITY;
  for (const record of records) {
    const key = `${record.id}@${record.version}`;
    const existing = stored.get(key);
    if (existing !== undefined) {
      const same =
        existing.subject === record.subject &&
        existing.predicate === record.predicate &&
        existing.statement === record.statement;
      if (!same) {
        throw new FactError(
          FACT_ERRORS.CONFLICT,
          `fact ${record.id} version ${record.version} is already stored with different content ` +
            `('${existing.subject} · ${existing.predicate}'); nothing of this batch was imported`,
        );
      }
      skipped++;
      continue;
    }
    const restoring = record.recordedAt !== undefined;
    const known = currentVersion.get(record.id);
    if (known !== undefined && (!restoring || record.supersededAt === null)) {
      throw new FactError(
        FACT_ERRORS.CONFLICT,
        `fact ${record.id} already has a current version (${known}); a record for version ${record.version} ` +
          `would be a second one; nothing of this batch was imported`,
      );
    }
    checkRestoredVersion(record, known, highest.get(record.id));
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
    stored.set(key, row);
    if (row.supersededAt === null) currentVersion.set(row.id, row.version);
    seen(row);
    maxId = Math.max(maxId, row.id);
    latest = Math.max(latest, row.recordedAt, row.supersededAt ?? row.recordedAt);
    inserted++;
    if (!restoring && functional.has(row.predicate)) {
      if (pendingPredicates.has(row.predicate)) {
        rows.push(...pending);
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
            currentVersion.set(other.id, other.version);
            continue;
          }
          const next: Row = {
            ...other,
            version: other.version + 1,
            validTo,
            recordedAt: now,
            supersededAt: null,
            op: "supersede",
            note: `superseded by fact ${row.id}`,
            actor: row.actor,
          };
          // A row of this batch is not stored yet: it goes in already closed.
          if (fromStore.has(other)) closed.push({ id: other.id, version: other.version });
          other.supersededAt = now;
          rows.push(next);
          track(next);
          currentVersion.set(next.id, next.version);
          seen(next);
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
  rows.push(...pending);
  // Closes first: a fact's new current version may only go in once its old one is closed.
  if (closed.length > 0) await tx.closeAll(closed);
  for (const { id, version, validTo } of amended) await tx.amendValidTo(id, version, validTo);
  if (rows.length > 0) await tx.insert(rows);
  if (maxId > 0) await tx.reserveIds(maxId);
  if (Number.isFinite(latest)) await tx.advanceClock(latest);
  return { inserted, skipped, superseded };
}
