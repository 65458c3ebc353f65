/**
 * The one base class of every local error with a stable code in this repository:
 * the core's `OcpError` and `UserError`, the host client's `HostError`, the
 * generator's `CreateError`, the fact store's `FactError`, the symbol index's
 * `CacheError`. Callers branch on `error instanceof CodedError` and `error.code`,
 * whichever package threw.
 * Pure, so the light `ocp-provider/cli` can export it too.
 */

/** An error with a stable string code (`OCP_ERR_…`, `OCP_FACTS_…`); codes never change meaning. */
export class CodedError<Code extends string = string> extends Error {
  /** The stable code, e.g. `OCP_ERR_PLUGIN_TIMEOUT`. */
  readonly code: Code;
  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CodedError";
    this.code = code;
  }
}

/** True when `error` carries a stable code: a {@link CodedError}, or one from another copy of this package. */
export function isCodedError(error: unknown): error is CodedError {
  if (error instanceof CodedError) return true;
  // A second install of ocp-provider (a plugin's own copy) has its own class: the code says as much.
  return error instanceof Error && /^OCP_[A-Z]+_[A-Z_]+$/.test(String((error as { code?: unknown }).code));
}
