/**
 * Errors of the scaffolder and the codemods: a stable code and a message written for
 * the person at the terminal (see docs/create.md for the list).
 */
import { CodedError } from "ocp-provider/cli";

/** Stable codes of the generator's errors. */
export const CREATE_ERROR_CODES = {
  /** A command-line argument is missing or malformed (exit 2). */
  USAGE: "OCP_ERR_USAGE",
  /** The target directory is not empty and `--overwrite` was not given. */
  TARGET_NOT_EMPTY: "OCP_ERR_CREATE_TARGET_NOT_EMPTY",
  /** Writing the project failed (a template could not be rendered or a file written). */
  GENERATE_FAILED: "OCP_ERR_CREATE_GENERATE_FAILED",
  /** `npm install` (or the package manager in use) failed in the new project. */
  INSTALL_FAILED: "OCP_ERR_CREATE_INSTALL_FAILED",
  /** The person cancelled a prompt. */
  CANCELLED: "OCP_ERR_CREATE_CANCELLED",
  /** A codemod found no `defineProvider({ ... plugins: [...] })` it can edit. */
  NO_PROVIDER: "OCP_ERR_CODEMOD_NO_PROVIDER",
  /** A codemod target file or project is missing or unreadable. */
  CODEMOD_TARGET: "OCP_ERR_CODEMOD_TARGET",
  /** A file the scaffolder or a codemod would write, or a directory on its way, is a symbolic link. */
  SYMLINK: "OCP_ERR_CREATE_SYMLINK",
  /** A plugin's `"ocp"` field in its package.json is malformed (a field missing, a name taken twice). */
  PLUGIN_DECLARATION: "OCP_ERR_CREATE_PLUGIN_DECLARATION",
} as const;

/** One of {@link CREATE_ERROR_CODES}. */
export type CreateErrorCode = (typeof CREATE_ERROR_CODES)[keyof typeof CREATE_ERROR_CODES];

/** An error of the scaffolder or a codemod, with a stable code. */
export class CreateError extends CodedError<CreateErrorCode> {
  constructor(code: CreateErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "CreateError";
  }
}
