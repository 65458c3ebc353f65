/**
 * The bridge's stable error codes (documented in docs/errors.md). A tool error result
 * carries its code at the end of its message and in `_meta["ocp/error_code"]`, so an
 * agent reads it and a program can match on it.
 */
import { CodedError } from "ocp-provider";

/** Stable codes of the MCP bridge. */
export const MCP_ERROR_CODES = {
  /** The provider answered the query with an OCP error (a bad query, no plugin could search). */
  QUERY: "OCP_ERR_MCP_QUERY",
  /** The provider did not answer within the bridge's time bound. */
  TIMEOUT: "OCP_ERR_MCP_TIMEOUT",
  /** The provider failed unexpectedly (a bug or a crash in it); details on stderr. */
  PROVIDER: "OCP_ERR_MCP_PROVIDER",
  /** The provider declares egress and the bridge was not allowed to serve it (C1). */
  EGRESS: "OCP_ERR_MCP_EGRESS",
  /** `resources/read` of a uri the bridge never linked, outside the root, or unreadable. */
  RESOURCE: "OCP_ERR_MCP_RESOURCE",
  /** The bridge's options are unusable (a bad tool name, a bad limit). */
  CONFIG: "OCP_ERR_MCP_CONFIG",
} as const;

/** One of {@link MCP_ERROR_CODES}. */
export type McpErrorCode = (typeof MCP_ERROR_CODES)[keyof typeof MCP_ERROR_CODES];

/** A bridge error with a stable code; its message ends with the code. */
export class McpBridgeError extends CodedError<McpErrorCode> {
  constructor(code: McpErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, `${message} (${code})`, options);
    this.name = "McpBridgeError";
  }
}
