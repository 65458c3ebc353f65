/**
 * The fact store: every bi-temporal rule, written once over the backend
 * interface (SQLite or PostgreSQL). Each operation validates its input before
 * touching storage and runs in one transaction, so a bad input or a failure
 * changes nothing.
 */
import type { Clock, FactBackend, Row, WriteTx } from "./backend.js";
import { FACT_ERRORS, FactError } from "./errors.js";
import { findClashes, type ImportBatchResult, importRecords } from "./import-batch.js";
import {
  type AssertInput,
  type CorrectInput,
  checkId,
  checkInterval,
  checkText,
  type EraseInput,
  type Erasure,
  type Fact,
  MAX_ID,
  MAX_STATEMENT,
  nextVersion,
  type RetractInput,
  type WriteResult,
} from "./model.js";
import type { ParsedRecord } from "./records.js";
import { queryTerms, searchRows, TERM_CAP } from "./search.js";
import { planSupersession, supersedingVersion } from "./supersede.js";
import { formatTime, parseOptionalTime, parseTime, type TimeInput } from "./time.js";

/** Which versions a read sees: valid time `validAt` (default now), system time `knownAt` (default: current knowledge). */
export interface AsOf {
  validAt?: TimeInput;
  knownAt?: TimeInput;
}

/** Options of {@link FactStore.search}. */
export interface SearchOptions extends AsOf {
  /** Free text: a goal or query. */
  text: string;
  /** Most facts returned; default 20. */
  limit?: number;
}

/** Options of {@link FactStore.list}. */
export interface ListOptions extends AsOf {
  subject?: string;
  predicate?: string;
  /** Most facts returned; default 100. */
  limit?: number;
}

/** A search result: a version and its relevance in [0, 1]. */
export interface FactHit {
  readonly fact: Fact;
  readonly relevance: number;
}

export type { ImportBatchResult } from "./import-batch.js";

/** An import record whose id and version the store already holds with different content. */
export interface ImportClash {
  readonly record: ParsedRecord;
  /** The version stored under the record's id and version. */
  readonly stored: Fact;
}

/** Turns a stored row into the API's view of a version. */
export function toFact(row: Row): Fact {
  return {
    id: row.id,
    version: row.version,
    subject: row.subject,
    predicate: row.predicate,
    statement: row.statement,
    validFrom: formatTime(row.validFrom),
    validTo: row.validTo === null ? null : formatTime(row.validTo),
    recordedAt: formatTime(row.recordedAt),
    supersededAt: row.supersededAt === null ? null : formatTime(row.supersededAt),
    source: row.source,
    method: row.method,
    author: row.author,
    op: row.op,
    note: row.note,
    actor: row.actor,
  };
}

const describeInterval = (from: number, to: number | null) =>
  `valid_from ${formatTime(from)}, valid_to ${to === null ? "open" : formatTime(to)}`;

const optional = (value: unknown, field: string) => checkText(value, field, { optional: true }) ?? null;

/** A bi-temporal fact store. Open one with `openFactStore()`. */
export class FactStore {
  /** The store's name in `fact://<name>/<id>` URIs. */
  readonly name: string;
  private readonly clock: Clock;
  /**
   * Document frequencies of common terms (more than TERM_CAP matches). Counting one
   * further, to tell common from everywhere, scans up to STOP_CAP postings (and on
   * PostgreSQL fetches their rows); a common term stays common, so the count is
   * remembered. Rare terms are cheap to count and change with any write: never kept.
   */
  private readonly commonTerms = new Map<string, number>();

  constructor(
    /** The storage underneath. */
    readonly backend: FactBackend,
    options: { name?: string; clock?: Clock } = {},
  ) {
    this.name = options.name ?? backend.defaultName;
    this.clock = options.clock ?? Date.now;
  }

  /** `fact://<store>/<id>`: where a fact lives, as frames cite it. */
  uri(id: number): string {
    return `fact://${encodeURIComponent(this.name)}/${id}`;
  }

  /** Records a new fact; for a functional predicate, supersedes the facts it overlaps. */
  async assert(input: AssertInput): Promise<WriteResult> {
    const subject = checkText(input?.subject, "subject") as string;
    const predicate = checkText(input.predicate, "predicate") as string;
    const statement = checkText(input.statement, "statement", { max: MAX_STATEMENT, trim: false }) as string;
    const validFrom = parseOptionalTime(input.validFrom, "valid_from");
    const validTo = input.validTo === undefined || input.validTo === null ? null : parseTime(input.validTo, "valid_to");
    if (validFrom !== undefined) checkInterval(validFrom, validTo, () => describeInterval(validFrom, validTo));
    const source = optional(input.source, "source");
    const method = optional(input.method, "method");
    const author = optional(input.author, "author");
    return this.backend.write(async (tx) => {
      const now = await tx.now();
      const from = validFrom ?? now;
      checkInterval(from, validTo, () => describeInterval(from, validTo));
      const id = await tx.nextId();
      if (id > MAX_ID) {
        // Rolled back with the rest: the counter stays where it was.
        throw new FactError(FACT_ERRORS.ID_RANGE, `the store has handed out its last fact id, ${MAX_ID}`);
      }
      const row: Row = {
        id,
        version: 1,
        subject,
        predicate,
        statement,
        validFrom: from,
        validTo,
        recordedAt: now,
        supersededAt: null,
        source,
        method,
        author,
        op: "assert",
        note: null,
        actor: author,
      };
      return placeRow(tx, row, await tx.functionalPredicates());
    });
  }

  /** Rewrites the past: a new version of fact `id` with the given changes; the old version stays in history. */
  async correct(id: number, input: CorrectInput): Promise<WriteResult> {
    checkId(id);
    const changes = {
      subject: input?.subject === undefined ? undefined : (checkText(input.subject, "subject") as string),
      predicate: input.predicate === undefined ? undefined : (checkText(input.predicate, "predicate") as string),
      statement:
        input.statement === undefined
          ? undefined
          : (checkText(input.statement, "statement", { max: MAX_STATEMENT, trim: false }) as string),
      validFrom: parseOptionalTime(input.validFrom, "valid_from"),
      validTo:
        input.validTo === undefined ? undefined : input.validTo === null ? null : parseTime(input.validTo, "valid_to"),
      source: input.source === undefined ? undefined : optional(input.source, "source"),
      method: input.method === undefined ? undefined : optional(input.method, "method"),
      author: input.author === undefined ? undefined : optional(input.author, "author"),
    };
    const reason = optional(input.reason, "reason");
    const by = optional(input.by, "by");
    return this.backend.write(async (tx) => {
      const current = await this.currentOrFail(tx, id);
      const next: Row = {
        ...current,
        subject: changes.subject ?? current.subject,
        predicate: changes.predicate ?? current.predicate,
        statement: changes.statement ?? current.statement,
        validFrom: changes.validFrom ?? current.validFrom,
        validTo: changes.validTo === undefined ? current.validTo : changes.validTo,
        source: changes.source === undefined ? current.source : changes.source,
        method: changes.method === undefined ? current.method : changes.method,
        author: changes.author === undefined ? current.author : changes.author,
      };
      // A withdrawn fact whose times are left alone may still have its wording corrected.
      if (changes.validFrom !== undefined || changes.validTo !== undefined) {
        checkInterval(next.validFrom, next.validTo, () => describeInterval(next.validFrom, next.validTo));
      }
      const fields = [
        "subject",
        "predicate",
        "statement",
        "validFrom",
        "validTo",
        "source",
        "method",
        "author",
      ] as const;
      if (fields.every((field) => next[field] === current[field])) {
        throw new FactError(
          FACT_ERRORS.NO_CHANGE,
          `the correction changes nothing in fact ${id} (version ${current.version})`,
        );
      }
      await tx.close(id, current.version);
      const row: Row = {
        ...next,
        version: nextVersion(current),
        recordedAt: await tx.now(),
        supersededAt: null,
        op: "correct",
        note: reason,
        actor: by,
      };
      return placeRow(tx, row, await tx.functionalPredicates());
    });
  }

  /**
   * Ends fact `id`'s validity from `at` (default now) with a new version; nothing
   * is deleted. Retracting at or before its valid_from withdraws it: it never held.
   */
  async retract(id: number, input: RetractInput = {}): Promise<WriteResult> {
    checkId(id);
    const at = parseOptionalTime(input.at, "at");
    const reason = optional(input.reason, "reason");
    const by = optional(input.by, "by");
    return this.backend.write(async (tx) => {
      const current = await this.currentOrFail(tx, id);
      const now = await tx.now();
      const from = at ?? now;
      if (current.validTo !== null && current.validTo <= current.validFrom) {
        throw new FactError(FACT_ERRORS.NO_CHANGE, `fact ${id} is already withdrawn: it holds at no time`);
      }
      if (current.validTo !== null && current.validTo <= from) {
        throw new FactError(
          FACT_ERRORS.NO_CHANGE,
          `fact ${id} already ends at ${formatTime(current.validTo)}, not after ${formatTime(from)}: nothing to retract`,
        );
      }
      await tx.close(id, current.version);
      const row: Row = {
        ...current,
        version: nextVersion(current),
        validTo: Math.max(from, current.validFrom),
        recordedAt: now,
        supersededAt: null,
        op: "retract",
        note: reason,
        actor: by,
      };
      await tx.insert([row]);
      return { fact: toFact(row), superseded: [] };
    });
  }

  /**
   * Deletes every version of one fact, or of every fact that ever had a subject,
   * for data that must really go. Logged with its reason (ids and counts only).
   */
  async erase(input: EraseInput): Promise<Erasure> {
    const reason = checkText(input?.reason, "reason") as string;
    const by = optional(input.by, "by");
    if ((input.id === undefined) === (input.subject === undefined)) {
      throw new FactError(FACT_ERRORS.BAD_INPUT, "erase takes exactly one of id or subject");
    }
    const id = input.id === undefined ? undefined : checkId(input.id);
    const subject = input.subject === undefined ? undefined : (checkText(input.subject, "subject") as string);
    const erasure = await this.backend.write(async (tx) => {
      const rows = id !== undefined ? await tx.versionsOf([id]) : await tx.historyOfSubject(subject as string);
      if (rows.length === 0) {
        throw id !== undefined
          ? new FactError(FACT_ERRORS.UNKNOWN_ID, `no fact ${id} (never recorded, or already erased)`)
          : new FactError(FACT_ERRORS.UNKNOWN_ID, `no fact has ever had the subject '${subject}'`);
      }
      const ids = [...new Set(rows.map((row) => row.id))];
      const versions = await tx.remove(ids);
      const entry = { at: await tx.now(), ids, versions, reason, actor: by };
      await tx.logErasure(entry);
      return entry;
    });
    await this.backend.purge();
    this.commonTerms.clear(); // an erase is the one way a common term can become rare
    return { ...erasure, at: formatTime(erasure.at) };
  }

  /** The current version of fact `id`. */
  async get(id: number): Promise<Fact> {
    checkId(id);
    return toFact(await this.backend.read((reader) => this.currentOrFail(reader, id)));
  }

  /** Every version of fact `id`, or of every fact that ever had `subject`, oldest first. */
  async history(selector: { id: number } | { subject: string }): Promise<Fact[]> {
    if ("id" in selector) {
      const id = checkId(selector.id);
      const rows = await this.backend.read((reader) => reader.versionsOf([id]));
      if (rows.length === 0) throw new FactError(FACT_ERRORS.UNKNOWN_ID, `no fact ${id} (never recorded, or erased)`);
      return rows.map(toFact);
    }
    const subject = checkText(selector.subject, "subject") as string;
    return (await this.backend.read((reader) => reader.historyOfSubject(subject))).map(toFact);
  }

  /** Facts true at `validAt` as known at `knownAt`, optionally of one subject and/or predicate. */
  async list(options: ListOptions = {}): Promise<Fact[]> {
    const time = this.timeFilter(options);
    const subject = options.subject === undefined ? undefined : (checkText(options.subject, "subject") as string);
    const predicate =
      options.predicate === undefined ? undefined : (checkText(options.predicate, "predicate") as string);
    const limit = options.limit ?? 100;
    const rows = await this.backend.read((reader) => reader.list({ time, subject, predicate, limit }));
    return rows.map(toFact);
  }

  /** Facts true at `validAt` as known at `knownAt` whose text matches `text`, most relevant first. */
  async search(options: SearchOptions): Promise<FactHit[]> {
    const time = this.timeFilter(options);
    const terms = queryTerms(options.text ?? "");
    const want = options.limit ?? 20;
    const scored = await this.backend.read((reader) =>
      searchRows(reader, {
        terms,
        time,
        want,
        countTerm: async (term, cap) => {
          const known = this.commonTerms.get(term);
          if (known !== undefined) return Math.min(known, cap);
          const df = await reader.countTerm(term, cap);
          // Only a common term is counted past TERM_CAP: remember that deeper, costlier count.
          if (cap > TERM_CAP + 1) {
            if (this.commonTerms.size >= 10_000) this.commonTerms.clear();
            this.commonTerms.set(term, df);
          }
          return df;
        },
      }),
    );
    return scored.map(({ row, relevance }) => ({ fact: toFact(row), relevance }));
  }

  /** Declares whether `predicate` is functional (one value per subject at any valid time). Applies to later writes. */
  async setFunctional(predicate: string, functional = true): Promise<void> {
    const name = checkText(predicate, "predicate") as string;
    await this.backend.write((tx) => tx.setFunctional(name, functional));
  }

  /** The predicates declared functional, sorted. */
  async functionalPredicates(): Promise<string[]> {
    return [...(await this.backend.read((reader) => reader.functionalPredicates()))].sort();
  }

  /** The erasure log, oldest first. */
  async erasures(): Promise<Erasure[]> {
    const rows = await this.backend.read((reader) => reader.erasures());
    return rows.map((row) => ({ ...row, at: formatTime(row.at) }));
  }

  /** Every stored version, in storage order, a page at a time: what `export` writes. */
  async *versions(pageSize = 5000): AsyncGenerator<Fact> {
    let cursor = 0;
    for (;;) {
      const page = await this.backend.read((reader) => reader.scan(cursor, pageSize));
      for (const row of page.rows) yield toFact(row);
      if (page.rows.length < pageSize) return;
      cursor = page.cursor;
    }
  }

  /**
   * Imports checked records in one transaction: all of them, or none. A record
   * whose id (and version) is already stored with the same subject, predicate and
   * statement is skipped, so re-running an import is harmless; one that differs
   * is a conflict, and the whole batch is refused.
   */
  async importBatch(records: readonly ParsedRecord[]): Promise<ImportBatchResult> {
    if (records.length === 0) return { inserted: 0, skipped: 0, superseded: 0 };
    return this.backend.write((tx) => importRecords(tx, records));
  }

  /**
   * Claims the ids up to `maxId` for an import: from now on the store assigns only ids above
   * them, whoever writes meanwhile. Resolves to {@link firstFreeId} as it was before the claim.
   */
  async reserveIds(maxId: number): Promise<number> {
    checkId(maxId, "maxId");
    return this.backend.write((tx) => tx.reserveIds(maxId));
  }

  /** The id the store would assign next; every stored fact's id (assigned or imported) is below it. */
  firstFreeId(): Promise<number> {
    return this.backend.read((reader) => reader.firstFreeId());
  }

  /**
   * The records whose id and version are already stored with different content, which
   * {@link importBatch} would refuse; found without writing, so an import can refuse them
   * before it writes anything.
   */
  async importClashes(records: readonly ParsedRecord[]): Promise<ImportClash[]> {
    if (records.length === 0) return [];
    const clashes = await this.backend.read((reader) => findClashes(reader, records));
    return clashes.map(({ record, stored }) => ({ record, stored: toFact(stored) }));
  }

  /** Refreshes the planner's statistics: call it after a bulk import (`importJsonl` does). */
  optimize(): Promise<void> {
    return this.backend.analyze();
  }

  /** Releases the backend. */
  close(): Promise<void> {
    return this.backend.close();
  }

  private timeFilter(options: AsOf): { validAt: number; knownAt?: number } {
    const now = this.clock();
    const validAt =
      options.validAt === undefined ? (now instanceof Date ? now.getTime() : now) : parseTime(options.validAt, "as_of");
    return { validAt, knownAt: parseOptionalTime(options.knownAt, "as_known_at") };
  }

  private async currentOrFail(reader: { current(id: number): Promise<Row | undefined> }, id: number): Promise<Row> {
    const row = await reader.current(id);
    if (row === undefined) throw new FactError(FACT_ERRORS.UNKNOWN_ID, `no fact ${id} (never recorded, or erased)`);
    return row;
  }
}

/**
 * Writes `row` (a new fact or a new version) and, for a functional predicate,
 * closes the facts it supersedes and trims it where a later fact takes over. Internal:
 * `assert` and `correct` write through it, and the import tests' record-at-a-time
 * reference does too, so a batch import is always checked against the live rules.
 */
export async function placeRow(tx: WriteTx, row: Row, functional: ReadonlySet<string>): Promise<WriteResult> {
  const superseded: Fact[] = [];
  const now = await tx.now();
  const holds = row.validTo === null || row.validTo > row.validFrom;
  if (holds && functional.has(row.predicate)) {
    const others = (await tx.currentFor(row.subject, row.predicate)).filter((other) => other.id !== row.id);
    const plan = planSupersession(row, others);
    row.validTo = plan.validTo;
    for (const { id, validTo } of plan.close) {
      const other = others.find((candidate) => candidate.id === id) as Row;
      if (other.recordedAt === now) {
        // Recorded in this same transaction: nobody ever saw the longer interval, so no new version.
        await tx.amendValidTo(other.id, other.version, validTo);
        superseded.push(toFact({ ...other, validTo }));
        continue;
      }
      await tx.close(other.id, other.version);
      const next = supersedingVersion(other, row, validTo, now);
      await tx.insert([next]);
      superseded.push(toFact(next));
    }
  }
  await tx.insert([row]);
  return { fact: toFact(row), superseded };
}
