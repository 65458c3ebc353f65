/**
 * A fast reader for the envelope a provider reads most: a well-formed `query`.
 *
 * Parsing a query with the Zod schema costs a few microseconds, as much as the rest
 * of a small answer. This reader checks the same constraints by hand and builds the
 * same value the schema would (keys in schema order, `null` read as absent, lists
 * defaulted to `[]`, unknown fields dropped). It never rejects: anything it is not
 * sure of, it leaves to the schema, which stays the authority and writes the error
 * messages. A property test holds its output strictly equal to the schema's.
 *
 * Its field list is the query field table's (frame-fields.ts), compiled once into the
 * straight-line reader one would write by hand: a field added to the schema and the
 * table is read too, and one added to the schema alone fails the typecheck.
 */
import { QUERY_FIELDS, type QueryFieldShape } from "./frame-fields.js";
import { type ContextQuery, FRAME_KINDS } from "./schemas.js";

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

/** How each shape of query field is read: its value as the schema would give it, or {@link UNSURE}. */
const READ: Record<QueryFieldShape, (value: unknown) => unknown> = {
  goal: (value) => (typeof value === "string" && value.length > 0 ? value : UNSURE),
  optionalString: (value) => optional(value, isString),
  optionalNumbers: (value) => (value === undefined || value === null ? undefined : list(value, isFiniteNumber)),
  kinds: (value) => list(value, isKind),
  strings: (value) => list(value, isString),
  u32: (value) => (isU32(value) ? value : UNSURE),
};

/** Shapes whose field is left out of the result when the host left it out (the schema's `optional`). */
const OPTIONAL_SHAPES: ReadonlySet<QueryFieldShape> = new Set(["optionalString", "optionalNumbers"]);

/**
 * Compiles the reader from the table: each field read by its shape, then the result
 * built in schema order, a field present as null kept present as `undefined`, as in
 * the schema's output. Straight-line code: a loop over the table cost a keyed lookup
 * per field and query.
 */
function compileReader(): (input: unknown) => ContextQuery | undefined {
  const entries = Object.entries(QUERY_FIELDS) as [string, QueryFieldShape][];
  for (const [key] of entries) if (!/^[a-z_]+$/.test(key)) throw new Error(`query field '${key}' is not a plain name`);
  const reads = entries.map(
    ([key, shape], index) =>
      `const v${index} = read.${shape}(fields.${key}); if (v${index} === UNSURE) return undefined;`,
  );
  const builds = entries.map(([key, shape], index) =>
    OPTIONAL_SHAPES.has(shape) ? `if ("${key}" in fields) query.${key} = v${index};` : `query.${key} = v${index};`,
  );
  const source = `return function readQueryFast(input) {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined;
    const fields = input;
    ${reads.join("\n    ")}
    const query = {};
    ${builds.join("\n    ")}
    return query;
  };`;
  return new Function("read", "UNSURE", source)(READ, UNSURE);
}

/**
 * The `ContextQuery` the schema would read from `input`, or undefined when the
 * schema must decide (it may still accept, or reject with a message).
 */
export const readQueryFast: (input: unknown) => ContextQuery | undefined = compileReader();
