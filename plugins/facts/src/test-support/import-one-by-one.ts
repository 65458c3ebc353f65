/**
 * The reference an import batch is checked against: the record-at-a-time import
 * the store ran before batches were planned in memory (`import-batch.ts`). Each
 * functional fact reads its subject + predicate from storage and writes its
 * supersession at once; other rows wait until a functional fact of their predicate
 * needs them stored. Records are admitted through the same `ImportLedger`; only the
 * supersession and the writes differ. Slow and obviously right; kept only for the tests.
 */
import type { FactBackend, Row } from "../backend.js";
import { type ImportBatchResult, ImportLedger } from "../import-batch.js";
import type { ParsedRecord } from "../records.js";
import { placeRow } from "../store.js";

/** `FactStore.importBatch`, one record at a time, on `backend`. */
export function importOneByOne(backend: FactBackend, records: readonly ParsedRecord[]): Promise<ImportBatchResult> {
  if (records.length === 0) return Promise.resolve({ inserted: 0, skipped: 0, superseded: 0 });
  return backend.write(async (tx) => {
    const ledger = await ImportLedger.load(tx, records);
    const functional = await tx.functionalPredicates();
    const now = records.some((record) => record.recordedAt === undefined) ? await tx.now() : 0;
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
          await tx.insert(pending);
          pending = [];
          pendingPredicates.clear();
        }
        const closed = (await placeRow(tx, row, functional)).superseded;
        superseded += closed.length;
        for (const version of closed) ledger.note({ ...version, supersededAt: null });
      } else {
        pending.push(row);
        pendingPredicates.add(row.predicate);
      }
    }
    await tx.insert(pending);
    await ledger.finish(tx);
    return { inserted, skipped, superseded };
  });
}
