/**
 * The reference files in test/reference/ are the spec's own, vendored so a fresh clone
 * can test against them. Where the spec's folder sits beside this repository (as in the
 * project's workspace), they must be identical to it, byte for byte.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REFERENCE_DIR } from "./test-support/reference-schema.js";

const SPEC_DIR = new URL("../../shared/reference/ocp-1.0-draft/", import.meta.url);
const FILES = ["full-stdio-session.ndjson", "ocp-envelope.schema.json", "reference-messages.json"];

describe("the vendored reference files", () => {
  it("are all there", () => {
    expect(readdirSync(REFERENCE_DIR).sort()).toEqual(FILES);
  });

  it.skipIf(!existsSync(SPEC_DIR))("are byte-for-byte the spec's (checked where the spec folder is present)", () => {
    for (const file of FILES) {
      expect(readFileSync(new URL(file, REFERENCE_DIR), "utf8"), file).toBe(
        readFileSync(new URL(file, SPEC_DIR), "utf8"),
      );
    }
  });
});
