/**
 * The JSON text of a `frames` envelope, written field by field.
 *
 * A provider ships the same content again and again (a hot section, a popular
 * symbol), and escaping it is most of what `JSON.stringify` spends on a reply. This
 * writer knows the frame's shape, so it walks nothing generically; it keeps the
 * escaped form of long strings in a bounded memo, and reuses the JSON of a frame equal,
 * field by field, to the last one written with its id. Its output is byte for byte
 * what `JSON.stringify` gives for a frames envelope whose fields were created in
 * schema order, as the framework builds them: property tests hold the two equal.
 *
 * The frame's JSON and the equality check are compiled once from the field table
 * (frame-fields.ts) into the straight-line code one would write by hand: a field added
 * to the schema reaches both, in its place, or the table fails the typecheck.
 *
 * The memos and the buffer slab belong to one {@link FramesWriter}: each provider makes
 * its own (see `createFramesWriter`), so two providers in one process share none of them.
 */
import { GenerationalCache, memoizeString } from "../cache/generational.js";
import { FRAME_FIELDS, type FrameFieldShape } from "./frame-fields.js";
import type { ContextFrame, ContextQueryResult, FrameEmbedding, Provenance, Relation } from "./schemas.js";

/** Strings shorter than this are escaped directly: hashing them would cost as much as escaping. */
const MEMO_MIN_LENGTH = 48;
/**
 * Nor are very long ones: the memos hold what they keep alive (a string, its JSON, a
 * frame's bytes), and a cap per entry bounds them to a few MiB whatever ships.
 */
const MEMO_MAX_LENGTH = 8 * 1024;
/** What JSON.stringify escapes in a string: quote, backslash, controls, and (lone) surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The JSON literal of a short string. */
function shortStr(text: string): string {
  // Most short strings (ids, kinds, ranges, labels) need no escaping: quoting them is cheaper than JSON.stringify.
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** A number as JSON.stringify writes it (non-finite numbers become null). */
function num(value: number): string {
  return Number.isFinite(value) ? String(value) : "null";
}

function list<T>(items: readonly T[], write: (item: T) => string): string {
  let out = "";
  for (let i = 0; i < items.length; i++) out += i === 0 ? write(items[i] as T) : `,${write(items[i] as T)}`;
  return out;
}

const FRAMES_HEAD = '{"type":"frames","result":{"frames":[';
const HEAD_BYTES = Buffer.from(FRAMES_HEAD);
const COMMA_BYTES = Buffer.from(",");
/**
 * Lines are cut from 64 KiB slabs: Node's own 8 KiB pool made a new ArrayBuffer every
 * three or four 2 KB replies, which cost as much as assembling them. A slab stays
 * alive while any line cut from it is still being written.
 */
const SLAB_BYTES = 64 * 1024;

/** A frame as last written: its JSON, and that JSON's UTF-8 bytes once asked for. */
interface Written {
  readonly frame: ContextFrame;
  readonly json: string;
  bytes: Buffer | undefined;
}

/** Writes the frames envelopes of one provider, with that provider's own memos. */
export interface FramesWriter {
  /** The JSON text of `{ type: "frames", result }` for a result the framework built. */
  json(result: ContextQueryResult): string;
  /**
   * {@link FramesWriter.json} plus a newline, as UTF-8 bytes: an NDJSON line ready for a
   * pipe. Each frame's bytes are kept with its memoised JSON, so a reply is a copy of
   * ready bytes: encoding a 2 KB reply string (a concatenation, often with a character
   * beyond Latin-1, so two bytes per character in memory) took longer than the copy.
   */
  line(result: ContextQueryResult): Buffer;
}

/** A frames writer with memos of its own: one per provider. */
export function createFramesWriter(): FramesWriter {
  const literal = memoizeString((text) => JSON.stringify(text), 512);
  /**
   * The last frame written per id, with its JSON. A provider answers the same sections
   * again and again; a frame equal field by field to the last one with its id is not
   * written again. Bounded in entries, and frames over 16 Ki characters of JSON are not kept.
   */
  const written = new GenerationalCache<string, Written>(256);
  let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  let slabUsed = 0;

  /** The JSON literal of a string; long ones come from the memo. */
  function str(text: string): string {
    if (text.length >= MEMO_MIN_LENGTH) return text.length <= MEMO_MAX_LENGTH ? literal(text) : JSON.stringify(text);
    return shortStr(text);
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

  function embedding(key: string, value: FrameEmbedding | undefined): string {
    if (value === undefined) return "";
    const vector = value.vector === undefined ? "" : `,"vector":[${value.vector.map(num).join(",")}]`;
    return `,"${key}":{"fingerprint":${str(value.fingerprint)}${vector}}`;
  }

  function relation(value: Relation): string {
    return `{"rel":${str(value.rel)},"target_uri":${str(value.target_uri)}${opt("display_name", value.display_name)}}`;
  }

  const frameJson = compileFrameJson({ str, num, opt, list, provenance, relation, embedding });

  function lastWritten(value: ContextFrame): Written {
    const last = written.get(value.id);
    if (last !== undefined && sameFrame(last.frame, value)) return last;
    const entry: Written = { frame: value, json: frameJson(value), bytes: undefined };
    if (entry.json.length <= 2 * MEMO_MAX_LENGTH) written.set(value.id, entry);
    return entry;
  }

  const frame = (value: ContextFrame): string => lastWritten(value).json;

  function frameBytes(value: ContextFrame): Buffer {
    const entry = lastWritten(value);
    entry.bytes ??= Buffer.from(entry.json, "utf8");
    return entry.bytes;
  }

  function resultTail(result: ContextQueryResult): string {
    return `],"truncated":${result.truncated}${opt("dropped_estimate", result.dropped_estimate)}}}`;
  }

  function slice(length: number): Buffer {
    if (length > SLAB_BYTES / 4) return Buffer.allocUnsafeSlow(length);
    if (slabUsed + length > SLAB_BYTES) {
      slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      slabUsed = 0;
    }
    const line = slab.subarray(slabUsed, slabUsed + length);
    // Next line on an 8-byte boundary, as Node's pool aligns its slices.
    slabUsed = (slabUsed + length + 7) & ~7;
    return line;
  }

  return {
    json: (result) => `${FRAMES_HEAD}${list(result.frames, frame)}${resultTail(result)}`,
    line(result) {
      const parts: Buffer[] = [HEAD_BYTES];
      let length = HEAD_BYTES.length;
      const { frames } = result;
      for (let i = 0; i < frames.length; i++) {
        if (i > 0) {
          parts.push(COMMA_BYTES);
          length += 1;
        }
        const bytes = frameBytes(frames[i] as ContextFrame);
        parts.push(bytes);
        length += bytes.length;
      }
      const tail = `${resultTail(result)}\n`;
      const line = slice(length + tail.length);
      let at = 0;
      for (const part of parts) at += part.copy(line, at);
      line.write(tail, at, "latin1"); // the tail is ASCII
      return line;
    },
  };
}

/** The helpers a compiled frame writer calls: the writer's own, with its memos. */
interface WriteHelpers {
  str(text: string): string;
  num(value: number): string;
  opt(key: string, value: string | number | null | undefined): string;
  list<T>(items: readonly T[], write: (item: T) => string): string;
  provenance(entry: Provenance): string;
  relation(value: Relation): string;
  embedding(key: string, value: FrameEmbedding | undefined): string;
}

/** The source of one field's part of a frame's JSON, by shape (`first`: the opening field, no comma). */
const WRITE: Record<FrameFieldShape, (key: string, first: boolean) => string> = {
  name: (key, first) => `${first ? "{" : ","}"${key}":\${h.str(value.${key})}`,
  text: (key, first) => `${first ? "{" : ","}"${key}":\${h.str(value.${key})}`,
  kind: (key, first) => `${first ? "{" : ","}"${key}":\${h.str(value.${key})}`,
  score: (key) => `,"${key}":\${h.num(value.${key})}`,
  u32: (key) => `,"${key}":\${h.num(value.${key})}`,
  optionalName: (key) => `\${h.opt("${key}", value.${key})}`,
  optionalText: (key) => `\${h.opt("${key}", value.${key})}`,
  provenance: (key) => `,"${key}":[\${h.list(value.${key}, h.provenance)}]`,
  relations: (key) => `,"${key}":[\${h.list(value.${key}, h.relation)}]`,
  embedding: (key) => `\${h.embedding("${key}", value.${key})}`,
};

/** The source of one field's equality test, by shape. */
const SAME: Record<FrameFieldShape, (key: string) => string> = {
  name: (key) => `a.${key} === b.${key}`,
  text: (key) => `a.${key} === b.${key}`,
  kind: (key) => `a.${key} === b.${key}`,
  // Object.is: 0 and -0 are written alike, but a frame's memoised JSON must be its own.
  score: (key) => `Object.is(a.${key}, b.${key})`,
  u32: (key) => `a.${key} === b.${key}`,
  optionalName: (key) => `a.${key} === b.${key}`,
  optionalText: (key) => `a.${key} === b.${key}`,
  provenance: (key) => `h.sameList(a.${key}, b.${key}, h.sameProvenance)`,
  relations: (key) => `h.sameList(a.${key}, b.${key}, h.sameRelation)`,
  embedding: (key) => `h.sameEmbedding(a.${key}, b.${key})`,
};

/** The table's fields, checked to be plain identifiers: they are spliced into compiled source. */
function fieldEntries(): [string, FrameFieldShape][] {
  const entries = Object.entries(FRAME_FIELDS) as [string, FrameFieldShape][];
  for (const [key] of entries) if (!/^[a-z_]+$/.test(key)) throw new Error(`frame field '${key}' is not a plain name`);
  return entries;
}

/**
 * Compiles a frame's JSON writer from the field table: one template literal, field after
 * field, as it would be written by hand (a loop over the table cost a keyed lookup per
 * field and frame). Only fields the table names are written.
 */
function compileFrameJson(helpers: WriteHelpers): (value: ContextFrame) => string {
  const parts = fieldEntries().map(([key, shape], index) => WRITE[shape](key, index === 0));
  const make = new Function("h", `return function frameJson(value) { return \`${parts.join("")}}\`; };`);
  return make(helpers) as (value: ContextFrame) => string;
}

/**
 * True if the two frames would be written alike: every field that reaches the JSON is
 * equal. Compiled from the field table like the writer, so the two name the same fields.
 */
const sameFrame = ((): ((a: ContextFrame, b: ContextFrame) => boolean) => {
  const tests = fieldEntries().map(([key, shape]) => SAME[shape](key));
  const make = new Function("h", `return function sameFrame(a, b) { return ${tests.join(" && ")}; };`);
  return make({ sameList, sameProvenance, sameRelation, sameEmbedding });
})();

function sameList<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!same(a[i] as T, b[i] as T)) return false;
  return true;
}

function sameProvenance(a: Provenance, b: Provenance): boolean {
  return (
    a.type === b.type &&
    a.uri === b.uri &&
    a.range === b.range &&
    a.digest === b.digest &&
    a.method === b.method &&
    a.by === b.by
  );
}

function sameRelation(a: Relation, b: Relation): boolean {
  return a.rel === b.rel && a.target_uri === b.target_uri && a.display_name === b.display_name;
}

function sameEmbedding(a: FrameEmbedding | undefined, b: FrameEmbedding | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.fingerprint !== b.fingerprint) return false;
  if (a.vector === undefined || b.vector === undefined) return a.vector === b.vector;
  return sameList(a.vector, b.vector, Object.is);
}
