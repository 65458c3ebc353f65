/**
 * The bi-temporal fact model.
 *
 * A fact is a statement about a subject under a predicate ("alice · works_at:
 * Alice works at Acme"). Each fact has an id and one or more **versions**; a
 * version carries two intervals, both half-open:
 *
 * - valid time `[valid_from, valid_to)`: when the statement is true in the
 *   world (`valid_to` null = still true);
 * - system time `[recorded_at, superseded_at)`: when the store believed this
 *   version (`superseded_at` null = current knowledge).
 *
 * Nothing is updated in place: a correction, a retraction or a supersession
 * closes the current version's system interval and records a new version. Only
 * `erase` removes data, and it is logged.
 */
import { FACT_ERRORS, FactError } from "./errors.js";
import type { TimeInput } from "./time.js";

/** What created a version. */
export type FactOp = "assert" | "correct" | "retract" | "supersede" | "import";

/** The operations a version may record. */
export const FACT_OPS: readonly FactOp[] = ["assert", "correct", "retract", "supersede", "import"];

/** One version of a fact, as the API returns it (times are RFC 3339 UTC). */
export interface Fact {
  /** The fact's id: stable across its versions, never reused. */
  readonly id: number;
  /** 1 for the first version, then 2, 3, … */
  readonly version: number;
  readonly subject: string;
  readonly predicate: string;
  /** The statement text: a frame's content. */
  readonly statement: string;
  /** Start of valid time (inclusive). */
  readonly validFrom: string;
  /** End of valid time (exclusive); null while the fact still holds. Equal to validFrom: withdrawn, true at no time. */
  readonly validTo: string | null;
  /** When the store recorded this version (start of system time). */
  readonly recordedAt: string;
  /** When a later version replaced this one (end of system time); null for current knowledge. */
  readonly supersededAt: string | null;
  /** Where the statement comes from (a URI), if known. */
  readonly source: string | null;
  /** How it was obtained ("manual", "hr-sync", …), if known. */
  readonly method: string | null;
  /** Who stated it, if known. */
  readonly author: string | null;
  /** What created this version. */
  readonly op: FactOp;
  /** Why this version exists: a correction's or retraction's reason, "superseded by fact 43". */
  readonly note: string | null;
  /** Who made this version (the author of an assertion; whoever corrected or retracted). */
  readonly actor: string | null;
}

/** What `assert` takes. */
export interface AssertInput {
  subject: string;
  predicate: string;
  statement: string;
  /** Default: the moment it is recorded (what we learn now holds from now). */
  validFrom?: TimeInput;
  /** Omitted or null: open-ended. */
  validTo?: TimeInput | null;
  source?: string;
  method?: string;
  author?: string;
}

/** What `correct` takes: the fields to change (null clears `validTo` or a provenance field). */
export interface CorrectInput {
  subject?: string;
  predicate?: string;
  statement?: string;
  validFrom?: TimeInput;
  validTo?: TimeInput | null;
  source?: string | null;
  method?: string | null;
  author?: string | null;
  /** Why the past is being rewritten; kept with the new version. */
  reason?: string;
  /** Who corrects it. */
  by?: string;
}

/** What `retract` takes. */
export interface RetractInput {
  /** From when the fact no longer holds; default now. At or before its valid_from: it never held (withdrawn). */
  at?: TimeInput;
  reason?: string;
  by?: string;
}

/** What `erase` takes: one fact by id, or every fact that ever had this subject. */
export interface EraseInput {
  id?: number;
  subject?: string;
  /** Required: erasing is the one operation that destroys data, so it is always explained in the log. */
  reason: string;
  by?: string;
}

/** One entry of the erasure log. It keeps ids and counts, never the erased content. */
export interface Erasure {
  readonly at: string;
  readonly ids: readonly number[];
  readonly versions: number;
  readonly reason: string;
  readonly actor: string | null;
}

/** What a write returns: the new version, and the versions it closed by supersession. */
export interface WriteResult {
  readonly fact: Fact;
  /** New versions of other facts whose valid time this write ended (functional predicates). */
  readonly superseded: readonly Fact[];
}

/** Longest accepted subject or predicate, in UTF-16 units. */
export const MAX_NAME = 1000;
/** Longest accepted statement, in UTF-16 units: a fact is a statement, not a document. */
export const MAX_STATEMENT = 65_536;

// In a `u` regex a surrogate pair is one code point, so this matches lone surrogates only.
const LONE_SURROGATE = /\p{Cs}/u;

/** Checks one text field; returns it (names trimmed). */
export function checkText(
  value: unknown,
  field: string,
  options: { max?: number; trim?: boolean; optional?: boolean } = {},
): string | undefined {
  if (value === undefined || value === null) {
    if (options.optional) return undefined;
    throw new FactError(FACT_ERRORS.BAD_INPUT, `${field} is required`);
  }
  if (typeof value !== "string") throw new FactError(FACT_ERRORS.BAD_INPUT, `${field} must be a string`);
  const text = options.trim === false ? value : value.trim();
  if (text.trim() === "") throw new FactError(FACT_ERRORS.BAD_INPUT, `${field} must not be empty`);
  const max = options.max ?? MAX_NAME;
  if (text.length > max) throw new FactError(FACT_ERRORS.BAD_INPUT, `${field} is longer than ${max} characters`);
  // PostgreSQL cannot store NUL, and a lone surrogate would be silently replaced: refuse both on every backend.
  if (text.includes("\u0000")) throw new FactError(FACT_ERRORS.BAD_INPUT, `${field} contains a NUL character`);
  if (LONE_SURROGATE.test(text))
    throw new FactError(FACT_ERRORS.BAD_INPUT, `${field} contains a lone UTF-16 surrogate`);
  return text;
}

/**
 * The largest fact id: 2^53 − 2, so that the store's counter, always one above every id
 * it holds, is still a safe integer (one JavaScript, SQLite and PostgreSQL agree on).
 * An id of 2^53 − 1 would leave the counter at 2^53, where adding one changes nothing:
 * every later `assert` would be handed the same id again.
 */
export const MAX_ID = Number.MAX_SAFE_INTEGER - 1;

/** The largest version number: PostgreSQL keeps versions as `int`, and both backends keep the same facts. */
export const MAX_VERSION = 2 ** 31 - 1;

/** Checks a fact id (or, with `max`, a version): a whole number from 1 to `max`. */
export function checkId(value: unknown, field = "id", max = MAX_ID): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new FactError(
      FACT_ERRORS.BAD_INPUT,
      `${field} must be a positive whole number, not ${JSON.stringify(value)}`,
    );
  }
  if (value > max) {
    throw new FactError(
      FACT_ERRORS.ID_RANGE,
      `${field} ${value} is above ${max}, the largest ${field === "version" ? "version" : "fact id"} a store keeps`,
    );
  }
  return value;
}

/** The version after `row`'s, for a write that adds one; refused once a fact has {@link MAX_VERSION}. */
export function nextVersion(row: { readonly id: number; readonly version: number }): number {
  if (row.version >= MAX_VERSION) {
    throw new FactError(
      FACT_ERRORS.ID_RANGE,
      `fact ${row.id} has version ${row.version}, the last a store keeps: it cannot change any more`,
    );
  }
  return row.version + 1;
}

/** Throws unless `[from, to)` is a non-empty interval. */
export function checkInterval(from: number, to: number | null, formatted: () => string): void {
  if (to !== null && to <= from) {
    throw new FactError(FACT_ERRORS.BAD_INTERVAL, `valid_to must be after valid_from: ${formatted()}`);
  }
}
