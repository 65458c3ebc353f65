import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Heap } from "./heap.js";

describe("Heap", () => {
  it("pops everything in sorted order", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 200 }), (items) => {
        const heap = new Heap([...items], (a, b) => a < b);
        expect(heap.size).toBe(items.length);
        const popped: number[] = [];
        for (let item = heap.pop(); item !== undefined; item = heap.pop()) popped.push(item);
        expect(popped).toEqual([...items].sort((a, b) => a - b));
        expect(heap.size).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it("pops by a compound order (score descending, then id), keeping every item", () => {
    const item = fc.record({ score: fc.constantFrom(0, 0.25, 0.5, 1), id: fc.string({ maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 100 }), (items) => {
        const before = (a: (typeof items)[number], b: (typeof items)[number]) =>
          a.score !== b.score ? a.score > b.score : a.id < b.id;
        const heap = new Heap([...items], before);
        const popped = Array.from({ length: items.length }, () => heap.pop());
        const sorted = [...items].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        expect(popped.map((x) => [x?.score, x?.id])).toEqual(sorted.map((x) => [x.score, x.id]));
        expect(heap.pop()).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it("handles the empty and single-item heaps", () => {
    const empty = new Heap<number>([], (a, b) => a < b);
    expect(empty.pop()).toBeUndefined();
    expect(empty.size).toBe(0);
    const one = new Heap([7], (a, b) => a < b);
    expect(one.pop()).toBe(7);
    expect(one.pop()).toBeUndefined();
  });
});
