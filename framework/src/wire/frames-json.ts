/**
 * The JSON text of a `frames` envelope, written field by field.
 *
 * A provider ships the same content again and again (a hot section, a popular
 * symbol), and escaping it is most of what `JSON.stringify` spends on a reply. This
 * writer knows the frame's shape, so it walks nothing generically, and it keeps the
 * escaped form of long strings in a bounded memo. Its output is byte for byte what
 * `JSON.stringify` gives for a frames envelope whose fields were created in schema
 * order, as the framework builds them: a property test holds the two equal on
 * envelopes built from arbitrary candidates.
 */
import { memoizeString } from "../cache/generational.js";
import type { ContextFrame, ContextQueryResult, FrameEmbedding, Provenance, Relation } from "./schemas.js";

/** Strings shorter than this are escaped directly: hashing them would cost as much as escaping. */
const MEMO_MIN_LENGTH = 48;
const literal = memoizeString((text) => JSON.stringify(text), 4096);

/** What JSON.stringify escapes in a string: quote, backslash, controls, and (lone) surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The JSON literal of a string; long ones come from the memo. */
function str(text: string): string {
  if (text.length >= MEMO_MIN_LENGTH) return literal(text);
  // Most short strings (ids, kinds, ranges, labels) need no escaping: quoting them is cheaper than JSON.stringify.
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** A number as JSON.stringify writes it (non-finite numbers become null). */
function num(value: number): string {
  return Number.isFinite(value) ? String(value) : "null";
}

/** `,"key":value` for a member that may be absent (undefined is left out, null kept). */
function opt(key: string, value: string | number | null | undefined): string {
  if (value === undefined) return "";
  if (value === null) return `,"${key}":null`;
  return `,"${key}":${typeof value === "string" ? str(value) : num(value)}`;
}

function provenance(entry: Provenance): string {
  // `type` comes first in every entry the framework builds; written like the others for nulls.
  return `{${opt("type", entry.type).slice(1)}${opt("uri", entry.uri)}${opt("range", entry.range)}${opt("digest", entry.digest)}${opt("method", entry.method)}${opt("by", entry.by)}}`;
}

function embedding(value: FrameEmbedding | undefined): string {
  if (value === undefined) return "";
  const vector = value.vector === undefined ? "" : `,"vector":[${value.vector.map(num).join(",")}]`;
  return `,"embedding":{"fingerprint":${str(value.fingerprint)}${vector}}`;
}

function relation(value: Relation): string {
  return `{"rel":${str(value.rel)},"target_uri":${str(value.target_uri)}${opt("display_name", value.display_name)}}`;
}

function list<T>(items: readonly T[], write: (item: T) => string): string {
  let out = "";
  for (let i = 0; i < items.length; i++) out += i === 0 ? write(items[i] as T) : `,${write(items[i] as T)}`;
  return out;
}

function frame(value: ContextFrame): string {
  return (
    `{"id":${str(value.id)},"kind":${str(value.kind)},"title":${str(value.title)},"content":${str(value.content)}` +
    `${opt("uri", value.uri)},"score":${num(value.score)},"token_cost":${num(value.token_cost)}` +
    `${opt("valid_from", value.valid_from)}${opt("valid_to", value.valid_to)}${opt("recorded_at", value.recorded_at)}` +
    `,"provenance":[${list(value.provenance, provenance)}]${opt("citation_label", value.citation_label)}` +
    `${embedding(value.embedding)},"relations":[${list(value.relations, relation)}]}`
  );
}

/** The JSON text of `{ type: "frames", result }` for a result the framework built. */
export function framesEnvelopeJson(result: ContextQueryResult): string {
  return `{"type":"frames","result":{"frames":[${list(result.frames, frame)}],"truncated":${result.truncated}${opt("dropped_estimate", result.dropped_estimate)}}}`;
}
