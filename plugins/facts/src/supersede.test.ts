import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planSupersession, type Span } from "./supersede.js";

const end = (span: { validTo: number | null }) => span.validTo ?? Number.POSITIVE_INFINITY;
const holds = (span: { validFrom: number; validTo: number | null }) => end(span) > span.validFrom;
const overlap = (a: Span, b: Span) => holds(a) && holds(b) && a.validFrom < end(b) && b.validFrom < end(a);

/** Facts of one subject + functional predicate that obey the invariant: pairwise disjoint (some withdrawn). */
const disjointSpans = fc
  .uniqueArray(fc.integer({ min: 0, max: 1000 }), { maxLength: 12 })
  .chain((points) => {
    const sorted = [...points].sort((a, b) => a - b);
    const pairs: [number, number | null][] = [];
    for (let i = 0; i + 1 < sorted.length; i += 2) pairs.push([sorted[i] as number, sorted[i + 1] as number]);
    return fc.tuple(fc.constant(pairs), fc.boolean(), fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 3 }));
  })
  .map(([pairs, lastOpen, withdrawnAt]) => {
    const spans: Span[] = pairs.map(([from, to], i) => ({
      id: i + 1,
      validFrom: from,
      validTo: lastOpen && i === pairs.length - 1 ? null : to,
    }));
    for (const [i, at] of withdrawnAt.entries()) spans.push({ id: 100 + i, validFrom: at, validTo: at });
    return spans;
  });

const incoming = fc
  .tuple(fc.integer({ min: 0, max: 1000 }), fc.option(fc.integer({ min: 1, max: 500 }), { nil: null }))
  .map(([from, length]) => ({ validFrom: from, validTo: length === null ? null : from + length }));

describe("planSupersession", () => {
  it("leaves the facts of a functional predicate pairwise disjoint, only ever shrinking intervals", () => {
    fc.assert(
      fc.property(disjointSpans, incoming, (others, newcomer) => {
        const plan = planSupersession(newcomer, others);
        const after: Span[] = others.map((span) => {
          const closed = plan.close.find((entry) => entry.id === span.id);
          return closed === undefined ? span : { ...span, validTo: closed.validTo };
        });
        const placed = { id: 0, validFrom: newcomer.validFrom, validTo: plan.validTo };
        const all = [...after, placed];
        for (const a of all) for (const b of all) if (a !== b) expect(overlap(a, b)).toBe(false);
        // The newcomer holds from its own start; it may only end earlier.
        expect(holds(placed)).toBe(true);
        expect(end(placed)).toBeLessThanOrEqual(end(newcomer));
        for (const [i, span] of after.entries()) {
          const before = others[i] as Span;
          expect(span.validFrom).toBe(before.validFrom);
          expect(end(span)).toBeLessThanOrEqual(end(before));
          // Facts that start later than the newcomer, and facts it never overlapped, are untouched.
          if (before.validFrom > newcomer.validFrom || !overlap(before, { id: 0, ...newcomer })) {
            expect(span).toEqual(before);
          }
        }
      }),
    );
  });

  it("closes an earlier fact where the newcomer starts, and ends a back-fill where a later fact starts", () => {
    expect(planSupersession({ validFrom: 2023, validTo: null }, [{ id: 1, validFrom: 2020, validTo: null }])).toEqual({
      close: [{ id: 1, validTo: 2023 }],
      validTo: null,
    });
    expect(planSupersession({ validFrom: 2018, validTo: null }, [{ id: 1, validFrom: 2020, validTo: null }])).toEqual({
      close: [],
      validTo: 2020,
    });
    expect(planSupersession({ validFrom: 2020, validTo: null }, [{ id: 1, validFrom: 2020, validTo: 2022 }])).toEqual({
      close: [{ id: 1, validTo: 2020 }],
      validTo: null,
    });
  });
});
