import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { VersionStringSchema } from "./schemas.js";
import { majorFamily, PROTOCOL_VERSION, VERSION_PATTERN, versionsCompatible } from "./version.js";

/** Version strings the grammar `"ocp/" 1*DIGIT "." 1*DIGIT ["-draft"]` refuses. */
const MALFORMED = [
  "",
  "ocp/1",
  "ocp/1.",
  "ocp/.0",
  "ocp/1.0-beta",
  "ocp/1.0-draft-draft",
  "ocp/1.0.0",
  "OCP/1.0",
  "ocp1.0",
  "ocp/v1.0",
  " ocp/1.0",
  "ocp/1.0 ",
  "ocp/1.0\n",
  "ocp/one.zero",
  "mcp/1.0",
  "ocp/１.0",
];

describe("version strings", () => {
  it("speaks ocp/1.0-draft", () => {
    expect(PROTOCOL_VERSION).toBe("ocp/1.0-draft");
    expect(majorFamily(PROTOCOL_VERSION)).toBe("ocp/1");
  });

  it.each([
    ["ocp/1.0-draft", "ocp/1"],
    ["ocp/1.0", "ocp/1"],
    ["ocp/1.7", "ocp/1"],
    ["ocp/2.0", "ocp/2"],
    ["ocp/10.3-draft", "ocp/10"],
  ])("the family of %s is %s", (version, family) => {
    expect(majorFamily(version)).toBe(family);
  });

  it.each(MALFORMED)("%j is malformed: no family, compatible with nothing, refused by the schema", (version) => {
    expect(majorFamily(version)).toBeUndefined();
    expect(versionsCompatible(version, "ocp/1.0")).toBe(false);
    expect(versionsCompatible("ocp/1.0", version)).toBe(false);
    expect(versionsCompatible(version, version)).toBe(false);
    expect(VersionStringSchema.safeParse(version).success).toBe(false);
  });

  it.each([
    ["ocp/1.0-draft", "ocp/1.0", true],
    ["ocp/1.0-draft", "ocp/1.7", true],
    ["ocp/1.0", "ocp/1.7", true],
    ["ocp/1.7-draft", "ocp/1.0-draft", true],
    ["ocp/1.0-draft", "ocp/2.0", false],
    ["ocp/1.0", "ocp/2.0", false],
    ["ocp/2.0", "ocp/2.0-draft", true],
    // Family is the text up to the first dot, not a prefix: ocp/1 and ocp/10 differ.
    ["ocp/1.0", "ocp/10.0", false],
    ["ocp/1.0", "ocp/11.0", false],
  ])("versionsCompatible(%s, %s) is %s, both ways", (a, b, expected) => {
    expect(versionsCompatible(a, b)).toBe(expected);
    expect(versionsCompatible(b, a)).toBe(expected);
  });

  it("two well-formed versions interoperate iff their majors are equal; -draft and minor never matter", () => {
    const digits = fc.nat({ max: 1000 }).map(String);
    const version = fc
      .tuple(digits, digits, fc.boolean())
      .map(([major, minor, draft]) => ({ major, text: `ocp/${major}.${minor}${draft ? "-draft" : ""}` }));
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(VERSION_PATTERN.test(a.text)).toBe(true);
        expect(versionsCompatible(a.text, b.text)).toBe(a.major === b.major);
        expect(majorFamily(a.text)).toBe(`ocp/${a.major}`);
      }),
      { numRuns: 500 },
    );
  });

  it("the pattern is the reference schema's", async () => {
    const { readFileSync } = await import("node:fs");
    const reference = JSON.parse(
      readFileSync(new URL("../../../test/reference/ocp-1.0-draft/ocp-envelope.schema.json", import.meta.url), "utf8"),
    );
    expect(VERSION_PATTERN.source.replaceAll("\\/", "/")).toBe(reference.$defs.versionString.pattern);
  });
});
