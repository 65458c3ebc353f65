import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clip } from "./clip.js";

describe("clip", () => {
  it("cuts at a word boundary, with an ellipsis, never mid-word", () => {
    const message = "invalid query: query.goal: Invalid input: expected string to have >=1 characters";
    expect(clip(message, 60)).toBe("invalid query: query.goal: Invalid input: expected string…");
    expect(clip(message, 61)).toBe("invalid query: query.goal: Invalid input: expected string to…");
    expect(clip("short enough", 60)).toBe("short enough");
    expect(clip("one, two, three", 10)).toBe("one, two…");
  });

  it("cuts a word longer than half the room where the room ends", () => {
    expect(clip("a 0123456789abcdefghij", 10)).toBe("a 0123456…");
  });

  it("fits the room, keeps a prefix of whole words, and leaves text that fits alone", () => {
    const words = fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 30 }).map((w) => w.join(" "));
    fc.assert(
      fc.property(words, fc.integer({ min: 2, max: 80 }), (text, max) => {
        const out = clip(text, max);
        if ([...text].length <= max) {
          expect(out).toBe(text);
          return;
        }
        expect([...out].length).toBeLessThanOrEqual(max);
        expect(out.endsWith("…")).toBe(true);
        const kept = out.slice(0, -1);
        expect(text.startsWith(kept)).toBe(true);
        // Cut mid-word only when cutting at the last space would keep under half the room.
        if (text[kept.length] !== " ") expect(kept.lastIndexOf(" ")).toBeLessThan((max - 1) / 2);
      }),
      { numRuns: 1000 },
    );
  });

  it("never splits a surrogate pair", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 60 }), fc.integer({ min: 1, max: 40 }), (text, max) => {
        const out = clip(text, max);
        expect([...out].length).toBeLessThanOrEqual(max);
        // No lone surrogate: a pair split by the cut would leave one.
        expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(out)).toBe(false);
      }),
    );
  });
});
