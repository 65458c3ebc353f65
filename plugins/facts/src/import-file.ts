/**
 * Importing a JSONL file: every line is checked first, so a bad line stops the
 * import before anything is written; then the records go in batch by batch,
 * each batch one transaction. Killed half-way, the store holds whole batches
 * only, and running the same import again finishes the job: records already
 * stored under their id are skipped.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { FACT_ERRORS, FactError } from "./errors.js";
import { type ParsedRecord, parseRecord } from "./records.js";
import type { FactStore } from "./store.js";

/** Progress of one committed batch. */
export interface BatchProgress {
  /** 1-based batch number. */
  readonly batch: number;
  /** File lines of the batch (1-based, inclusive). */
  readonly firstLine: number;
  readonly lastLine: number;
  readonly inserted: number;
  readonly skipped: number;
}

/** Options of {@link importJsonl}. */
export interface ImportJsonlOptions {
  /** Records per transaction; default 10,000. */
  batchSize?: number;
  /** Called after each batch commits. */
  onBatch?: (progress: BatchProgress) => void;
  /** Stops between batches when aborted (what is committed stays). */
  signal?: AbortSignal;
}

/** What an import did. */
export interface ImportSummary {
  readonly records: number;
  readonly batches: number;
  readonly inserted: number;
  readonly skipped: number;
  readonly superseded: number;
}

/** Most bad lines listed in the error; the rest are counted. */
const SHOWN_ERRORS = 10;

async function* lines(file: string): AsyncGenerator<{ number: number; text: string }> {
  const input = createReadStream(file, { encoding: "utf8" });
  const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  try {
    for await (const raw of reader) {
      number++;
      const text = number === 1 ? raw.replace(/^\uFEFF/, "") : raw;
      if (text.trim() !== "") yield { number, text };
    }
  } finally {
    reader.close();
    input.destroy();
  }
}

function parseLine(text: string): ParsedRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new FactError(FACT_ERRORS.BAD_INPUT, `not JSON (${(error as Error).message})`);
  }
  return parseRecord(value);
}

/** Checks every line of `file` without writing anything; throws one error listing the bad lines. */
export async function checkJsonl(file: string): Promise<number> {
  const problems: string[] = [];
  let bad = 0;
  let records = 0;
  const seen = new Map<string, number>();
  try {
    for await (const { number, text } of lines(file)) {
      records++;
      try {
        const record = parseLine(text);
        const key = `${record.id}@${record.version}`;
        const first = seen.get(key);
        if (first !== undefined) {
          throw new FactError(
            FACT_ERRORS.BAD_INPUT,
            `fact ${record.id} version ${record.version} is also on line ${first}`,
          );
        }
        seen.set(key, number);
      } catch (error) {
        if (!(error instanceof FactError)) throw error;
        if (++bad <= SHOWN_ERRORS) problems.push(`  line ${number}: ${error.message}`);
      }
    }
  } catch (error) {
    if (error instanceof FactError) throw error;
    throw new FactError(FACT_ERRORS.BAD_INPUT, `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (bad > 0) {
    const more = bad > SHOWN_ERRORS ? `\n  … and ${bad - SHOWN_ERRORS} more` : "";
    throw new FactError(
      FACT_ERRORS.BAD_INPUT,
      `${file}: ${bad} bad line${bad === 1 ? "" : "s"}; nothing was imported\n${problems.join("\n")}${more}`,
    );
  }
  return records;
}

/** Imports a JSONL file of fact records (see `records.ts`) into `store`. */
export async function importJsonl(
  store: FactStore,
  file: string,
  options: ImportJsonlOptions = {},
): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? 10_000;
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new FactError(FACT_ERRORS.CONFIG, `batch size must be a whole number ≥ 1, not ${batchSize}`);
  }
  const records = await checkJsonl(file);
  let batch: ParsedRecord[] = [];
  let firstLine = 0;
  let lastLine = 0;
  let batches = 0;
  const totals = { inserted: 0, skipped: 0, superseded: 0 };
  const flush = async () => {
    if (batch.length === 0) return;
    options.signal?.throwIfAborted();
    const result = await store.importBatch(batch);
    batches++;
    totals.inserted += result.inserted;
    totals.skipped += result.skipped;
    totals.superseded += result.superseded;
    options.onBatch?.({ batch: batches, firstLine, lastLine, inserted: result.inserted, skipped: result.skipped });
    batch = [];
  };
  for await (const { number, text } of lines(file)) {
    if (batch.length === 0) firstLine = number;
    batch.push(parseLine(text));
    lastLine = number;
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  if (totals.inserted > 0) await store.optimize();
  return { records, batches, ...totals };
}
