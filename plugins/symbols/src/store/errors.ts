/**
 * The errors of the cache: a place the index refuses to use. Both are thrown when the
 * index is opened (the plugin's setup, `ocp-symbols --index`), never while serving, and
 * nothing has been written when they are. docs/errors.md lists the codes.
 */
import { CodedError } from "ocp-provider";

/** Stable codes of {@link CacheError}. */
export const CACHE_ERRORS = {
  /**
   * The cache would be reached through a symbolic link (the cache directory, the database
   * or a SQLite sidecar beside it), or one of them is not a plain directory or file.
   */
  UNSAFE: "OCP_ERR_SYMBOLS_CACHE_UNSAFE",
  /** The database file is a SQLite database this plugin did not create: it is left as it is. */
  FOREIGN: "OCP_ERR_SYMBOLS_CACHE_FOREIGN",
} as const;

/** One of {@link CACHE_ERRORS}. */
export type CacheErrorCode = (typeof CACHE_ERRORS)[keyof typeof CACHE_ERRORS];

/**
 * A cache the plugin refuses to open. The message starts with the code, so the line the
 * framework logs when a plugin's setup fails names it too.
 */
export class CacheError extends CodedError<CacheErrorCode> {
  constructor(code: CacheErrorCode, message: string) {
    super(code, `${code}: ${message}`);
    this.name = "CacheError";
  }
}
