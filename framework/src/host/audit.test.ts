/** The budget audit (B2): a result passes iff it keeps Σ token_cost, frame count and kinds within its query. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FRAME_KINDS, type FrameKind } from "../wire/schemas.js";
import { auditResult } from "./audit.js";

const frameOf = (kind: FrameKind, cost: number) => ({
  id: "x",
  kind,
  title: "t",
  content: "c",
  score: 0.5,
  token_cost: cost,
  provenance: [],
  relations: [],
});

describe("auditResult", () => {
  it("flags exactly the broken limits", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ kind: fc.constantFrom(...FRAME_KINDS), cost: fc.nat(500) }), { maxLength: 8 }),
        fc.nat(2000),
        fc.nat(8),
        fc.subarray([...FRAME_KINDS]),
        (items, maxTokens, maxFrames, kinds) => {
          const frames = items.map((item) => frameOf(item.kind, item.cost));
          const violations = auditResult({ max_tokens: maxTokens, max_frames: maxFrames, kinds }, { frames });
          const total = items.reduce((sum, item) => sum + item.cost, 0);
          const strayKinds = kinds.length > 0 && items.some((item) => !kinds.includes(item.kind));
          expect(violations.some((v) => v.startsWith("Σ token_cost"))).toBe(total > maxTokens);
          expect(violations.some((v) => v.includes("> max_frames"))).toBe(items.length > maxFrames);
          expect(violations.some((v) => v.includes("kinds not asked for"))).toBe(strayKinds);
        },
      ),
    );
  });

  it("names the numbers", () => {
    const frames = [frameOf("doc", 700), frameOf("symbol", 500)];
    expect(auditResult({ max_tokens: 1024, max_frames: 1, kinds: ["doc"] }, { frames })).toEqual([
      "Σ token_cost 1200 > max_tokens 1024 over 2 frames (budget dishonesty, B1)",
      "2 frames > max_frames 1",
      "1 frames of kinds not asked for (symbol; asked doc)",
    ]);
  });
});
