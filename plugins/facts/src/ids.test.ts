/**
 * Ids and versions at the edge of what a store keeps, on SQLite and PostgreSQL (a
 * real server when OCP_PG_URL is set, PGlite otherwise). An id of 2^53 − 1 once moved
 * the counter to 2^53, where adding one changes nothing in a double: every later
 * assert was handed the same id and failed on a UNIQUE constraint, for good.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FACT_ERRORS } from "./errors.js";
import { MAX_ID, MAX_VERSION } from "./model.js";
import { parseRecord, toRecord } from "./records.js";
import type { FactStore } from "./store.js";
import { type BackendTarget, postgresTarget, sqliteTarget } from "./test-support/targets.js";

/** Written out, not imported, so the test reads the same against code that had no such bound. */
const LARGEST_ID = 2 ** 53 - 2;
const LARGEST_VERSION = 2 ** 31 - 1;

const fact = (id: number, extra: Record<string, unknown> = {}) =>
  parseRecord({ id, subject: `s${id}`, predicate: "p", statement: `fact ${id}`, valid_from: "2020-01-01", ...extra });

async function everything(store: FactStore) {
  const versions = [];
  for await (const version of store.versions()) versions.push(version);
  return { versions, firstFree: await store.firstFreeId() };
}

const TARGETS: [string, () => Promise<BackendTarget>][] = [
  ["sqlite", async () => sqliteTarget()],
  ["postgresql", postgresTarget],
];

it("the bounds are the ones the tests spell out", () => {
  expect([MAX_ID, MAX_VERSION]).toEqual([LARGEST_ID, LARGEST_VERSION]);
});

describe.each(TARGETS)("ids and versions at the edge, on %s", (_label, makeTarget) => {
  let target: BackendTarget;
  beforeAll(async () => {
    target = await makeTarget();
  }, 120_000);
  afterAll(async () => {
    await target?.dispose();
  });

  it("refuses an id that leaves no safe next id, and a store filled to the last id stays readable", async () => {
    for (const id of [LARGEST_ID + 1, 2 ** 53, 2 ** 60]) {
      expect(() => fact(id)).toThrow(expect.objectContaining({ code: FACT_ERRORS.ID_RANGE }));
    }
    const store = await target.open();
    await expect(store.reserveIds(LARGEST_ID + 1)).rejects.toMatchObject({ code: FACT_ERRORS.ID_RANGE });
    await expect(store.history({ id: LARGEST_ID + 1 })).rejects.toMatchObject({ code: FACT_ERRORS.ID_RANGE });

    expect(await store.importBatch([fact(LARGEST_ID)])).toEqual({ inserted: 1, skipped: 0, superseded: 0 });
    const full = await everything(store);
    expect(full.firstFree).toBe(LARGEST_ID + 1);
    // Every id is taken: an assert is refused, the same way every time, and changes nothing.
    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(store.assert({ subject: "a", predicate: "p", statement: "one more" })).rejects.toMatchObject({
        code: FACT_ERRORS.ID_RANGE,
        message: expect.stringMatching(/handed out its last fact id/),
      });
    }
    expect(await everything(store)).toEqual(full);
    // What is stored can still be read, corrected, and exported into what an import accepts.
    expect((await store.history({ id: LARGEST_ID })).map((version) => version.id)).toEqual([LARGEST_ID]);
    expect((await store.correct(LARGEST_ID, { statement: "corrected" })).fact).toMatchObject({
      id: LARGEST_ID,
      version: 2,
    });
    const moved = await target.open();
    const records = [];
    for await (const version of store.versions())
      records.push(parseRecord(JSON.parse(JSON.stringify(toRecord(version)))));
    expect(await moved.importBatch(records)).toMatchObject({ inserted: 2 });
    expect((await everything(moved)).versions).toEqual((await everything(store)).versions);
    await moved.close();
    await store.close();
  });

  it("keeps versions within PostgreSQL's int on both backends, and refuses the write that would pass it", async () => {
    const restored = { recorded_at: "2024-01-01T00:00:00Z" };
    expect(() => fact(7, { ...restored, version: LARGEST_VERSION + 1 })).toThrow(
      expect.objectContaining({ code: FACT_ERRORS.ID_RANGE }),
    );
    const store = await target.open();
    await store.setFunctional("p");
    expect(await store.importBatch([fact(7, { ...restored, version: LARGEST_VERSION })])).toMatchObject({
      inserted: 1,
    });
    const before = await everything(store);
    const last = { code: FACT_ERRORS.ID_RANGE, message: expect.stringMatching(/fact 7 has version 2147483647/) };
    await expect(store.correct(7, { statement: "again" })).rejects.toMatchObject(last);
    await expect(store.retract(7)).rejects.toMatchObject(last);
    // A newcomer for the same subject and functional predicate would supersede it: refused as a whole.
    await expect(
      store.assert({ subject: "s7", predicate: "p", statement: "newer", validFrom: "2021-01-01" }),
    ).rejects.toMatchObject(last);
    expect(await everything(store)).toEqual(before);
    await store.close();
  });
});
