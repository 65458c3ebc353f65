/**
 * The two error families, kept apart (see docs/errors.md):
 * - {@link UserError}: a plugin's message meant for the host; it goes on the wire.
 * - {@link OcpError}: a local error with a stable code; details go to stderr,
 *   and the wire only ever sees a generic message.
 */
import { CodedError } from "../coded-error.js";

/** Stable codes of local errors; each is documented in docs/errors.md. */
export const ERROR_CODES = {
  /** defineProvider() was given an unusable configuration. */
  PROVIDER_CONFIG: "OCP_ERR_PROVIDER_CONFIG",
  /** definePlugin() was given an unusable definition. */
  PLUGIN_INVALID: "OCP_ERR_PLUGIN_INVALID",
  /** A plugin needs a core version range this framework is not in. */
  PLUGIN_CORE_RANGE: "OCP_ERR_PLUGIN_CORE_RANGE",
  /** Two plugins of one provider share a name. */
  PLUGIN_DUPLICATE: "OCP_ERR_PLUGIN_DUPLICATE",
  /** A plugin's setup() threw or exceeded its time bound; the plugin is disabled. */
  PLUGIN_SETUP: "OCP_ERR_PLUGIN_SETUP",
  /** A plugin's search() exceeded its time bound; its candidates are dropped. */
  PLUGIN_TIMEOUT: "OCP_ERR_PLUGIN_TIMEOUT",
  /** A plugin's search() threw; its candidates are dropped. */
  PLUGIN_FAILED: "OCP_ERR_PLUGIN_FAILED",
  /** A module given to `ocp serve`/`ocp query` could not be loaded or has no provider. */
  MODULE_LOAD: "OCP_ERR_MODULE_LOAD",
  /** A command-line argument is missing or malformed. */
  USAGE: "OCP_ERR_USAGE",
  /** A file read under a root named or resolved to a place outside it (`..`, absolute, a linked directory). */
  OUTSIDE_ROOT: "OCP_ERR_OUTSIDE_ROOT",
  /** A file read under a root was a symbolic link: links are never followed. */
  SYMLINK: "OCP_ERR_SYMLINK",
  /** A file read under a root was not a regular file (a directory, a FIFO, a device, a socket). */
  NOT_A_FILE: "OCP_ERR_NOT_A_FILE",
  /** A file read under a root was larger than the reader's bound. */
  FILE_TOO_LARGE: "OCP_ERR_FILE_TOO_LARGE",
  /** `ocp eval` cannot run: no git repository, no qualifying commit, a bad cases file, a provider that never starts. */
  EVAL: "OCP_ERR_EVAL",
  /**
   * A plugin refused a query without searching because it is at capacity (its queue is
   * full, or no search slot freed in time). On the wire: the `error` message starts with it.
   */
  BUSY: "OCP_ERR_BUSY",
  /** The HTTP transport was given an unusable option (an `allowedOrigins` entry that is not an origin). */
  HTTP_CONFIG: "OCP_ERR_HTTP_CONFIG",
  /** The code of a {@link UserError} that names none of its own: a plugin's message for the host. */
  USER: "OCP_ERR_USER",
} as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** A local error with a stable string code. */
export class OcpError extends CodedError<ErrorCode> {
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "OcpError";
  }
}

/**
 * An error whose message is written for the host ("index not built yet: retry in a
 * minute"). Throw it from a plugin's search(); any other error becomes a generic
 * wire message and its details go to stderr only. Its code (`OCP_ERR_USER` unless a
 * subclass such as the fact store's names its own) is for local callers: the wire sees the message.
 */
export class UserError<Code extends string = string> extends CodedError<Code> {
  constructor(message: string, options?: { cause?: unknown; code?: Code }) {
    super(options?.code ?? (ERROR_CODES.USER as Code), message, options);
    this.name = "UserError";
  }
}

/**
 * The host's query itself is malformed (a `UserError` a transport answers with 400). A
 * plugin throws it from `search()` for a field it cannot use (the fact store's bad
 * `as_of`); when every plugin a query reached threw it, the query is answered as invalid.
 * The message starts with `invalid query: ` (added unless it is there already).
 */
export class InvalidQueryError extends UserError {
  constructor(message: string) {
    super(message.startsWith("invalid query: ") ? message : `invalid query: ${message}`);
    this.name = "InvalidQueryError";
  }
}

/** A one-line description of anything thrown, for stderr. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message === "" ? error.name : `${error.name}: ${error.message}`;
  return String(error);
}
