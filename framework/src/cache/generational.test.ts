import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GenerationalCache, memoizeString } from "./generational.js";

describe("GenerationalCache", () => {
  it("returns the latest value stored for a key or nothing, never a stale one, and stays bounded", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 64 }), fc.array(fc.tuple(fc.nat(100), fc.boolean())), (capacity, ops) => {
        const cache = new GenerationalCache<number, number>(capacity);
        const latest = new Map<number, number>();
        let version = 0;
        for (const [key, write] of ops) {
          if (write) {
            version++;
            cache.set(key, version);
            latest.set(key, version);
          }
          const got = cache.get(key);
          if (got !== undefined) expect(got).toBe(latest.get(key));
          expect(cache.size).toBeLessThanOrEqual(capacity + 1);
        }
      }),
    );
  });

  it("keeps the most recent half of the capacity for sure", () => {
    const cache = new GenerationalCache<number, number>(10);
    for (let i = 0; i < 100; i++) cache.set(i, i);
    for (let i = 95; i < 100; i++) expect(cache.get(i)).toBe(i);
    expect(cache.get(0)).toBeUndefined();
  });

  it("promotes a hit from the old generation so a hot key survives", () => {
    const cache = new GenerationalCache<string, number>(4);
    cache.set("hot", 1);
    for (let i = 0; i < 50; i++) {
      cache.set(`cold${i}`, i);
      expect(cache.get("hot")).toBe(1);
    }
  });
});

describe("memoizeString", () => {
  it("calls the function once per distinct recent argument", () => {
    let calls = 0;
    const length = memoizeString((text) => {
      calls++;
      return text.length;
    }, 8);
    expect([length("ab"), length("ab"), length("abc")]).toEqual([2, 2, 3]);
    expect(calls).toBe(2);
  });
});
