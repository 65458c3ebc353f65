import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LineRecord, LineSlab, LineSlabPool, LineTable } from "./line-table.js";

/** One write to a table, as the collector makes them (a JSON string of rg's, or a decoded text, or none). */
type Write =
  | { kind: "json"; table: number; number: number; match: boolean; offset: number; text: string }
  | { kind: "text"; table: number; number: number; match: boolean; lossy: boolean; offset: number; text?: string }
  | { kind: "discard"; table: number };

const number = fc.integer({ min: 1, max: 60 });
const text = fc.string({ unit: fc.constantFrom("a", "é", '"', "\\", "\n", "🚀", "\t"), maxLength: 12 });
const write: fc.Arbitrary<Write> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("json" as const),
      table: fc.nat(3),
      number,
      match: fc.boolean(),
      offset: fc.nat(),
      text,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant("text" as const),
        table: fc.nat(3),
        number,
        match: fc.boolean(),
        lossy: fc.boolean(),
        offset: fc.nat(),
        text,
      },
      { requiredKeys: ["kind", "table", "number", "match", "lossy", "offset"] },
    ),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("discard" as const), table: fc.nat(3) }) },
);

/** Runs `writes` in order, most in ascending line order per table as rg gives them, mixed with anything else. */
function run(writes: readonly Write[], slab: LineSlab) {
  const tables: (LineTable | undefined)[] = [];
  const models: (Map<number, LineRecord> | undefined)[] = [];
  for (const w of writes) {
    if (w.kind === "discard") {
      tables[w.table]?.discard();
      tables[w.table] = undefined;
      models[w.table] = undefined;
      continue;
    }
    tables[w.table] ??= new LineTable(slab);
    models[w.table] ??= new Map();
    const table = tables[w.table] as LineTable;
    const model = models[w.table] as Map<number, LineRecord>;
    if (w.kind === "json") {
      const json = Buffer.from(`pad${JSON.stringify(w.text)}pad`);
      table.addJson(w.number, w.match, w.offset, json, 3, json.length - 3);
      model.set(w.number, { text: w.text, lossy: false, match: w.match, offset: w.offset });
    } else {
      table.addText(w.number, w.match, w.lossy, w.offset, w.text);
      model.set(w.number, {
        text: w.text,
        lossy: w.lossy,
        match: w.match,
        offset: w.text === undefined ? -1 : w.offset,
      });
    }
  }
  return { tables, models };
}

describe("LineTable on a shared LineSlab", () => {
  it("reads back exactly what was recorded, whatever the order, repeats, interleaving and discarded neighbours", () => {
    fc.assert(
      fc.property(fc.array(write, { maxLength: 300 }), fc.boolean(), (writes, eager) => {
        // Eager: compacted whenever the dead outweigh the live, so compactions happen mid-way.
        const slab = new LineSlab(eager ? { minDeadBytes: 0, minDeadRows: 0 } : {});
        const { tables, models } = run(writes, slab);
        tables.forEach((table, i) => {
          if (table === undefined) return;
          const model = models[i] as Map<number, LineRecord>;
          // Ascending by line number, every line once, with the record last written for it.
          expect([...table]).toEqual([...model].sort((a, b) => a[0] - b[0]));
          expect(table.size).toBe(model.size);
          for (let n = 0; n <= 61; n++) {
            expect(table.get(n)).toEqual(model.get(n));
            expect(table.text(n)).toBe(model.get(n)?.text);
            expect(table.hasText(n)).toBe(model.get(n)?.text !== undefined);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it("compacts dropped files away: held bytes follow the live tables, not what was ever written", () => {
    const slab = new LineSlab();
    const json = Buffer.from(JSON.stringify("x".repeat(500)));
    const kept = new LineTable(slab);
    for (let n = 1; n <= 10; n++) kept.addJson(n, true, n * 501, json, 0, json.length);
    for (let file = 0; file < 2000; file++) {
      const dropped = new LineTable(slab);
      for (let n = 1; n <= 10; n++) dropped.addJson(n, true, 0, json, 0, json.length);
      dropped.discard();
    }
    // ~10 MB written; the kept table holds 10 lines of ~500 bytes.
    expect(slab.heldBytes).toBeLessThan(3 * 10 * json.length + 16 * 1024 + 10 * json.length);
    expect(kept.heldBytes).toBe(10 * json.length);
    expect(kept.text(7)).toBe("x".repeat(500));
    expect(kept.get(10)?.offset).toBe(5010);
  });

  it("refuses to be read once its search has released the slab, so a reused slab never shows another search's lines", () => {
    const pool = new LineSlabPool({ keep: 1, maxBytes: 1 << 30 });
    const slab = pool.acquire();
    const table = new LineTable(slab);
    table.addText(1, true, false, 0, "old\n");
    pool.release(slab);
    const again = pool.acquire();
    expect(again).toBe(slab);
    const fresh = new LineTable(again);
    fresh.addText(1, true, false, 0, "new\n");
    expect(() => table.text(1)).toThrow(/released/);
    expect(fresh.text(1)).toBe("new\n");
  });

  it("keeps at most `keep` slabs, and none larger than maxBytes", () => {
    const pool = new LineSlabPool({ keep: 1, maxBytes: 1 << 20 });
    const big = pool.acquire();
    const table = new LineTable(big);
    const json = Buffer.from(JSON.stringify("y".repeat(4000)));
    for (let n = 1; n <= 400; n++) table.addJson(n, false, 0, json, 0, json.length);
    expect(big.capacityBytes).toBeGreaterThan(1 << 20);
    const small = pool.acquire();
    pool.release(big);
    pool.release(small);
    const next = pool.acquire();
    expect(next).toBe(small);
    expect(pool.acquire()).not.toBe(big);
  });
});
