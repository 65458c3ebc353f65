import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  arbitrarySentEnvelope,
  arbitraryUnknownFields,
  type WireObject,
  withLooseLists,
  withUnknownFields,
} from "../test-support/arbitraries.js";
import {
  errorEnvelope,
  HOST_ENVELOPE_TYPES,
  InvalidEnvelopeError,
  PROVIDER_ENVELOPE_TYPES,
  readEnvelope,
  readEnvelopeText,
  writeEnvelope,
} from "./codec.js";
import { buildEnvelopeJsonSchema } from "./json-schema.js";
import type { Envelope } from "./schemas.js";

const REFERENCE_DIR = new URL("../../../test/reference/ocp-1.0-draft/", import.meta.url);
const readReference = (name: string) => readFileSync(new URL(name, REFERENCE_DIR), "utf8");

const referenceMessages = JSON.parse(readReference("reference-messages.json")) as WireObject[];
const sessionLines = readReference("full-stdio-session.ndjson")
  .split("\n")
  .filter((line) => line.trim() !== "");

const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
const validateReference = ajv.compile(JSON.parse(readReference("ocp-envelope.schema.json")));
const validateOurs = new Ajv2020({ allErrors: true, allowUnionTypes: true }).compile(buildEnvelopeJsonSchema());

/** Who sends an envelope of this type, by the reference's vocabulary. */
function senderOf(type: unknown): "host" | "provider" {
  return ["handshake", "query", "shutdown"].includes(String(type)) ? "host" : "provider";
}

/** Asserts `json` is valid under the reference schema, showing ajv's errors when it is not. */
function expectReferenceValid(json: unknown): void {
  const valid = validateReference(json);
  expect(valid ? [] : validateReference.errors).toEqual([]);
}

function read(value: unknown, sender: "host" | "provider" = senderOf((value as WireObject).type)): Envelope {
  const result = readEnvelope(value, sender);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(value)} to read, got: ${result.message}`);
  return result.value;
}

function readError(value: unknown, sender: "host" | "provider"): string {
  const result = readEnvelope(value, sender);
  if (result.ok) throw new Error(`expected ${JSON.stringify(value)} to be refused`);
  return result.message;
}

const clone = <T>(value: T): T => structuredClone(value);
const goldenFrames = referenceMessages.find((message) => message.type === "frames") as WireObject;
const goldenQuery = referenceMessages.find((message) => message.type === "query") as WireObject;
const goldenAck = referenceMessages.find((message) => message.type === "handshake_ack") as WireObject;

/** The first frame of the golden `frames` vector, with `edit` applied to a copy. */
function framesWithFirstFrame(edit: (frame: WireObject) => void): WireObject {
  const message = clone(goldenFrames);
  edit(((message.result as WireObject).frames as WireObject[])[0] as WireObject);
  return message;
}

describe("golden vectors", () => {
  it("the reference files hold what this suite expects", () => {
    expect(referenceMessages.map((message) => message.type)).toEqual([
      "handshake",
      "handshake_ack",
      "handshake_ack",
      "query",
      "frames",
      "error",
      "shutdown",
    ]);
    expect(sessionLines).toHaveLength(5);
  });

  it.each(referenceMessages.map((message, index) => [index, message.type, message] as const))(
    "reference message %i (%s) reads from its sender and writes back to the same JSON, valid under the reference schema",
    (_index, type, message) => {
      expectReferenceValid(message);
      const envelope = read(message, senderOf(type));
      const written = JSON.parse(writeEnvelope(envelope));
      expect(written).toStrictEqual(message);
      expectReferenceValid(written);
    },
  );

  it.each(sessionLines.map((line, index) => [index + 1, line] as const))(
    "session line %i reads with readEnvelopeText and writes back valid under the reference schema",
    (_number, line) => {
      const raw = JSON.parse(line) as WireObject;
      const result = readEnvelopeText(line, senderOf(raw.type));
      expect(result).toMatchObject({ ok: true });
      if (!result.ok) return;
      const written = JSON.parse(writeEnvelope(result.value));
      expectReferenceValid(written);
      expect(written).toStrictEqual(raw);
    },
  );

  it.each(referenceMessages.map((message) => [message.type, message] as const))(
    "a %s read from the other side is refused by name",
    (type, message) => {
      const wrong = senderOf(type) === "host" ? "provider" : "host";
      expect(readError(message, wrong)).toContain(`'${String(type)}'`);
    },
  );

  it("the sender vocabulary matches the reference's", () => {
    expect([...HOST_ENVELOPE_TYPES].sort()).toEqual(["handshake", "query", "shutdown"]);
    expect([...PROVIDER_ENVELOPE_TYPES].sort()).toEqual(["error", "frames", "handshake_ack"]);
  });
});

describe("tolerant reader", () => {
  it("reads null as absent for every optional field of a frame, provenance, relation and embedding", () => {
    const message = framesWithFirstFrame((frame) => {
      for (const key of ["uri", "valid_from", "valid_to", "recorded_at", "citation_label", "embedding"]) {
        frame[key] = null;
      }
      frame.provenance = [{ type: "file", uri: null, range: null, digest: null, method: null, by: null }];
      frame.relations = [{ rel: "calls", target_uri: "file:///x", display_name: null }];
    });
    (message.result as WireObject).dropped_estimate = null;
    const envelope = read(message);
    if (envelope.type !== "frames") throw new Error("expected frames");
    const frame = envelope.result.frames[0]!;
    for (const key of ["uri", "valid_from", "valid_to", "recorded_at", "citation_label", "embedding"] as const) {
      expect(frame[key], key).toBeUndefined();
    }
    expect(envelope.result.dropped_estimate).toBeUndefined();
    expect(frame.provenance).toEqual([{ type: "file" }]);
    expect(frame.relations).toEqual([{ rel: "calls", target_uri: "file:///x" }]);

    const written = JSON.parse(writeEnvelope(envelope));
    expectReferenceValid(written);
    const writtenFrame = written.result.frames[0];
    expect(Object.keys(writtenFrame).sort()).toEqual(
      ["id", "kind", "title", "content", "score", "token_cost", "provenance", "relations"].sort(),
    );
    expect(written.result).not.toHaveProperty("dropped_estimate");
    expect(writtenFrame.provenance).toStrictEqual([{ type: "file" }]);
    expect(writtenFrame.relations).toStrictEqual([{ rel: "calls", target_uri: "file:///x" }]);
  });

  it("reads a null embedding vector as absent", () => {
    const message = framesWithFirstFrame((frame) => {
      frame.embedding = { fingerprint: "fp:1", vector: null };
    });
    const envelope = read(message);
    if (envelope.type !== "frames") throw new Error("expected frames");
    expect(envelope.result.frames[0]?.embedding).toEqual({ fingerprint: "fp:1" });
    expect(JSON.parse(writeEnvelope(envelope)).result.frames[0].embedding).toStrictEqual({ fingerprint: "fp:1" });
  });

  it("reads null as absent for every optional field of a query", () => {
    const message = clone(goldenQuery);
    Object.assign(message.query as WireObject, { query_text: null, embedding: null, as_of: null });
    const envelope = read(message);
    if (envelope.type !== "query") throw new Error("expected query");
    expect(envelope.query.query_text).toBeUndefined();
    expect(envelope.query.embedding).toBeUndefined();
    expect(envelope.query.as_of).toBeUndefined();
    expect(JSON.parse(writeEnvelope(envelope)).query).toStrictEqual({
      goal: "how do I configure the retry policy?",
      kinds: ["doc", "symbol"],
      anchors: ["src/config.rs"],
      max_frames: 5,
      max_tokens: 1024,
    });
  });

  it("keeps embeddings_fingerprint: null (nullable, as the reference provider writes it) and reads it absent when absent", () => {
    const withNull = read(clone(goldenAck));
    if (withNull.type !== "handshake_ack") throw new Error("expected handshake_ack");
    expect(withNull.capabilities.embeddings_fingerprint).toBeNull();
    const absent = clone(goldenAck);
    delete (absent.capabilities as WireObject).embeddings_fingerprint;
    const written = JSON.parse(writeEnvelope(read(absent)));
    expect(written.capabilities).not.toHaveProperty("embeddings_fingerprint");
    expectReferenceValid(written);
  });

  it.each([
    ["absent", undefined],
    ["null", null],
  ])("reads %s kinds, anchors, provenance, relations, frames, capability kinds and filters as []", (_label, value) => {
    const set = (object: WireObject, key: string) => {
      if (value === undefined) delete object[key];
      else object[key] = value;
    };

    const query = clone(goldenQuery);
    set(query.query as WireObject, "kinds");
    set(query.query as WireObject, "anchors");
    const readQuery = read(query);
    expect(readQuery).toMatchObject({ query: { kinds: [], anchors: [] } });
    expect(JSON.parse(writeEnvelope(readQuery)).query).toMatchObject({ kinds: [], anchors: [] });

    const frames = framesWithFirstFrame((frame) => {
      set(frame, "provenance");
      set(frame, "relations");
    });
    const readFrames = read(frames);
    expect(readFrames).toMatchObject({ result: { frames: [{ provenance: [], relations: [] }, {}] } });
    const written = JSON.parse(writeEnvelope(readFrames));
    expectReferenceValid(written);
    expect(written.result.frames[0]).toMatchObject({ provenance: [], relations: [] });

    const noFrames = clone(goldenFrames);
    set(noFrames.result as WireObject, "frames");
    expect(read(noFrames)).toEqual({ type: "frames", result: { frames: [], truncated: false } });
    expectReferenceValid(JSON.parse(writeEnvelope(read(noFrames))));

    const ack = clone(goldenAck);
    const capabilityQuery = (ack.capabilities as WireObject).query as WireObject;
    set(capabilityQuery, "kinds");
    set(capabilityQuery, "filters");
    const readAck = read(ack);
    expect(readAck).toMatchObject({ capabilities: { query: { kinds: [], filters: [] } } });
    expectReferenceValid(JSON.parse(writeEnvelope(readAck)));
  });

  it("drops unknown fields at envelope, payload and nested levels without failing", () => {
    const message = framesWithFirstFrame((frame) => {
      frame.future_field = { nested: true };
      (frame.provenance as WireObject[])[0]!.confidence = 0.5;
    });
    message.trace_id = "abc";
    (message.result as WireObject).next_cursor = "page-2";

    const envelope = read(message);
    expect(envelope).toEqual(read(goldenFrames));
    expect(envelope).not.toHaveProperty("trace_id");
    expect(writeEnvelope(envelope)).toBe(writeEnvelope(read(goldenFrames)));

    const query = clone(goldenQuery);
    query.priority = "high";
    (query.query as WireObject).filters = { lang: "rust" };
    expect(read(query)).toEqual(read(goldenQuery));

    expect(read({ type: "shutdown", reason: "bye" })).toStrictEqual({ type: "shutdown" });
    expect(read({ type: "handshake", protocol_version: "ocp/1.3", features: ["x"] })).toStrictEqual({
      type: "handshake",
      protocol_version: "ocp/1.3",
    });
  });
});

describe("reader errors name the problem", () => {
  it.each([
    [42, "a number"],
    ["handshake", "a string"],
    [null, "null"],
    [[{ type: "shutdown" }], "an array"],
    [true, "a boolean"],
  ])("refuses a non-object (%j)", (value, described) => {
    const message = readError(value, "host");
    expect(message).toContain("JSON object");
    expect(message).toContain(described);
  });

  it.each([[{}], [{ type: 7 }], [{ type: null }], [{ kind: "handshake" }]])("refuses %j: no string type", (value) => {
    expect(readError(value, "host")).toMatch(/type/);
  });

  it("names an unknown envelope type", () => {
    expect(readError({ type: "subscribe" }, "host")).toContain("'subscribe'");
    expect(readError({ type: "subscribe" }, "provider")).toContain("unknown envelope type");
  });

  it("refuses a host sending 'frames' by name, and a provider sending 'query'", () => {
    const fromHost = readError(goldenFrames, "host");
    expect(fromHost).toContain("'frames'");
    expect(fromHost).toContain("provider");
    const fromProvider = readError(goldenQuery, "provider");
    expect(fromProvider).toContain("'query'");
    expect(fromProvider).toContain("host");
  });

  it.each(["", "{", "not json", '{"type":"handshake",}', "{'type':'shutdown'}", '{"type":"shutdown"} trailing'])(
    "reports malformed JSON text %j",
    (text) => {
      const result = readEnvelopeText(text, "host");
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message).toMatch(/^malformed JSON/);
    },
  );

  it("reads well-formed JSON text with surrounding whitespace (an NDJSON line with CRLF)", () => {
    expect(readEnvelopeText('  {"type":"shutdown"}\r\n', "host")).toEqual({ ok: true, value: { type: "shutdown" } });
  });

  it("names an unknown frame kind in query.kinds as the reference does", () => {
    const query = clone(goldenQuery);
    (query.query as WireObject).kinds = ["doc", "image"];
    const message = readError(query, "host");
    expect(message).toContain("unsupported frame kind: 'image'");
    // The reference provider answers exactly this text (see reference-messages.json).
    expect(referenceMessages).toContainEqual({ type: "error", message: "unsupported frame kind: 'image'" });
  });

  it.each(["max_tokens", "max_frames", "goal"])("names a missing %s", (field) => {
    const query = clone(goldenQuery);
    delete (query.query as WireObject)[field];
    expect(readError(query, "host")).toContain(field);
  });

  it("names a wrongly typed field with its path", () => {
    const query = clone(goldenQuery);
    (query.query as WireObject).max_tokens = "1024";
    expect(readError(query, "host")).toContain("query.max_tokens");
    const frames = framesWithFirstFrame((frame) => {
      frame.score = 1.5;
    });
    expect(readError(frames, "provider")).toContain("result.frames.0.score");
  });

  it("never throws, whatever JSON value or text it is given", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom("host", "provider" as const), (value, sender) => {
        const result = readEnvelope(value, sender);
        if (!result.ok) expect(result.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const result = readEnvelopeText(text, "provider");
        if (!result.ok) expect(result.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe("strict writer", () => {
  it("drops extra fields at every level: the output JSON has none", () => {
    const dirty = withUnknownFields(goldenFrames, { "x-extra": 1, secret: "do not leak" }) as Envelope;
    const written = writeEnvelope(dirty);
    expect(written).not.toContain("secret");
    expect(written).not.toContain("x-extra");
    expect(JSON.parse(written)).toStrictEqual(goldenFrames);
  });

  it("writes one line: no newline even when strings hold newlines", () => {
    const message = framesWithFirstFrame((frame) => {
      frame.content = "line 1\nline 2\r\n\u2028end";
    });
    const written = writeEnvelope(read(message));
    expect(written).not.toMatch(/[\n\r]/);
    expect(JSON.parse(written).result.frames[0].content).toBe("line 1\nline 2\r\n\u2028end");
  });

  it("fills list defaults the reference requires", () => {
    const written = JSON.parse(
      writeEnvelope({
        type: "frames",
        result: {
          frames: [{ id: "a", kind: "fact", title: "A fact", content: "x", score: 1, token_cost: 1 }],
          truncated: false,
        },
      }),
    );
    expect(written.result.frames[0]).toMatchObject({ provenance: [], relations: [] });
    expectReferenceValid(written);
  });

  it.each([
    ["score 1.5", "score", (frame: WireObject) => (frame.score = 1.5)],
    ["score -0.1", "score", (frame: WireObject) => (frame.score = -0.1)],
    ["NaN score", "score", (frame: WireObject) => (frame.score = Number.NaN)],
    ["empty title", "title", (frame: WireObject) => (frame.title = "")],
    ["empty citation_label", "citation_label", (frame: WireObject) => (frame.citation_label = "")],
    ["empty id", "id", (frame: WireObject) => (frame.id = "")],
    ["negative token_cost", "token_cost", (frame: WireObject) => (frame.token_cost = -1)],
    ["non-integer token_cost", "token_cost", (frame: WireObject) => (frame.token_cost = 1.5)],
    ["token_cost above u32", "token_cost", (frame: WireObject) => (frame.token_cost = 4_294_967_296)],
    ["unknown kind", "kind", (frame: WireObject) => (frame.kind = "image")],
  ])("throws InvalidEnvelopeError on %s, which the reference schema also rejects", (_label, field, edit) => {
    const message = framesWithFirstFrame(edit);
    let thrown: unknown;
    try {
      writeEnvelope(message as Envelope);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidEnvelopeError);
    const error = thrown as InvalidEnvelopeError;
    expect(error.envelopeType).toBe("frames");
    expect(error.message).toContain(`result.frames.0.${field}`);
    // NaN has no JSON spelling; everything else must be what the reference schema refuses too.
    if (!Number.isNaN(((message.result as WireObject).frames as WireObject[])[0]?.score)) {
      expect(validateReference(message)).toBe(false);
    }
  });

  it.each([
    ["an empty error message", { type: "error", message: "" }],
    ["a malformed version", { type: "handshake", protocol_version: "1.0" }],
    [
      "an empty provider name",
      {
        ...clone(goldenAck),
        provider: { name: "", version: "1", data_flow: { reads: true, writes: false, egress: false } },
      },
    ],
    ["an unknown type", { type: "subscribe" }],
  ])("throws InvalidEnvelopeError on %s", (_label, envelope) => {
    expect(() => writeEnvelope(envelope as Envelope)).toThrow(InvalidEnvelopeError);
  });

  it("errorEnvelope never builds an invalid error", () => {
    expect(errorEnvelope("boom")).toEqual({ type: "error", message: "boom" });
    for (const blank of ["", "   ", "\n\t"]) {
      const written = JSON.parse(writeEnvelope(errorEnvelope(blank)));
      expect(written.message.trim()).not.toBe("");
      expectReferenceValid(written);
    }
  });
});

describe("properties over valid wire values", () => {
  const runs = { numRuns: 300 };

  it("every generated value is valid under the reference schema (the arbitraries are honest)", () => {
    fc.assert(
      fc.property(arbitrarySentEnvelope, ({ envelope }) => {
        expectReferenceValid(envelope);
      }),
      runs,
    );
  });

  it("reading is total on valid values, and parse∘write is idempotent", () => {
    fc.assert(
      fc.property(arbitrarySentEnvelope, ({ sender, envelope }) => {
        const parsed = readEnvelope(envelope, sender);
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        const written = writeEnvelope(parsed.value);
        expect(readEnvelopeText(written, sender)).toEqual({ ok: true, value: parsed.value });
        // Writing what was read back gives the same bytes: nothing drifts on a second pass.
        const again = readEnvelopeText(written, sender);
        if (again.ok) expect(writeEnvelope(again.value)).toBe(written);
      }),
      runs,
    );
  });

  it("every written message is valid under the reference schema and under ours", () => {
    fc.assert(
      fc.property(arbitrarySentEnvelope, ({ envelope }) => {
        const written = JSON.parse(writeEnvelope(envelope as Envelope));
        expectReferenceValid(written);
        expect(validateOurs(written) ? [] : validateOurs.errors).toEqual([]);
      }),
      runs,
    );
  });

  it("writing keeps every value: the written JSON equals the input minus nulls, with absent lists as []", () => {
    fc.assert(
      fc.property(arbitrarySentEnvelope, ({ envelope }) => {
        const written = JSON.parse(writeEnvelope(envelope as Envelope));
        expect(written).toStrictEqual(normalise(envelope));
      }),
      runs,
    );
  });

  it("unknown fields anywhere, and absent or null lists, change nothing that is read or written", () => {
    const looseness = fc.constantFrom("keep", "absent", "null" as const);
    fc.assert(
      fc.property(arbitrarySentEnvelope, arbitraryUnknownFields, looseness, ({ sender, envelope }, extra, how) => {
        const [loose, expected] = withLooseLists(envelope, how);
        const dirty = withUnknownFields(loose, extra);
        const clean = readEnvelope(expected, sender);
        const tolerant = readEnvelope(dirty, sender);
        expect(tolerant).toEqual(clean);
        if (clean.ok && tolerant.ok) expect(writeEnvelope(tolerant.value)).toBe(writeEnvelope(clean.value));
      }),
      runs,
    );
  });
});

/** Paths of list fields the writer always writes (defaulting to []). */
const LIST_FIELDS: Record<string, readonly string[]> = {
  query: ["kinds", "anchors"],
  frame: ["provenance", "relations"],
  result: ["frames"],
  capabilityQuery: ["kinds", "filters"],
};

/**
 * What the writer should produce for a valid wire value, computed by a separate,
 * obvious walk: nulls removed (except the nullable embeddings_fingerprint), absent lists [].
 */
function normalise(envelope: WireObject): WireObject {
  const dropNulls = (value: unknown, keepNullKey?: string): unknown => {
    if (Array.isArray(value)) return value.map((item) => dropNulls(item));
    if (typeof value !== "object" || value === null) return value;
    const out: WireObject = {};
    for (const [key, field] of Object.entries(value)) {
      if (field === null && key !== keepNullKey) continue;
      out[key] = dropNulls(field);
    }
    return out;
  };
  const withLists = (object: WireObject, keys: readonly string[]) => {
    for (const key of keys) object[key] ??= [];
    return object;
  };
  const out = dropNulls(envelope) as WireObject;
  if (out.type === "query") withLists(out.query as WireObject, LIST_FIELDS.query!);
  if (out.type === "frames") {
    const result = withLists(out.result as WireObject, LIST_FIELDS.result!);
    for (const frame of result.frames as WireObject[]) withLists(frame, LIST_FIELDS.frame!);
  }
  if (out.type === "handshake_ack") {
    const capabilities = out.capabilities as WireObject;
    if ((envelope.capabilities as WireObject).embeddings_fingerprint === null) {
      capabilities.embeddings_fingerprint = null;
    }
    withLists(capabilities.query as WireObject, LIST_FIELDS.capabilityQuery!);
  }
  return out;
}
