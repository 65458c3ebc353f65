/**
 * The JSONL record: one fact version per line, in `export` and `import`.
 *
 * Field names are snake_case, like the wire. Two kinds of record:
 *
 * - a **new fact**: `id`, `subject`, `predicate`, `statement`, optionally
 *   `valid_from` (default: when it is imported), `valid_to`, `source`, `method`,
 *   `author`. It is recorded at import time and supersedes like an assertion.
 * - a **recorded version** (what `export` writes): the above plus
 *   `recorded_at`, and optionally `version` (default 1), `superseded_at`, `op`,
 *   `note`, `actor`. It is restored exactly as it was, history included — how a
 *   store moves from SQLite to PostgreSQL.
 *
 * `id` is required: it is what makes a re-run of an import harmless.
 */
import { escapeLine } from "ocp-provider";
import { FACT_ERRORS, FactError } from "./errors.js";
import {
  checkId,
  checkInterval,
  checkText,
  FACT_OPS,
  type Fact,
  type FactOp,
  MAX_STATEMENT,
  MAX_VERSION,
} from "./model.js";
import { formatTime, parseTime } from "./time.js";

/** One line of a JSONL import or export. */
export interface FactRecord {
  id: number;
  subject: string;
  predicate: string;
  statement: string;
  valid_from?: string;
  valid_to?: string | null;
  source?: string | null;
  method?: string | null;
  author?: string | null;
  version?: number;
  recorded_at?: string;
  superseded_at?: string | null;
  op?: FactOp;
  note?: string | null;
  actor?: string | null;
}

/** A checked record, times in milliseconds. `recordedAt` undefined: a new fact, recorded at import time. */
export interface ParsedRecord {
  id: number;
  version: number;
  subject: string;
  predicate: string;
  statement: string;
  validFrom: number | undefined;
  validTo: number | null;
  source: string | null;
  method: string | null;
  author: string | null;
  recordedAt: number | undefined;
  supersededAt: number | null;
  op: FactOp;
  note: string | null;
  actor: string | null;
}

const FIELDS = new Set([
  "id",
  "subject",
  "predicate",
  "statement",
  "valid_from",
  "valid_to",
  "source",
  "method",
  "author",
  "version",
  "recorded_at",
  "superseded_at",
  "op",
  "note",
  "actor",
]);

const optionalText = (value: unknown, field: string) => checkText(value, field, { optional: true }) ?? null;

/** Checks one decoded JSON value as a fact record; throws a {@link FactError} naming the field. */
export function parseRecord(value: unknown): ParsedRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new FactError(FACT_ERRORS.BAD_INPUT, "a record must be a JSON object");
  }
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !FIELDS.has(key));
  // A misspelt field ("valid_form") would otherwise be dropped without a word.
  if (unknown.length > 0) {
    throw new FactError(FACT_ERRORS.BAD_INPUT, `unknown field(s): ${escapeLine(unknown.join(", "))}`);
  }
  if (record.id === undefined) {
    throw new FactError(FACT_ERRORS.BAD_INPUT, "id is required: it is what makes re-running an import safe");
  }
  const id = checkId(record.id);
  const restoring = record.recorded_at !== undefined && record.recorded_at !== null;
  const version = record.version === undefined ? 1 : checkId(record.version, "version", MAX_VERSION);
  if (!restoring && version !== 1) {
    throw new FactError(FACT_ERRORS.BAD_INPUT, "a record with a version other than 1 needs recorded_at");
  }
  const time = (field: string) => {
    const raw = record[field];
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw !== "string") throw new FactError(FACT_ERRORS.BAD_TIME, `${field} must be an RFC 3339 string`);
    return parseTime(raw, field);
  };
  const validFrom = time("valid_from");
  const validTo = time("valid_to") ?? null;
  const recordedAt = time("recorded_at");
  const supersededAt = time("superseded_at") ?? null;
  if (restoring && validFrom === undefined) {
    throw new FactError(FACT_ERRORS.BAD_INPUT, "a recorded version (with recorded_at) needs valid_from");
  }
  // A new fact must hold at some time; a restored version may be withdrawn (valid_to = valid_from).
  if (validFrom !== undefined && validTo !== null && (restoring ? validTo < validFrom : validTo <= validFrom)) {
    checkInterval(validFrom, validTo, () => `valid_from ${formatTime(validFrom)}, valid_to ${formatTime(validTo)}`);
    throw new FactError(FACT_ERRORS.BAD_INTERVAL, "valid_to must not be before valid_from");
  }
  if (recordedAt !== undefined && supersededAt !== null && supersededAt < recordedAt) {
    throw new FactError(FACT_ERRORS.BAD_INTERVAL, "superseded_at must not be before recorded_at");
  }
  if (!restoring && (record.superseded_at ?? null) !== null) {
    throw new FactError(FACT_ERRORS.BAD_INPUT, "superseded_at needs recorded_at");
  }
  const op = record.op ?? "import";
  if (!FACT_OPS.includes(op as FactOp)) {
    throw new FactError(FACT_ERRORS.BAD_INPUT, `op must be one of ${FACT_OPS.join(", ")}`);
  }
  return {
    id,
    version,
    subject: checkText(record.subject, "subject") as string,
    predicate: checkText(record.predicate, "predicate") as string,
    statement: checkText(record.statement, "statement", { max: MAX_STATEMENT, trim: false }) as string,
    validFrom,
    validTo,
    source: optionalText(record.source, "source"),
    method: optionalText(record.method, "method"),
    author: optionalText(record.author, "author"),
    recordedAt,
    supersededAt,
    op: op as FactOp,
    note: optionalText(record.note, "note"),
    actor: optionalText(record.actor, "actor"),
  };
}

/** A version as a record: what `export` writes, and `import` restores exactly. */
export function toRecord(fact: Fact): FactRecord {
  return {
    id: fact.id,
    version: fact.version,
    subject: fact.subject,
    predicate: fact.predicate,
    statement: fact.statement,
    valid_from: fact.validFrom,
    valid_to: fact.validTo,
    recorded_at: fact.recordedAt,
    superseded_at: fact.supersededAt,
    source: fact.source,
    method: fact.method,
    author: fact.author,
    op: fact.op,
    note: fact.note,
    actor: fact.actor,
  };
}
