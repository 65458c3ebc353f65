/**
 * Importing a JSONL file: every line is checked first, so a bad line stops the
 * import before anything is written; then the records go in batch by batch,
 * each batch one transaction. Killed half-way, the store holds whole batches
 * only, and running the same import again finishes the job: records already
 * stored under their id are skipped.
 *
 * Ids: the file's ids and the ids the store assigns (`assert`) are one sequence.
 * Before its first batch the import claims every id of the file (the store then
 * assigns only ids above them, whoever writes meanwhile), and a record whose id
 * is already stored with other content refuses the whole import before anything
 * is written. So no other writer can leave an import half done and stuck.
 */
import { createReadStream } from "node:fs";
import { escapeLine } from "ocp-provider";
import { FACT_ERRORS, FactError, type FactErrorCode } from "./errors.js";
import { type JsonlLine, MAX_LINE, splitLines } from "./jsonl-lines.js";
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

/** What the checking pass found, reported once the import has claimed the file's ids. */
export interface ImportClaim {
  /** Records (non-blank lines) in the file. */
  readonly records: number;
  /** The largest id in the file: the store assigns only ids above it from now on. */
  readonly maxId: number;
}

/** Options of {@link importJsonl}. */
export interface ImportJsonlOptions {
  /** Records per transaction; default 10,000. Any size works; a batch is held in memory. */
  batchSize?: number;
  /** Called once the file is checked and its ids are claimed, before the first batch. */
  onClaim?: (claim: ImportClaim) => void;
  /** Called after each batch commits; the import waits for a returned promise. */
  onBatch?: (progress: BatchProgress) => void | Promise<void>;
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

/** The non-blank lines of `file`, numbered from 1; one over {@link MAX_LINE} comes without its text. */
async function* lines(file: string): AsyncGenerator<JsonlLine> {
  const input = createReadStream(file, { encoding: "utf8" });
  try {
    for await (const line of splitLines(input as AsyncIterable<string>)) {
      if (line.text === undefined) yield line;
      else {
        const text = line.number === 1 ? line.text.replace(/^\uFEFF/, "") : line.text;
        if (text.trim() !== "") yield { number: line.number, text };
      }
    }
  } finally {
    input.destroy();
  }
}

/** A line's record; throws a {@link FactError} saying what is wrong with it. */
function parseLine(line: JsonlLine): ParsedRecord {
  if (line.text === undefined) {
    throw new FactError(
      FACT_ERRORS.BAD_INPUT,
      `${line.length.toLocaleString("en-US")} characters long, over the ${MAX_LINE.toLocaleString("en-US")} ` +
        "an import reads (no fact record is that long)",
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch (error) {
    throw new FactError(FACT_ERRORS.BAD_INPUT, `not JSON (${escapeLine((error as Error).message)})`);
  }
  return parseRecord(value);
}

/** {@link parseLine} for a pass after the check: the file changed since, so the error names the line. */
function recheckedLine(line: JsonlLine): ParsedRecord {
  try {
    return parseLine(line);
  } catch (error) {
    if (!(error instanceof FactError)) throw error;
    throw new FactError(error.code, `line ${line.number}: ${error.message} (the file changed while it was imported)`);
  }
}

/** What the checking pass learns of a file. */
interface Scan {
  readonly records: number;
  readonly minId: number;
  readonly maxId: number;
}

/** The error that lists the first {@link SHOWN_ERRORS} problems of a file and counts the rest. */
function listed(
  code: FactErrorCode,
  file: string,
  what: string,
  problems: readonly string[],
  count: number,
): FactError {
  const more = count > SHOWN_ERRORS ? `\n  … and ${count - SHOWN_ERRORS} more` : "";
  return new FactError(
    code,
    `${file}: ${count} ${what}${count === 1 ? "" : "s"}; nothing was imported\n${problems.join("\n")}${more}`,
  );
}

async function scanJsonl(file: string): Promise<Scan> {
  const problems: string[] = [];
  let bad = 0;
  let records = 0;
  let minId = Number.POSITIVE_INFINITY;
  let maxId = 0;
  const seen = new Map<string, number>();
  try {
    for await (const line of lines(file)) {
      const number = line.number;
      records++;
      try {
        const record = parseLine(line);
        const key = `${record.id}@${record.version}`;
        const first = seen.get(key);
        if (first !== undefined) {
          throw new FactError(
            FACT_ERRORS.BAD_INPUT,
            `fact ${record.id} version ${record.version} is also on line ${first}`,
          );
        }
        seen.set(key, number);
        minId = Math.min(minId, record.id);
        maxId = Math.max(maxId, record.id);
      } catch (error) {
        if (!(error instanceof FactError)) throw error;
        // The line's own code, when it says more than the listing's (OCP_FACTS_ID_RANGE, OCP_FACTS_BAD_TIME).
        const code = error.code === FACT_ERRORS.BAD_INPUT ? "" : ` (${error.code})`;
        if (++bad <= SHOWN_ERRORS) problems.push(`  line ${number}: ${error.message}${code}`);
      }
    }
  } catch (error) {
    if (error instanceof FactError) throw error;
    throw new FactError(FACT_ERRORS.BAD_INPUT, `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (bad > 0) throw listed(FACT_ERRORS.BAD_INPUT, file, "bad line", problems, bad);
  return { records, minId, maxId };
}

/** Checks every line of `file` without writing anything; throws one error listing the bad lines. */
export async function checkJsonl(file: string): Promise<number> {
  return (await scanJsonl(file)).records;
}

/** The start of a statement, for a message: 80 code points at most, never half a surrogate pair. */
const shorten = (text: string) => {
  const points = [...text.slice(0, 200)];
  return points.length > 80 ? `${points.slice(0, 80).join("")}…` : points.join("");
};

/** Records of a check pass that fit in one read of the store. */
const CLASH_CHUNK = 5000;

/**
 * Refuses the import, before it writes, if a record with an id in `[from, to)` is stored
 * with other content. Stored versions never change their content (a correction is a new
 * version), so reading in several snapshots is as good as one.
 */
async function refuseClashes(store: FactStore, file: string, scan: Scan, from: number, to: number): Promise<void> {
  if (to <= scan.minId || from > scan.maxId) return; // no id of the file can be stored there
  const problems: string[] = [];
  let clashes = 0;
  let chunk: { number: number; record: ParsedRecord }[] = [];
  const flush = async () => {
    const lineOf = new Map(chunk.map(({ number, record }) => [record, number]));
    for (const { record, stored } of await store.importClashes(chunk.map(({ record }) => record))) {
      if (++clashes <= SHOWN_ERRORS) {
        problems.push(
          `  line ${lineOf.get(record)}: fact ${record.id} version ${record.version} is already stored as ` +
            escapeLine(
              `'${stored.subject} · ${stored.predicate}: ${shorten(stored.statement)}' (${stored.op}, recorded ${stored.recordedAt})`,
            ),
        );
      }
    }
    chunk = [];
  };
  for await (const line of lines(file)) {
    const record = recheckedLine(line);
    const number = line.number;
    if (record.id < from || record.id >= to) continue;
    chunk.push({ number, record });
    if (chunk.length >= CLASH_CHUNK) await flush();
  }
  await flush();
  if (clashes > 0) throw listed(FACT_ERRORS.CONFLICT, file, "record clashing with stored facts", problems, clashes);
}

/**
 * Imports a JSONL file of fact records (see `records.ts`) into `store`. Given a function
 * instead, it opens the store only once every line has passed the check: a refused file
 * then leaves no new, empty store behind (what `ocp-facts import` does for a new file).
 */
export async function importJsonl(
  target: FactStore | (() => Promise<FactStore>),
  file: string,
  options: ImportJsonlOptions = {},
): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? 10_000;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
    throw new FactError(FACT_ERRORS.CONFIG, `batch size must be a whole number ≥ 1, not ${batchSize}`);
  }
  const scan = await scanJsonl(file);
  const store = typeof target === "function" ? await target() : target;
  const totals = { inserted: 0, skipped: 0, superseded: 0 };
  if (scan.records === 0) return { records: 0, batches: 0, ...totals };
  // Every stored id is below the first free one: only file ids below it can clash.
  const free = await store.firstFreeId();
  await refuseClashes(store, file, scan, 1, free);
  // The claim: from here on the store assigns ids above the file's, so no writer can take one.
  const claimed = await store.reserveIds(scan.maxId);
  // Facts assigned ids since `free` was read (while the clashes were looked for) are in [free, claimed).
  await refuseClashes(store, file, scan, free, claimed);
  options.onClaim?.({ records: scan.records, maxId: scan.maxId });

  let batch: ParsedRecord[] = [];
  let firstLine = 0;
  let lastLine = 0;
  let batches = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    options.signal?.throwIfAborted();
    const result = await store.importBatch(batch);
    batches++;
    totals.inserted += result.inserted;
    totals.skipped += result.skipped;
    totals.superseded += result.superseded;
    await options.onBatch?.({
      batch: batches,
      firstLine,
      lastLine,
      inserted: result.inserted,
      skipped: result.skipped,
    });
    batch = [];
  };
  for await (const line of lines(file)) {
    if (batch.length === 0) firstLine = line.number;
    batch.push(recheckedLine(line));
    lastLine = line.number;
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  if (totals.inserted > 0) await store.optimize();
  return { records: scan.records, batches, ...totals };
}
