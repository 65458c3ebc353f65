/**
 * `ocp-provider/host`: the host side of OCP — connect to providers over stdio or
 * HTTP, gate egress providers behind recorded consent (C1, C2, C4), audit every
 * result against its budget (B2), fan one query out to several providers, and
 * render frames for a prompt as quoted, untrusted material (R3).
 */

export { connectHttp, type HttpConnectOptions, type HttpExchange, postEnvelope } from "../transports/http/client.js";
export { connectStdio, type StdioConnectOptions } from "../transports/stdio/client.js";
export { auditResult, totalTokenCost } from "./audit.js";
export type { ConnectOptions, ProviderConnection, QueryCallOptions, QueryInput } from "./connection.js";
export {
  type ConsentGate,
  type ConsentRecord,
  ConsentStore,
  type ConsentStoreOptions,
  NO_CONSENT,
  QUERY_PAYLOAD_DESCRIPTION,
} from "./consent.js";
export {
  BudgetViolationError,
  ConnectionClosedError,
  ConsentRequiredError,
  ConsentStoreError,
  type ConsentSubject,
  HOST_ERROR_CODES,
  HostError,
  type HostErrorCode,
  ProtocolViolationError,
  ProviderErrorReply,
  ProviderExitedError,
  ProviderTimeoutError,
  TokenizerRefusedError,
  VersionMismatchError,
} from "./errors.js";
export {
  Host,
  type HostQueryOptions,
  type HostQueryResult,
  type ProviderReport,
  type ProviderStatus,
} from "./host.js";
export {
  type AttributedFrame,
  DEFAULT_PREAMBLE,
  oneLine,
  type RenderForPromptOptions,
  renderForPrompt,
} from "./render.js";
