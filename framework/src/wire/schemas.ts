/**
 * The ocp/1.0-draft wire contract as Zod schemas: the authoritative shapes.
 *
 * One set of schemas serves both directions:
 * - tolerant reader: `null` reads as absent, list fields default to `[]`, and
 *   unknown fields are stripped (never rejected);
 * - strict writer: everything we emit is parsed through the same schema first,
 *   so it carries no extra field and meets every constraint of the reference
 *   schema (`z.toJSONSchema` of these is `schema/ocp-envelope.schema.json`).
 *
 * Field names are the wire names (`token_cost`, `citation_label`).
 */
import { z } from "zod";
import { VERSION_PATTERN } from "./version.js";

const absentIfNull = (value: unknown) => (value === null ? undefined : value);

/** An optional field: absent or `null` on input, absent on output. */
function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess(absentIfNull, schema.optional());
}

/** A list field: absent or `null` reads as `[]`; always written. */
function list<T extends z.ZodType>(item: T) {
  return z.preprocess(absentIfNull, z.array(item).default([]));
}

const u32 = () => z.int().min(0).max(4_294_967_295);

/** `ocp/MAJOR.MINOR` with an optional `-draft` suffix. */
export const VersionStringSchema = z
  .string()
  .regex(VERSION_PATTERN, "must look like ocp/MAJOR.MINOR or ocp/MAJOR.MINOR-draft");

/** The seven frame kinds of ocp/1.0-draft. */
export const FRAME_KINDS = ["snippet", "symbol", "fact", "doc", "memory", "episode", "graph"] as const;

/** A frame kind on the wire. */
export const FrameKindSchema = z.enum(FRAME_KINDS).meta({ id: "FrameKind" });
export type FrameKind = z.infer<typeof FrameKindSchema>;

/** What a provider does with data; `egress` gates it behind host consent (C1). */
export const DataFlowSchema = z
  .object({ reads: z.boolean(), writes: z.boolean(), egress: z.boolean() })
  .meta({ id: "DataFlow", description: "What a provider does with data. egress is the security-critical field." });
export type DataFlow = z.infer<typeof DataFlowSchema>;

/** Provider identity and declared data flow, shown to a person at consent time. */
export const ProviderInfoSchema = z
  .object({ name: z.string().min(1), version: z.string().min(1), data_flow: DataFlowSchema })
  .meta({ id: "ProviderInfo" });
export type ProviderInfo = z.infer<typeof ProviderInfoSchema>;

/** The frame kinds and filters a provider serves. */
export const QueryCapabilitySchema = z
  .object({ kinds: list(z.string()), filters: list(z.string()) })
  .meta({ id: "QueryCapability" });
export type QueryCapability = z.infer<typeof QueryCapabilitySchema>;

/** What a provider can do, negotiated at the handshake. */
export const CapabilitiesSchema = z
  .object({
    query: QueryCapabilitySchema,
    upsert: z.boolean(),
    graph: z.boolean(),
    // Nullable rather than optional: the reference provider writes `null` here.
    embeddings_fingerprint: z.string().nullable().optional(),
    subscribe: z.boolean(),
  })
  .meta({ id: "Capabilities" });
export type Capabilities = z.infer<typeof CapabilitiesSchema>;

/** A retrieval request; `max_tokens` is a hard contract, not a hint. */
export const ContextQuerySchema = z
  .object({
    goal: z.string().min(1),
    query_text: optional(z.string()),
    embedding: optional(z.array(z.number())),
    kinds: list(FrameKindSchema),
    anchors: list(z.string()),
    max_frames: u32(),
    max_tokens: u32(),
    as_of: optional(z.string()),
  })
  .meta({ id: "ContextQuery" });
export type ContextQuery = z.infer<typeof ContextQuerySchema>;

/** An origin entry of a frame. The Rust field `kind` is `type` on the wire. */
export const ProvenanceSchema = z
  .object({
    type: z.string().min(1),
    uri: optional(z.string()),
    range: optional(z.string()),
    digest: optional(z.string()),
    method: optional(z.string()),
    by: optional(z.string()),
  })
  .meta({ id: "Provenance" });
export type Provenance = z.infer<typeof ProvenanceSchema>;

/** A graph edge, surfaced by its human `display_name`, never a raw id. */
export const RelationSchema = z
  .object({ rel: z.string().min(1), target_uri: z.string().min(1), display_name: optional(z.string()) })
  .meta({ id: "Relation" });
export type Relation = z.infer<typeof RelationSchema>;

/** A frame's embedding: the fingerprint identifies it, the vector may be elided. */
export const FrameEmbeddingSchema = z
  .object({ fingerprint: z.string().min(1), vector: optional(z.array(z.number())) })
  .meta({ id: "FrameEmbedding" });
export type FrameEmbedding = z.infer<typeof FrameEmbeddingSchema>;

/** The unit of exchange: relevance, honest cost, provenance and validity around untrusted content. */
export const ContextFrameSchema = z
  .object({
    id: z.string().min(1),
    kind: FrameKindSchema,
    title: z.string().min(1),
    content: z.string(),
    uri: optional(z.string()),
    score: z.number().min(0).max(1),
    token_cost: u32(),
    valid_from: optional(z.string()),
    valid_to: optional(z.string()),
    recorded_at: optional(z.string()),
    provenance: list(ProvenanceSchema),
    citation_label: optional(z.string().min(1)),
    embedding: optional(FrameEmbeddingSchema),
    relations: list(RelationSchema),
  })
  .meta({ id: "ContextFrame" });
export type ContextFrame = z.infer<typeof ContextFrameSchema>;

/** The answer to a query; `truncated` says more candidates existed than fit. */
export const ContextQueryResultSchema = z
  .object({ frames: list(ContextFrameSchema), truncated: z.boolean(), dropped_estimate: optional(u32()) })
  .meta({ id: "ContextQueryResult" });
export type ContextQueryResult = z.infer<typeof ContextQueryResultSchema>;

/** host → provider: the version the host speaks. */
export const HandshakeSchema = z
  .object({ type: z.literal("handshake"), protocol_version: VersionStringSchema })
  .meta({ id: "Handshake" });
/** provider → host: the provider's version, identity and capabilities. */
export const HandshakeAckSchema = z
  .object({
    type: z.literal("handshake_ack"),
    protocol_version: VersionStringSchema,
    provider: ProviderInfoSchema,
    capabilities: CapabilitiesSchema,
  })
  .meta({ id: "HandshakeAck" });
/** host → provider: a retrieval request. */
export const QuerySchema = z.object({ type: z.literal("query"), query: ContextQuerySchema }).meta({ id: "Query" });
/** provider → host: the answer to a query. */
export const FramesSchema = z
  .object({ type: z.literal("frames"), result: ContextQueryResultSchema })
  .meta({ id: "Frames" });
/** host → provider: end of session. */
export const ShutdownSchema = z.object({ type: z.literal("shutdown") }).meta({ id: "Shutdown" });
/** provider → host: a problem reported without crashing. */
export const ErrorSchema = z.object({ type: z.literal("error"), message: z.string().min(1) }).meta({ id: "Error" });

/** One wire message: one NDJSON line over stdio, one body over HTTP. */
export const EnvelopeSchema = z
  .discriminatedUnion("type", [
    HandshakeSchema,
    HandshakeAckSchema,
    QuerySchema,
    FramesSchema,
    ShutdownSchema,
    ErrorSchema,
  ])
  .meta({ id: "Envelope", title: "OCP envelope" });

export type Handshake = z.infer<typeof HandshakeSchema>;
export type HandshakeAck = z.infer<typeof HandshakeAckSchema>;
export type Query = z.infer<typeof QuerySchema>;
export type Frames = z.infer<typeof FramesSchema>;
export type Shutdown = z.infer<typeof ShutdownSchema>;
export type ErrorEnvelope = z.infer<typeof ErrorSchema>;
/** Any envelope, as read or as written. */
export type Envelope = z.infer<typeof EnvelopeSchema>;
/** The envelope type names. */
export type EnvelopeType = Envelope["type"];
/** What a caller may build before the writer fills defaults (`relations: []` and so on). */
export type EnvelopeInput = z.input<typeof EnvelopeSchema>;
/** A frame as a caller may build it, before defaults. */
export type ContextFrameInput = z.input<typeof ContextFrameSchema>;
