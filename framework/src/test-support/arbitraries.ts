/**
 * fast-check arbitraries of VALID ocp/1.0-draft wire values, for property tests.
 *
 * Every value is plain JSON (no `undefined`, no `-0`, no NaN or infinities) that the
 * reference schema accepts: optional fields are absent, `null` or set; list fields are
 * arrays (the reference requires them; {@link withLooseLists} makes the absent and `null`
 * spellings the tolerant reader also takes). Strings mix ASCII, emoji (ZWJ sequences, skin tones),
 * CJK, right-to-left text, combining marks and the characters that trip JSON and
 * tokenizers (quotes, backslashes, U+2028, U+FEFF, U+0085, NUL). Lone surrogates are
 * left out: JSON can spell them but the reference (serde_json) refuses them.
 *
 * Test-only: fast-check is a devDependency, and framework/tsconfig.json keeps this
 * file out of the build.
 */
import fc from "fast-check";
import {
  FRAME_FIELDS,
  type FrameFieldShape,
  OPTIONAL_FRAME_SHAPES,
  QUERY_FIELDS,
  type QueryFieldShape,
} from "../wire/frame-fields.js";
import { FRAME_KINDS, type FrameKind } from "../wire/schemas.js";
import { PROTOCOL_VERSION } from "../wire/version.js";

/** A JSON object as the reader receives it. */
export type WireObject = { [key: string]: unknown };

/** Hand-picked units that break naive JSON writers and tokenizers. */
const TRICKY_UNITS = [
  " ",
  "\n",
  "\r\n",
  "\t",
  '"',
  "\\",
  "/",
  "\u0000",
  "\u2028",
  "\u2029",
  "\uFEFF",
  "\u0085",
  "\u00A0",
  "é",
  "e\u0301",
  "日本",
  "한국어",
  "مرحبا",
  "שלום",
  "👍🏽",
  "👨‍👩‍👧‍👦",
  "🏳️‍🌈",
  "🧑🏿‍💻",
  "<|endoftext|>",
  "ok",
] as const;

/** One unit of a wire string: a whole grapheme (any script), or one of the tricky units above. */
const wireUnit: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(...TRICKY_UNITS) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
);

/** Any string a wire field may carry (possibly empty): unicode, emoji, control and JSON-escape characters. */
export const arbitraryWireString: fc.Arbitrary<string> = fc.string({ unit: wireUnit, maxLength: 24 });

/** A non-empty wire string, for fields the contract requires non-empty (`id`, `title`, `citation_label`, ...). */
export const arbitraryNonEmptyWireString: fc.Arbitrary<string> = fc.string({
  unit: wireUnit,
  minLength: 1,
  maxLength: 24,
});

/** A finite JSON number that survives a JSON round trip unchanged (never `-0`). */
export const arbitraryJsonNumber: fc.Arbitrary<number> = fc
  .oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -1000, max: 1000 }))
  .map((value) => (Object.is(value, -0) ? 0 : value));

/** A relevance score in [0, 1], with the boundaries and ties drawn often. */
export const arbitraryScore: fc.Arbitrary<number> = fc
  .oneof(fc.constantFrom(0, 0.5, 1), fc.double({ min: 0, max: 1, noNaN: true }))
  .map((value) => (Object.is(value, -0) ? 0 : value));

/** A u32 on the wire (`token_cost`, `max_tokens`, ...), with small values drawn often. */
export const arbitraryU32: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 0, max: 5000 }),
  fc.integer({ min: 0, max: 4_294_967_295 }),
  fc.constantFrom(0, 4_294_967_295),
);

/** One of the seven frame kinds. */
export const arbitraryFrameKind: fc.Arbitrary<FrameKind> = fc.constantFrom(...FRAME_KINDS);

/** A version string `ocp/MAJOR.MINOR[-draft]`, this framework's own drawn often. */
export const arbitraryVersionString: fc.Arbitrary<string> = fc.oneof(
  fc.constant(PROTOCOL_VERSION),
  fc
    .tuple(fc.nat({ max: 20 }), fc.nat({ max: 20 }), fc.boolean())
    .map(([major, minor, draft]) => `ocp/${major}.${minor}${draft ? "-draft" : ""}`),
);

/** An optional wire field: absent, `null`, or a value (the reader must accept all three). */
function optionalField<T>(value: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.option(value, { nil: null, freq: 3 });
}

/** A list wire field: always an array, as the reference schema requires (the reader also takes absent and `null`). */
function listField<T>(item: fc.Arbitrary<T>, maxLength = 3): fc.Arbitrary<T[]> {
  return fc.array(item, { maxLength });
}

/** A record whose keys listed in `optional` may be absent. */
function wireRecord<T extends Record<string, fc.Arbitrary<unknown>>>(
  fields: T,
  optional: readonly (keyof T & string)[],
): fc.Arbitrary<WireObject> {
  const requiredKeys = Object.keys(fields).filter((key) => !optional.includes(key)) as (keyof T & string)[];
  return fc.record(fields, { requiredKeys }) as fc.Arbitrary<WireObject>;
}

/** A `Provenance` entry (`type` on the wire is the Rust field `kind`). */
export const arbitraryProvenance: fc.Arbitrary<WireObject> = wireRecord(
  {
    type: fc.oneof(fc.constantFrom("file", "derivation", "episode"), arbitraryNonEmptyWireString),
    uri: optionalField(arbitraryWireString),
    range: optionalField(arbitraryWireString),
    digest: optionalField(arbitraryWireString),
    method: optionalField(arbitraryWireString),
    by: optionalField(arbitraryWireString),
  },
  ["uri", "range", "digest", "method", "by"],
);

/** A graph `Relation`. */
export const arbitraryRelation: fc.Arbitrary<WireObject> = wireRecord(
  {
    rel: arbitraryNonEmptyWireString,
    target_uri: arbitraryNonEmptyWireString,
    display_name: optionalField(arbitraryWireString),
  },
  ["display_name"],
);

/** A `FrameEmbedding`, its vector sometimes elided. */
export const arbitraryFrameEmbedding: fc.Arbitrary<WireObject> = wireRecord(
  { fingerprint: arbitraryNonEmptyWireString, vector: optionalField(fc.array(arbitraryJsonNumber, { maxLength: 4 })) },
  ["vector"],
);

/** What each shape of frame field is drawn from (see frame-fields.ts). */
const FRAME_FIELD_ARBITRARY: Record<FrameFieldShape, fc.Arbitrary<unknown>> = {
  name: arbitraryNonEmptyWireString,
  text: fc.oneof(arbitraryWireString, fc.string({ unit: wireUnit, maxLength: 200 })),
  kind: arbitraryFrameKind,
  score: arbitraryScore,
  u32: arbitraryU32,
  optionalName: optionalField(arbitraryNonEmptyWireString),
  optionalText: optionalField(arbitraryWireString),
  provenance: listField(arbitraryProvenance),
  relations: listField(arbitraryRelation),
  embedding: optionalField(arbitraryFrameEmbedding),
};

/** Record fields drawn from a field table, in its order. */
function fromTable<S extends string>(
  table: Readonly<Record<string, S>>,
  arbitraryOf: Readonly<Record<S, fc.Arbitrary<unknown>>>,
): Record<string, fc.Arbitrary<unknown>> {
  return Object.fromEntries(Object.entries(table).map(([key, shape]) => [key, arbitraryOf[shape]]));
}

/**
 * A valid `ContextFrame`: score in [0, 1], non-empty id/title/citation_label, u32
 * token_cost. Drawn field by field from the frame field table, so a new field is drawn too.
 */
export const arbitraryContextFrame: fc.Arbitrary<WireObject> = wireRecord(
  fromTable(FRAME_FIELDS, FRAME_FIELD_ARBITRARY),
  Object.entries(FRAME_FIELDS).flatMap(([key, shape]) => (OPTIONAL_FRAME_SHAPES.has(shape) ? [key] : [])),
);

/** What each shape of query field is drawn from. */
const QUERY_FIELD_ARBITRARY: Record<QueryFieldShape, fc.Arbitrary<unknown>> = {
  goal: arbitraryNonEmptyWireString,
  optionalString: optionalField(arbitraryWireString),
  optionalNumbers: optionalField(fc.array(arbitraryJsonNumber, { maxLength: 4 })),
  kinds: listField(arbitraryFrameKind, 7),
  strings: listField(arbitraryWireString),
  u32: arbitraryU32,
};

/** A valid `ContextQuery`: non-empty goal, known kinds only, u32 limits; drawn from the query field table. */
export const arbitraryContextQuery: fc.Arbitrary<WireObject> = wireRecord(
  fromTable(QUERY_FIELDS, QUERY_FIELD_ARBITRARY),
  Object.entries(QUERY_FIELDS).flatMap(([key, shape]) => (shape.startsWith("optional") ? [key] : [])),
);

/** A valid `ContextQueryResult` (the frames' costs are arbitrary: budget honesty is not a schema rule). */
export const arbitraryContextQueryResult: fc.Arbitrary<WireObject> = wireRecord(
  {
    frames: listField(arbitraryContextFrame, 4),
    truncated: fc.boolean(),
    dropped_estimate: optionalField(arbitraryU32),
  },
  ["dropped_estimate"],
);

/** host → provider `handshake`. */
export const arbitraryHandshake: fc.Arbitrary<WireObject> = fc.record({
  type: fc.constant("handshake"),
  protocol_version: arbitraryVersionString,
});

/** provider → host `handshake_ack`, with identity, data flow and capabilities. */
export const arbitraryHandshakeAck: fc.Arbitrary<WireObject> = fc.record({
  type: fc.constant("handshake_ack"),
  protocol_version: arbitraryVersionString,
  provider: fc.record({
    name: arbitraryNonEmptyWireString,
    version: arbitraryNonEmptyWireString,
    data_flow: fc.record({ reads: fc.boolean(), writes: fc.boolean(), egress: fc.boolean() }),
  }),
  capabilities: wireRecord(
    {
      query: fc.record({ kinds: listField(arbitraryWireString), filters: listField(arbitraryWireString) }),
      upsert: fc.boolean(),
      graph: fc.boolean(),
      embeddings_fingerprint: optionalField(arbitraryWireString),
      subscribe: fc.boolean(),
    },
    ["embeddings_fingerprint"],
  ),
});

/** host → provider `query`. */
export const arbitraryQueryEnvelope: fc.Arbitrary<WireObject> = fc.record({
  type: fc.constant("query"),
  query: arbitraryContextQuery,
});

/** provider → host `frames`. */
export const arbitraryFramesEnvelope: fc.Arbitrary<WireObject> = fc.record({
  type: fc.constant("frames"),
  result: arbitraryContextQueryResult,
});

/** host → provider `shutdown`. */
export const arbitraryShutdown: fc.Arbitrary<WireObject> = fc.constant({ type: "shutdown" });

/** provider → host `error`, with a non-empty message. */
export const arbitraryErrorEnvelope: fc.Arbitrary<WireObject> = fc.record({
  type: fc.constant("error"),
  message: arbitraryNonEmptyWireString,
});

/** Envelopes a host sends. */
export const arbitraryHostEnvelope: fc.Arbitrary<WireObject> = fc.oneof(
  arbitraryHandshake,
  arbitraryQueryEnvelope,
  arbitraryShutdown,
);

/** Envelopes a provider sends. */
export const arbitraryProviderEnvelope: fc.Arbitrary<WireObject> = fc.oneof(
  arbitraryHandshakeAck,
  arbitraryFramesEnvelope,
  arbitraryErrorEnvelope,
);

/** Any of the six envelopes, with the side that sends it (what `readEnvelope` needs to know). */
export const arbitrarySentEnvelope: fc.Arbitrary<{ sender: "host" | "provider"; envelope: WireObject }> = fc.oneof(
  arbitraryHostEnvelope.map((envelope) => ({ sender: "host" as const, envelope })),
  arbitraryProviderEnvelope.map((envelope) => ({ sender: "provider" as const, envelope })),
);

/**
 * Extra fields the reader must ignore: keys no ocp/1.0-draft shape defines (they all
 * start with `x-`), with arbitrary JSON values.
 */
export const arbitraryUnknownFields: fc.Arbitrary<WireObject> = fc.dictionary(
  fc.string({ unit: wireUnit, maxLength: 8 }).map((key) => `x-${key}`),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 3 },
);

/**
 * Adds `extra`'s fields to every object inside `value` (envelope, payload, frames,
 * provenance, ...), leaving arrays of non-objects alone; returns a new value.
 */
export function withUnknownFields(value: unknown, extra: WireObject): unknown {
  if (Array.isArray(value)) return value.map((item) => withUnknownFields(item, extra));
  if (typeof value !== "object" || value === null) return value;
  const copy: WireObject = {};
  for (const [key, field] of Object.entries(value)) copy[key] = withUnknownFields(field, extra);
  for (const [key, field] of Object.entries(extra)) {
    if (!(key in copy)) copy[key] = field;
  }
  return copy;
}

/** How {@link withLooseLists} spells a list field. */
export type LooseList = "keep" | "absent" | "null";

/**
 * Respells every list field of a valid envelope (query kinds/anchors, result frames,
 * frame provenance/relations, capability kinds/filters) as `how` says, the way a
 * tolerant reader must accept them; the second value is the envelope the reader
 * should see (absent and `null` lists as `[]`). Returns new values.
 */
export function withLooseLists(envelope: WireObject, how: LooseList): [loose: WireObject, expected: WireObject] {
  const loose = structuredClone(envelope);
  const expected = structuredClone(envelope);
  const respell = (a: WireObject | undefined, b: WireObject | undefined, keys: readonly string[]) => {
    if (a === undefined || b === undefined || how === "keep") return;
    for (const key of keys) {
      if (how === "absent") delete a[key];
      else a[key] = null;
      b[key] = [];
    }
  };
  const child = (object: WireObject, key: string) => object[key] as WireObject | undefined;
  if (loose.type === "query") respell(child(loose, "query"), child(expected, "query"), ["kinds", "anchors"]);
  if (loose.type === "handshake_ack") {
    const looseQuery = child(child(loose, "capabilities") ?? {}, "query");
    const expectedQuery = child(child(expected, "capabilities") ?? {}, "query");
    respell(looseQuery, expectedQuery, ["kinds", "filters"]);
  }
  if (loose.type === "frames") {
    const looseResult = child(loose, "result");
    const expectedResult = child(expected, "result");
    const looseFrames = (looseResult?.frames ?? []) as WireObject[];
    const expectedFrames = (expectedResult?.frames ?? []) as WireObject[];
    looseFrames.forEach((frame, index) => {
      respell(frame, expectedFrames[index], ["provenance", "relations"]);
    });
    if (looseFrames.length === 0) respell(looseResult, expectedResult, ["frames"]);
  }
  return [loose, expected];
}
