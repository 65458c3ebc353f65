/**
 * The fields of a wire frame, once: their order on the wire and how each is written,
 * compared and drawn in property tests. The fast frames writer and its equality check
 * (frames-json.ts) are compiled from this table, the test arbitraries
 * (test-support/arbitraries.ts) are drawn from it, and its type names every key of
 * `ContextFrame`: a field added to the schema and not here fails the typecheck. The same for the query's fields and the fast query reader.
 */
import type { ContextFrame, ContextQuery } from "./schemas.js";

/**
 * How a frame field is shaped: `name` is a non-empty string, `text` any string; the
 * `optional…` ones may be absent; the rest are the nested shapes of the schema.
 */
export type FrameFieldShape =
  | "name"
  | "text"
  | "kind"
  | "score"
  | "u32"
  | "optionalName"
  | "optionalText"
  | "provenance"
  | "relations"
  | "embedding";

/** The frame's fields in wire (and schema) order, with their shapes. */
export const FRAME_FIELDS = {
  id: "name",
  kind: "kind",
  title: "name",
  content: "text",
  uri: "optionalText",
  score: "score",
  token_cost: "u32",
  valid_from: "optionalText",
  valid_to: "optionalText",
  recorded_at: "optionalText",
  provenance: "provenance",
  citation_label: "optionalName",
  embedding: "embedding",
  relations: "relations",
} as const satisfies Record<keyof ContextFrame, FrameFieldShape>;

/** A frame field's name. */
export type FrameField = keyof typeof FRAME_FIELDS;

/** Shapes whose field may be absent from a frame. */
export const OPTIONAL_FRAME_SHAPES: ReadonlySet<FrameFieldShape> = new Set([
  "optionalName",
  "optionalText",
  "embedding",
]);

/** How a query field is shaped (see {@link QUERY_FIELDS}). */
export type QueryFieldShape = "goal" | "optionalString" | "optionalNumbers" | "kinds" | "strings" | "u32";

/** The query's fields in schema order, with their shapes: the fast query reader reads them by this table. */
export const QUERY_FIELDS = {
  goal: "goal",
  query_text: "optionalString",
  embedding: "optionalNumbers",
  kinds: "kinds",
  anchors: "strings",
  max_frames: "u32",
  max_tokens: "u32",
  as_of: "optionalString",
} as const satisfies Record<keyof ContextQuery, QueryFieldShape>;
