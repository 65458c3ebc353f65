/**
 * The fact store's errors. Each has a stable code; every message says what was
 * wrong and, where it helps, what to do instead. A failed operation changes
 * nothing: the store checks before it writes, and writes in one transaction.
 */
import { UserError } from "ocp-provider";

/** Stable codes of fact-store errors (documented in the package README). */
export const FACT_ERRORS = {
  /** A time is not RFC 3339, or not a real instant (2023-02-29, a leap second, year 10000). */
  BAD_TIME: "OCP_FACTS_BAD_TIME",
  /** A valid-time interval is empty or reversed: valid_to ≤ valid_from. */
  BAD_INTERVAL: "OCP_FACTS_BAD_INTERVAL",
  /** A field is missing, empty, of the wrong type or too long; an import line is not a fact. */
  BAD_INPUT: "OCP_FACTS_BAD_INPUT",
  /**
   * An id above the largest a store keeps (2^53 − 2, so the next id is still exact), or a
   * version above 2^31 − 1; or the store has handed out its last id, or a fact its last version.
   */
  ID_RANGE: "OCP_FACTS_ID_RANGE",
  /** No fact has this id (it never existed, or was erased). */
  UNKNOWN_ID: "OCP_FACTS_UNKNOWN_ID",
  /** The operation would change nothing: a correction equal to the current version, a retraction of a fact already ended. */
  NO_CHANGE: "OCP_FACTS_NO_CHANGE",
  /** An import record clashes with what the store holds under the same fact id. */
  CONFLICT: "OCP_FACTS_CONFLICT",
  /** There is no fact store where one was expected (a reader never creates one). */
  NO_STORE: "OCP_FACTS_NO_STORE",
  /** The store options are unusable: neither or both of `db` and `pg`, a bad schema name, … */
  CONFIG: "OCP_FACTS_CONFIG",
} as const;

/** One of {@link FACT_ERRORS}. */
export type FactErrorCode = (typeof FACT_ERRORS)[keyof typeof FACT_ERRORS];

/**
 * An error of the fact store. It is a `UserError`: its message is written for a
 * person (a CLI user, or the host when a query's `as_of` is unusable), and a
 * `CodedError` with a stable code such as `OCP_FACTS_BAD_TIME`.
 */
export class FactError extends UserError<FactErrorCode> {
  constructor(code: FactErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, { ...options, code });
    this.name = "FactError";
  }
}
