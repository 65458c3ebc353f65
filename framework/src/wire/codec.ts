/**
 * Reading and writing envelopes: the tolerant reader and the strict writer.
 *
 * The reader turns any JSON value into either an envelope or a message a
 * person can act on ("query.max_tokens: expected an integer"); it never throws.
 * The writer validates before it serialises, so nothing malformed reaches a peer.
 */
import type { z } from "zod";
import { extensionFields } from "./extensions.js";
import { readQueryFast } from "./fast-query.js";
import type { FramesWriter } from "./frames-json.js";
import { type Envelope, EnvelopeSchema, type EnvelopeType, FRAME_KINDS } from "./schemas.js";

type FramesEnvelope = Extract<Envelope, { type: "frames" }>;

/** Envelope types a host sends to a provider. */
export const HOST_ENVELOPE_TYPES = ["handshake", "query", "shutdown"] as const;
/** Envelope types a provider sends to a host. */
export const PROVIDER_ENVELOPE_TYPES = ["handshake_ack", "frames", "error"] as const;

/** Who sent the envelope being read: decides which types are acceptable. */
export type EnvelopeSender = "host" | "provider";

/** The outcome of reading: a value, or a human message naming the problem. */
export type ReadResult<T> = { ok: true; value: T } | { ok: false; message: string };

const ALL_TYPES: readonly string[] = [...HOST_ENVELOPE_TYPES, ...PROVIDER_ENVELOPE_TYPES];

/**
 * Describes Zod issues as `path: message; path: message`. `input` is the value that
 * was parsed: with it, an unknown frame kind is named as the reference does
 * ("unsupported frame kind: 'image'").
 */
export function describeIssues(error: z.ZodError, input?: unknown): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.join(".");
      if (issue.code === "invalid_value" && issue.path.at(-2) === "kinds") {
        const kind = issue.path.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown>)?.[key], input);
        return `unsupported frame kind: '${String(kind)}' (expected one of ${FRAME_KINDS.join(", ")})`;
      }
      return path === "" ? issue.message : `${path}: ${issue.message}`;
    })
    .join("; ");
}

/**
 * Reads one decoded JSON value as an envelope from `sender`.
 * Unknown fields are dropped and `null` reads as absent; types the sender may
 * not send (a host sending `frames`) are refused by name.
 */
export function readEnvelope(value: unknown, sender: EnvelopeSender): ReadResult<Envelope> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, message: `an envelope must be a JSON object, got ${describeJsonType(value)}` };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string") {
    return { ok: false, message: "envelope has no string 'type' field" };
  }
  if (!ALL_TYPES.includes(type)) {
    return { ok: false, message: `unknown envelope type '${truncate(type, 64)}'` };
  }
  const allowed: readonly string[] = sender === "host" ? HOST_ENVELOPE_TYPES : PROVIDER_ENVELOPE_TYPES;
  if (!allowed.includes(type)) {
    const other = sender === "host" ? "provider" : "host";
    return { ok: false, message: `'${type}' is sent by a ${other}, not by a ${sender}` };
  }
  if (type === "query") {
    // The envelope read most often takes a hand-written path; the schema decides anything else.
    const query = readQueryFast((value as { query?: unknown }).query);
    if (query !== undefined) return { ok: true, value: { type: "query", query } };
  }
  const parsed = EnvelopeSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: `invalid ${type}: ${describeIssues(parsed.error, value)}` };
  return { ok: true, value: parsed.data };
}

/** Decodes one NDJSON line (or HTTP body) and reads it as an envelope from `sender`. */
export function readEnvelopeText(text: string, sender: EnvelopeSender): ReadResult<Envelope> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `malformed JSON: ${truncate(reason, 120)}` };
  }
  return readEnvelope(value, sender);
}

/** Thrown by the writer when we are about to emit something invalid: always a bug on our side. */
export class InvalidEnvelopeError extends Error {
  /** The envelope type that failed to validate. */
  readonly envelopeType: string;
  constructor(type: string, detail: string) {
    super(`refusing to write an invalid ${type} envelope: ${detail}`);
    this.name = "InvalidEnvelopeError";
    this.envelopeType = type;
  }
}

/** The brand {@link trustEnvelope} puts on an envelope: a symbol, so JSON never sees it. */
const TRUSTED: unique symbol = Symbol("ocp-provider.trusted");

/**
 * Marks a frames envelope the framework built from checked parts as valid by
 * construction, so {@link writeEnvelope} serialises it with `writer` (the building
 * provider's own, with its memos) without checking it again. Internal, and not exported
 * by `ocp-provider/wire`: the frames a provider builds are the one use, and a property
 * test holds every such envelope to the reference schema. Returns the envelope.
 */
export function trustEnvelope<T extends object>(envelope: T, writer: FramesWriter): T {
  // A property rather than a WeakSet entry: one entry per reply made every young-generation
  // collection walk the set's table.
  Object.defineProperty(envelope, TRUSTED, { value: writer });
  return envelope;
}

/**
 * Validates an envelope strictly and serialises it to one line of JSON (no newline).
 * Extra fields are dropped, defaults filled; a violated constraint throws {@link InvalidEnvelopeError}.
 * The one exception: an envelope marked by `withExtension` (extensions.ts) keeps that
 * extension's fields, checked against the extension's own schema.
 */
export function writeEnvelope(envelope: Envelope | { type: EnvelopeType; [key: string]: unknown }): string {
  const writer = (envelope as { [TRUSTED]?: FramesWriter })[TRUSTED];
  if (writer !== undefined) {
    return envelope.type === "frames" ? writer.json((envelope as FramesEnvelope).result) : JSON.stringify(envelope);
  }
  const parsed = EnvelopeSchema.safeParse(envelope);
  if (!parsed.success) throw new InvalidEnvelopeError(String(envelope.type), describeIssues(parsed.error, envelope));
  const extension = extensionFields(envelope);
  return JSON.stringify(extension === undefined ? parsed.data : { ...parsed.data, ...extension });
}

/** An `error` envelope; an empty message becomes a generic one so the envelope stays valid. */
export function errorEnvelope(message: string): Envelope {
  return { type: "error", message: message.trim() === "" ? "unspecified error" : message };
}

function describeJsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
