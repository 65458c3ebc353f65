/**
 * The shipped reference schema is the reference schema, byte for byte, and the
 * validator built on it accepts the golden vectors and names what is wrong with
 * a broken message precisely.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { schemaValidity } from "./checks/schema-validity.js";
import { MessageLog, referenceSchemaErrors } from "./schema.js";

const REFERENCE = new URL("../../../test/reference/ocp-1.0-draft/", import.meta.url);
const SHIPPED = new URL("../../schema/ocp-envelope.reference.schema.json", import.meta.url);

describe("the shipped reference schema", () => {
  it("is a byte-for-byte copy of the reference schema", () => {
    expect(readFileSync(SHIPPED, "utf8")).toBe(readFileSync(new URL("ocp-envelope.schema.json", REFERENCE), "utf8"));
  });

  it("accepts every golden vector", () => {
    const messages = JSON.parse(readFileSync(new URL("reference-messages.json", REFERENCE), "utf8")) as unknown[];
    const session = readFileSync(new URL("full-stdio-session.ndjson", REFERENCE), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as unknown);
    expect(messages.length + session.length).toBeGreaterThan(5);
    for (const message of [...messages, ...session]) expect(referenceSchemaErrors(message)).toBeUndefined();
  });

  it("names the broken field of the envelope type at hand", () => {
    const frame = {
      id: "a",
      kind: "doc",
      title: "t",
      content: "c",
      score: 1.7,
      token_cost: 1,
      provenance: [],
      relations: [],
    };
    expect(referenceSchemaErrors({ type: "frames", result: { frames: [frame], truncated: false } })).toBe(
      "/result/frames/0/score must be <= 1",
    );
    expect(referenceSchemaErrors({ type: "error", message: "" })).toMatch(/^\/message must NOT have fewer than 1/);
    expect(referenceSchemaErrors({ type: "bogus" })).toBe("'bogus' is not an envelope type");
    expect(referenceSchemaErrors([1, 2])).toBe("not an envelope: no string 'type' field");
  });
});

describe("MessageLog", () => {
  it("fails on the first non-JSON or invalid message, naming where it came from", () => {
    const log = new MessageLog();
    log.record("main session, line 1", '{"type":"error","message":"ok"}');
    log.record("main session, line 2", "debug: starting");
    log.record("main session, line 3", '{"type":"error","message":""}');
    const verdict = schemaValidity(log);
    expect(verdict.status).toBe("fail");
    expect(verdict.evidence).toMatch(
      /^2 of 3 messages invalid: main session, line 2 is not JSON: "debug: starting"; main session, line 3: \/message/,
    );
  });

  it("passes when everything validates, and skips when nothing arrived", () => {
    const log = new MessageLog();
    expect(schemaValidity(log).status).toBe("skip");
    log.record("x", '{"type":"error","message":"fine"}');
    expect(schemaValidity(log)).toEqual({
      status: "pass",
      evidence: "all 1 messages received validate under the reference schema",
    });
  });
});
