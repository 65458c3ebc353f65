/**
 * A fast reader for the envelope a provider reads most: a well-formed `query`.
 *
 * Parsing a query with the Zod schema costs a few microseconds, as much as the rest
 * of a small answer. This reader checks the same constraints by hand and builds the
 * same value the schema would (keys in schema order, `null` read as absent, lists
 * defaulted to `[]`, unknown fields dropped). It never rejects: anything it is not
 * sure of, it leaves to the schema, which stays the authority and writes the error
 * messages. A property test holds its output strictly equal to the schema's.
 */
import { type ContextQuery, FRAME_KINDS } from "./schemas.js";

type Fields = Record<string, unknown>;

const KINDS: ReadonlySet<unknown> = new Set<unknown>(FRAME_KINDS);
const U32_MAX = 4_294_967_295;

function isU32(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= U32_MAX;
}

/** Every item passes `ok`; the copy the schema would make, or undefined. */
function listOf(value: unknown[], ok: (item: unknown) => boolean): unknown[] | undefined {
  for (let i = 0; i < value.length; i++) if (!ok(value[i])) return undefined;
  return value.length === 0 ? [] : value.slice();
}

const isString = (item: unknown) => typeof item === "string";
const isKind = (item: unknown) => KINDS.has(item);
const isFiniteNumber = (item: unknown) => typeof item === "number" && Number.isFinite(item);

/** A sentinel for "the schema must decide". */
const UNSURE = Symbol("unsure");

/** An optional field: null or undefined read as `undefined`; a value must pass `ok`. */
function optional(value: unknown, ok: (value: unknown) => boolean): unknown {
  if (value === undefined || value === null) return undefined;
  return ok(value) ? value : UNSURE;
}

/** A list field: absent or null read as `[]`; every item must pass `ok`. */
function list(value: unknown, ok: (item: unknown) => boolean): unknown[] | typeof UNSURE {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return UNSURE;
  return listOf(value, ok) ?? UNSURE;
}

/**
 * The `ContextQuery` the schema would read from `input`, or undefined when the
 * schema must decide (it may still accept, or reject with a message).
 */
export function readQueryFast(input: unknown): ContextQuery | undefined {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined;
  const fields = input as Fields;
  const { goal, max_frames: maxFrames, max_tokens: maxTokens } = fields;
  if (typeof goal !== "string" || goal.length === 0 || !isU32(maxFrames) || !isU32(maxTokens)) return undefined;
  const queryText = optional(fields.query_text, isString);
  const embedding =
    fields.embedding === undefined || fields.embedding === null ? undefined : list(fields.embedding, isFiniteNumber);
  const kinds = list(fields.kinds, isKind);
  const anchors = list(fields.anchors, isString);
  const asOf = optional(fields.as_of, isString);
  if (queryText === UNSURE || embedding === UNSURE || kinds === UNSURE || anchors === UNSURE || asOf === UNSURE) {
    return undefined;
  }
  // Built in schema order. A field present as null stays present as `undefined`, as in the schema's output.
  const query: Fields = { goal };
  if ("query_text" in fields) query.query_text = queryText;
  if ("embedding" in fields) query.embedding = embedding;
  query.kinds = kinds;
  query.anchors = anchors;
  query.max_frames = maxFrames;
  query.max_tokens = maxTokens;
  if ("as_of" in fields) query.as_of = asOf;
  return query as ContextQuery;
}
