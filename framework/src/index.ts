/**
 * ocp-provider: write an Open Context Protocol (ocp/1.0-draft) provider by writing
 * only search. Transports live in subpath exports (`ocp-provider/stdio`,
 * `ocp-provider/http`) so importing the core starts no server and no child process.
 */

export { CodedError, isCodedError } from "./coded-error.js";
export { countLines, sliceLines } from "./pack/lines.js";
export { type PackOptions, type PackResult, packFrames } from "./pack/pack.js";
export { escapeLine } from "./provider/display-text.js";
export { ERROR_CODES, type ErrorCode, InvalidQueryError, OcpError, UserError } from "./provider/errors.js";
export { contentDigest, formatRange, mapRelevance } from "./provider/frames.js";
export { createLogger, type Logger, type LogLevel, silentLogger } from "./provider/logger.js";
export {
  type Candidate,
  type CandidateProvenance,
  CORE_VERSION,
  definePlugin,
  isPlugin,
  type LineRange,
  type Plugin,
  type PluginDefinition,
  type QueryExtension,
  type Resolution,
  type ScoreScale,
  type SearchContext,
  type SearchOutput,
  type SetupContext,
} from "./provider/plugin.js";
export {
  defineProvider,
  isProvider,
  type Provider,
  type ProviderOptions,
  type QueryOptions,
  type QueryTrace,
} from "./provider/provider.js";
export { createSession, type Session, type SessionHost, type SessionState } from "./provider/session.js";
export { type CacheStats, createTokenCounter, type TokenCounter, type TokenizerName } from "./tokens/counter.js";
export { TOKENIZER_ERROR_CODES, TokenizerMissingError } from "./tokens/errors.js";
export { parseListenAddress } from "./transports/http/listen.js";
export type {
  Capabilities,
  ContextFrame,
  ContextQuery,
  ContextQueryResult,
  DataFlow,
  Envelope,
  FrameKind,
  Provenance,
  ProviderInfo,
  Relation,
} from "./wire/schemas.js";
export { FRAME_KINDS } from "./wire/schemas.js";
export { PROTOCOL_VERSION, versionsCompatible } from "./wire/version.js";
