/**
 * The reference an import batch is checked against: the record-at-a-time import
 * the store ran before batches were planned in memory (`import-batch.ts`). Each
 * functional fact reads its subject + predicate from storage and writes its
 * supersession at once; other rows wait until a functional fact of their predicate
 * needs them stored. Slow and obviously right; kept only for the tests.
 */
import type { FactBackend, Row } from "../backend.js";
import { FACT_ERRORS, FactError } from "../errors.js";
import { checkRestoredVersion, type ImportBatchResult } from "../import-batch.js";
import { checkInterval } from "../model.js";
import type { ParsedRecord } from "../records.js";
import { placeRow } from "../store.js";
import { formatTime } from "../time.js";

/** `FactStore.importBatch`, one record at a time, on `backend`. */
export function importOneByOne(backend: FactBackend, records: readonly ParsedRecord[]): Promise<ImportBatchResult> {
  if (records.length === 0) return Promise.resolve({ inserted: 0, skipped: 0, superseded: 0 });
  return backend.write(async (tx) => {
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
    const now = records.some((record) => record.recordedAt === undefined) ? await tx.now() : 0;
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
      const current = currentVersion.get(record.id);
      if (current !== undefined && (!restoring || record.supersededAt === null)) {
        throw new FactError(
          FACT_ERRORS.CONFLICT,
          `fact ${record.id} already has a current version (${current}); a record for version ${record.version} ` +
            `would be a second one; nothing of this batch was imported`,
        );
      }
      checkRestoredVersion(record, current, highest.get(record.id));
      const validFrom = record.validFrom ?? now;
      const validTo = record.validTo;
      if (!restoring) {
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
          await tx.insert(pending);
          pending = [];
          pendingPredicates.clear();
        }
        const closed = (await placeRow(tx, row, functional)).superseded;
        superseded += closed.length;
        for (const version of closed) {
          currentVersion.set(version.id, version.version);
          seen(version);
        }
      } else {
        pending.push(row);
        pendingPredicates.add(row.predicate);
      }
    }
    await tx.insert(pending);
    if (maxId > 0) await tx.reserveIds(maxId);
    if (Number.isFinite(latest)) await tx.advanceClock(latest);
    return { inserted, skipped, superseded };
  });
}
