/**
 * `ocp-provider/wire`: the ocp/1.0-draft wire contract — schemas, types, the
 * tolerant reader, the strict writer and the version-family rule.
 *
 * Every name is listed here on purpose: what a module exports for the framework's own
 * use (the trusted-envelope brand, the fast readers and writers) stays off this surface.
 */
export {
  describeIssues,
  type EnvelopeSender,
  errorEnvelope,
  HOST_ENVELOPE_TYPES,
  InvalidEnvelopeError,
  PROVIDER_ENVELOPE_TYPES,
  type ReadResult,
  readEnvelope,
  readEnvelopeText,
  writeEnvelope,
} from "./codec.js";
export {
  type ExtensionName,
  readTokenizerOffer,
  readTokenizerRequest,
  type TokenizerOffer,
  withExtension,
} from "./extensions.js";
export { buildEnvelopeJsonSchema, ENVELOPE_SCHEMA_ID } from "./json-schema.js";
export {
  type Capabilities,
  CapabilitiesSchema,
  type ContextFrame,
  type ContextFrameInput,
  ContextFrameSchema,
  type ContextQuery,
  type ContextQueryResult,
  ContextQueryResultSchema,
  ContextQuerySchema,
  type DataFlow,
  DataFlowSchema,
  type Envelope,
  type EnvelopeInput,
  EnvelopeSchema,
  type EnvelopeType,
  type ErrorEnvelope,
  ErrorSchema,
  FRAME_KINDS,
  type FrameEmbedding,
  FrameEmbeddingSchema,
  type FrameKind,
  FrameKindSchema,
  type Frames,
  FramesSchema,
  type Handshake,
  type HandshakeAck,
  HandshakeAckSchema,
  HandshakeSchema,
  type Provenance,
  ProvenanceSchema,
  type ProviderInfo,
  ProviderInfoSchema,
  type Query,
  type QueryCapability,
  QueryCapabilitySchema,
  QuerySchema,
  type Relation,
  RelationSchema,
  type Shutdown,
  ShutdownSchema,
  VersionStringSchema,
} from "./schemas.js";
export { majorFamily, PROTOCOL_VERSION, SESSION_HEADER, VERSION_PATTERN, versionsCompatible } from "./version.js";
