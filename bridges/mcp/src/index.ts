/**
 * ocp-provider-mcp: serve any OCP provider (`defineProvider()`) to Model Context
 * Protocol clients, on the official MCP SDK. One tool answers with frames rendered as
 * quoted, cited material whose whole text fits the agent's `max_tokens` exactly, plus
 * a resource link per source; consent (egress) and the HTTP guards carry over.
 * The HTTP app itself is in `ocp-provider-mcp/http`, so serving over stdio never loads it.
 */
export { createMcpBridge, ERROR_CODE_META, type McpBridge, type McpBridgeOptions } from "./bridge.js";
export { type BridgeQuery, type BudgetedAnswer, createBudgetedAnswerer } from "./budget.js";
export { MCP_ERROR_CODES, McpBridgeError, type McpErrorCode } from "./errors.js";
export type { McpHttpOptions, McpHttpServer } from "./http.js";
export {
  type Closing,
  type ContextRenderer,
  type ContextRendering,
  closingLine,
  createContextRenderer,
} from "./render.js";
export {
  type AskProvider,
  type FactQuestion,
  MAX_RESOURCE_BYTES,
  ResourceRegistry,
  type ResourceRegistryOptions,
  readInsideRoot,
  type SessionResources,
} from "./resources.js";
export { type McpServing, runMcp, type ServeMcpOptions, serveMcp } from "./serve.js";
export {
  INVALID_REQUEST,
  type McpByteSink,
  type McpByteSource,
  type McpStdioOptions,
  McpStdioTransport,
  PARSE_ERROR,
} from "./stdio.js";
export { inputSchema, MIN_MAX_TOKENS, outputSchema, toolAnnotations, toolDescription } from "./tool.js";
