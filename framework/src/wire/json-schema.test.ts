import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { buildEnvelopeJsonSchema, ENVELOPE_SCHEMA_ID } from "./json-schema.js";

const REFERENCE_DIR = new URL("../../../test/reference/ocp-1.0-draft/", import.meta.url);
const COMMITTED_SCHEMA = new URL("../../schema/ocp-envelope.schema.json", import.meta.url);

const referenceMessages = JSON.parse(readFileSync(new URL("reference-messages.json", REFERENCE_DIR), "utf8")) as {
  type: string;
}[];
const sessionMessages = readFileSync(new URL("full-stdio-session.ndjson", REFERENCE_DIR), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as { type: string });

const schema = buildEnvelopeJsonSchema();
const validate = new Ajv2020({ allErrors: true, allowUnionTypes: true }).compile(schema);

describe("generated envelope JSON Schema", () => {
  it("is what is committed in framework/schema (regenerate with `npx tsx framework/scripts/write-schema.ts`)", () => {
    const committed = JSON.parse(readFileSync(COMMITTED_SCHEMA, "utf8"));
    expect(committed).toStrictEqual(schema);
  });

  it("is a draft 2020-12 schema with our own $id, one oneOf over the six envelopes", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.$id).toBe(ENVELOPE_SCHEMA_ID);
    const defs = schema.$defs as Record<string, unknown>;
    expect(schema.oneOf).toEqual(
      ["Handshake", "HandshakeAck", "Query", "Frames", "Shutdown", "Error"].map((name) => ({
        $ref: `#/$defs/${name}`,
      })),
    );
    expect(Object.keys(defs)).not.toContain("Envelope");
    for (const name of ["ContextFrame", "ContextQuery", "ContextQueryResult", "Provenance", "Relation", "FrameKind"]) {
      expect(defs, name).toHaveProperty(name);
    }
  });

  it.each(referenceMessages.map((message, index) => [index, message.type, message] as const))(
    "accepts reference message %i (%s)",
    (_index, _type, message) => {
      expect(validate(message) ? [] : validate.errors).toEqual([]);
    },
  );

  it.each(sessionMessages.map((message, index) => [index + 1, message.type, message] as const))(
    "accepts session line %i (%s)",
    (_index, _type, message) => {
      expect(validate(message) ? [] : validate.errors).toEqual([]);
    },
  );

  it.each([
    ["an extra envelope field", { type: "shutdown", extra: 1 }],
    ["an unknown type", { type: "subscribe" }],
    ["a malformed version", { type: "handshake", protocol_version: "ocp/1" }],
    ["an empty error message", { type: "error", message: "" }],
    [
      "a score above 1",
      {
        type: "frames",
        result: {
          frames: [
            { id: "a", kind: "doc", title: "t", content: "", score: 1.5, token_cost: 0, provenance: [], relations: [] },
          ],
          truncated: false,
        },
      },
    ],
    [
      "a non-integer token_cost",
      {
        type: "frames",
        result: {
          frames: [
            { id: "a", kind: "doc", title: "t", content: "", score: 1, token_cost: 0.5, provenance: [], relations: [] },
          ],
          truncated: false,
        },
      },
    ],
    [
      "an unknown query kind",
      { type: "query", query: { goal: "g", kinds: ["image"], anchors: [], max_frames: 1, max_tokens: 1 } },
    ],
  ])("rejects %s", (_label, message) => {
    expect(validate(message)).toBe(false);
  });
});
