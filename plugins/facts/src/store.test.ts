/**
 * The backend suite: one set of tests, run against SQLite and PostgreSQL (a
 * real server when OCP_PG_URL is set, PGlite in-process otherwise — never
 * skipped). The worked timeline below is the one in the README.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FACT_ERRORS, type FactErrorCode } from "./errors.js";
import type { Fact } from "./model.js";
import { parseRecord, toRecord } from "./records.js";
import type { FactStore } from "./store.js";
import { type BackendTarget, postgresTarget, sqliteTarget } from "./test-support/targets.js";

/** A system clock the test moves by hand, so every recorded_at is known in advance. */
function manualClock(start: string) {
  let now = Date.parse(start);
  return {
    clock: () => now,
    set: (iso: string) => {
      now = Date.parse(iso);
    },
  };
}

/** `#1v3 Alice works at Acme`: enough to read a result at a glance. */
const show = (facts: readonly Fact[]) => facts.map((fact) => `#${fact.id}v${fact.version} ${fact.statement}`).sort();

async function rejects(promise: Promise<unknown>, code: FactErrorCode, message: RegExp): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: "FactError", code, message: expect.stringMatching(message) });
}

/** Everything a store holds: every version of every fact, plus the erasure log. */
async function snapshot(store: FactStore) {
  const versions: Fact[] = [];
  for await (const fact of store.versions()) versions.push(fact);
  return { versions, erasures: await store.erasures(), functional: await store.functionalPredicates() };
}

const TARGETS: [string, () => Promise<BackendTarget>][] = [
  ["sqlite", async () => sqliteTarget()],
  ["postgresql", postgresTarget],
];

describe.each(TARGETS)("fact store on %s", (_label, makeTarget) => {
  let target: BackendTarget;
  beforeAll(async () => {
    target = await makeTarget();
  }, 120_000);
  afterAll(async () => {
    await target?.dispose();
  });

  it("keeps a worked timeline: assert, supersede, correct the past, retract, query both times, history, erase", async () => {
    const system = manualClock("2024-01-10T09:00:00Z");
    const store = await target.open({ clock: system.clock, name: "team" });
    await store.setFunctional("works_at");

    // 2024-01-10: Alice works at Acme since 2020-03-01.
    const acme = await store.assert({
      subject: "alice",
      predicate: "works_at",
      statement: "Alice works at Acme",
      validFrom: "2020-03-01",
      source: "https://hr.example/alice",
      method: "hr-sync",
      author: "hr-bot",
    });
    expect(acme.fact).toMatchObject({ id: 1, version: 1, validFrom: "2020-03-01T00:00:00Z", validTo: null });
    expect(acme.fact.recordedAt).toBe("2024-01-10T09:00:00Z");

    // 2024-02-01: she has lived in Lyon since 2019.
    system.set("2024-02-01T09:00:00Z");
    const lyon = await store.assert({
      subject: "alice",
      predicate: "lives_in",
      statement: "Alice lives in Lyon",
      validFrom: "2019-01-01",
    });

    // 2024-03-01: she works at Globex from 2024-02-15; works_at is functional, so Acme ends there.
    system.set("2024-03-01T09:00:00Z");
    const globex = await store.assert({
      subject: "alice",
      predicate: "works_at",
      statement: "Alice works at Globex",
      validFrom: "2024-02-15",
    });
    expect(globex.superseded).toHaveLength(1);
    expect(globex.superseded[0]).toMatchObject({
      id: 1,
      version: 2,
      op: "supersede",
      validFrom: "2020-03-01T00:00:00Z",
      validTo: "2024-02-15T00:00:00Z",
      note: "superseded by fact 3",
    });

    // 2024-04-01: correct the past — HR says Acme started in June 2020, not March.
    system.set("2024-04-01T09:00:00Z");
    const corrected = await store.correct(1, { validFrom: "2020-06-01", reason: "HR record says June", by: "carol" });
    expect(corrected.fact).toMatchObject({
      id: 1,
      version: 3,
      op: "correct",
      validFrom: "2020-06-01T00:00:00Z",
      validTo: "2024-02-15T00:00:00Z",
      note: "HR record says June",
      actor: "carol",
      author: "hr-bot",
    });

    // 2024-05-01: she moved out of Lyon on 2024-04-15: a retraction, nothing deleted.
    system.set("2024-05-01T09:00:00Z");
    const retracted = await store.retract(lyon.fact.id, { at: "2024-04-15", reason: "moved" });
    expect(retracted.fact).toMatchObject({ id: 2, version: 2, op: "retract", validTo: "2024-04-15T00:00:00Z" });

    // 2024-05-02: she lives in Paris from 2024-04-15 (lives_in is not functional: nothing superseded).
    system.set("2024-05-02T09:00:00Z");
    const paris = await store.assert({
      subject: "alice",
      predicate: "lives_in",
      statement: "Alice lives in Paris",
      validFrom: "2024-04-15",
    });
    expect(paris.superseded).toEqual([]);

    system.set("2024-06-01T00:00:00Z");
    const at = (validAt: string, knownAt?: string) => store.list({ subject: "alice", validAt, knownAt }).then(show);
    // Valid time, as known now.
    expect(await at("2021-01-01")).toEqual(["#1v3 Alice works at Acme", "#2v2 Alice lives in Lyon"]);
    expect(await at("2020-04-01")).toEqual(["#2v2 Alice lives in Lyon"]); // corrected: Acme began in June
    expect(await at("2024-03-01")).toEqual(["#2v2 Alice lives in Lyon", "#3v1 Alice works at Globex"]);
    expect(await at("2024-04-15")).toEqual(["#3v1 Alice works at Globex", "#4v1 Alice lives in Paris"]); // ends are exclusive
    expect(await at("2024-04-14T23:59:59.999Z")).toEqual(["#2v2 Alice lives in Lyon", "#3v1 Alice works at Globex"]);
    // System time: what the store believed then.
    expect(await at("2020-04-01", "2024-03-15T00:00:00Z")).toEqual([
      "#1v2 Alice works at Acme",
      "#2v1 Alice lives in Lyon",
    ]);
    expect(await at("2024-03-01", "2024-02-15T00:00:00Z")).toEqual([
      "#1v1 Alice works at Acme",
      "#2v1 Alice lives in Lyon",
    ]);
    expect(await at("2024-06-01", "2024-04-20T00:00:00Z")).toEqual([
      "#2v1 Alice lives in Lyon",
      "#3v1 Alice works at Globex",
    ]);
    expect(await at("2024-06-01", "2024-01-10T08:59:59.999Z")).toEqual([]); // before anything was recorded
    expect(await at("2024-06-01", "2024-01-10T09:00:00Z")).toEqual(["#1v1 Alice works at Acme"]); // starts are inclusive
    // Text search obeys both times too: the best match first, then facts sharing fewer of the words.
    const where = async (validAt: string, knownAt?: string) => {
      const hits = await store.search({ text: "Where does Alice work?", validAt, knownAt });
      return show(hits.map((hit) => hit.fact));
    };
    expect(await where("2021-01-01")).toEqual(["#1v3 Alice works at Acme", "#2v2 Alice lives in Lyon"]);
    expect((await store.search({ text: "Where does Alice work?", validAt: "2021-01-01" }))[0]?.fact.id).toBe(1);
    expect(await where("2024-06-01")).toEqual(["#3v1 Alice works at Globex", "#4v1 Alice lives in Paris"]);
    expect(await where("2024-03-01", "2024-02-15T00:00:00Z")).toEqual([
      "#1v1 Alice works at Acme",
      "#2v1 Alice lives in Lyon",
    ]);

    // History: every version with both intervals, oldest first.
    const history = await store.history({ subject: "alice" });
    expect(history.map((fact) => [fact.id, fact.version, fact.op, fact.recordedAt, fact.supersededAt])).toEqual([
      [1, 1, "assert", "2024-01-10T09:00:00Z", "2024-03-01T09:00:00Z"],
      [1, 2, "supersede", "2024-03-01T09:00:00Z", "2024-04-01T09:00:00Z"],
      [1, 3, "correct", "2024-04-01T09:00:00Z", null],
      [2, 1, "assert", "2024-02-01T09:00:00Z", "2024-05-01T09:00:00Z"],
      [2, 2, "retract", "2024-05-01T09:00:00Z", null],
      [3, 1, "assert", "2024-03-01T09:00:00Z", null],
      [4, 1, "assert", "2024-05-02T09:00:00Z", null],
    ]);
    expect(await store.history({ id: 1 })).toEqual(history.slice(0, 3));

    // Erase: Paris must really go. It is logged; its id is never handed out again.
    system.set("2024-07-01T00:00:00Z");
    const erasure = await store.erase({ id: 4, reason: "asked to be forgotten", by: "dpo" });
    expect(erasure).toEqual({
      at: "2024-07-01T00:00:00Z",
      ids: [4],
      versions: 1,
      reason: "asked to be forgotten",
      actor: "dpo",
    });
    expect(show(await store.history({ subject: "alice" }))).not.toContain("#4v1 Alice lives in Paris");
    expect(await store.search({ text: "Paris", validAt: "2024-06-01" })).toEqual([]);
    expect(await store.erasures()).toEqual([erasure]);
    const next = await store.assert({ subject: "bob", predicate: "likes", statement: "Bob likes tea" });
    expect(next.fact.id).toBe(5);
    // A fact asserted without valid_from holds from when it was recorded.
    expect(next.fact.validFrom).toBe("2024-07-01T00:00:00.001Z");
    await store.close();
  });

  it("reconciles functional predicates in valid-time order: later starts win, a back-fill is trimmed", async () => {
    const store = await target.open();
    await store.setFunctional("employer");
    const acme = await store.assert({
      subject: "dan",
      predicate: "employer",
      statement: "Acme",
      validFrom: "2020-01-01",
    });
    // Recorded later but valid earlier: it ends where Acme begins, and Acme is untouched.
    const initech = await store.assert({
      subject: "dan",
      predicate: "employer",
      statement: "Initech",
      validFrom: "2018-01-01",
    });
    expect(initech.fact.validTo).toBe("2020-01-01T00:00:00Z");
    expect(initech.superseded).toEqual([]);
    // Same start as Acme: Acme is withdrawn (holds at no time), its history kept.
    const acmeCorp = await store.assert({
      subject: "dan",
      predicate: "employer",
      statement: "Acme Corp",
      validFrom: "2020-01-01",
    });
    expect(acmeCorp.superseded).toMatchObject([
      { id: acme.fact.id, validFrom: "2020-01-01T00:00:00Z", validTo: "2020-01-01T00:00:00Z" },
    ]);
    const at = (validAt: string) => store.list({ subject: "dan", validAt }).then(show);
    expect(await at("2019-06-01")).toEqual([`#${initech.fact.id}v1 Initech`]);
    expect(await at("2021-06-01")).toEqual([`#${acmeCorp.fact.id}v1 Acme Corp`]);
    // Another subject is not affected, nor another predicate.
    await store.assert({ subject: "erin", predicate: "employer", statement: "Umbrella", validFrom: "2019-01-01" });
    expect(await at("2021-06-01")).toEqual([`#${acmeCorp.fact.id}v1 Acme Corp`]);
    await store.close();
  });

  it("answers bad times, empty intervals, unknown ids and no-op changes with clear errors that change nothing", async () => {
    const system = manualClock("2024-01-01T00:00:00Z");
    const store = await target.open({ clock: system.clock });
    await store.setFunctional("works_at");
    const first = await store.assert({
      subject: "alice",
      predicate: "works_at",
      statement: "Acme",
      validFrom: "2020-01-01",
      validTo: "2022-01-01",
    });
    const before = await snapshot(store);
    // The wall clock now lags the store's clock: a failed write that still ticked it would show below.
    system.set("2023-01-01T00:00:00Z");

    await rejects(
      store.assert({ subject: "a", predicate: "p", statement: "s", validFrom: "2024-13-01" }),
      FACT_ERRORS.BAD_TIME,
      /valid_from: '2024-13-01'.*month 13/,
    );
    await rejects(
      store.assert({ subject: "a", predicate: "p", statement: "s", validFrom: "2023-02-29" }),
      FACT_ERRORS.BAD_TIME,
      /has no day 29/,
    );
    await rejects(
      store.assert({ subject: "a", predicate: "p", statement: "s", validFrom: "2024-01-01T10:00:00" }),
      FACT_ERRORS.BAD_TIME,
      /UTC offset/,
    );
    await rejects(
      store.assert({ subject: "a", predicate: "p", statement: "s", validFrom: "yesterday" }),
      FACT_ERRORS.BAD_TIME,
      /RFC 3339/,
    );
    await rejects(
      store.assert({ subject: "a", predicate: "p", statement: "s", validFrom: "2024-02-01", validTo: "2024-02-01" }),
      FACT_ERRORS.BAD_INTERVAL,
      /valid_to must be after valid_from/,
    );
    await rejects(
      store.assert({ subject: "a", predicate: "p", statement: "s", validFrom: "2024-02-01", validTo: "2023-02-01" }),
      FACT_ERRORS.BAD_INTERVAL,
      /valid_to must be after valid_from/,
    );
    // Without valid_from the fact starts when recorded (2024-01-01 here), after this valid_to.
    await rejects(
      store.assert({ subject: "a", predicate: "p", statement: "s", validTo: "2021-01-01" }),
      FACT_ERRORS.BAD_INTERVAL,
      /valid_to/,
    );
    await rejects(
      store.assert({ subject: " ", predicate: "p", statement: "s" }),
      FACT_ERRORS.BAD_INPUT,
      /subject must not be empty/,
    );
    await rejects(store.assert({ subject: "a", predicate: "p", statement: "nul\u0000" }), FACT_ERRORS.BAD_INPUT, /NUL/);
    await rejects(store.correct(99, { statement: "x" }), FACT_ERRORS.UNKNOWN_ID, /no fact 99/);
    await rejects(
      store.correct(first.fact.id, { validTo: "2019-01-01" }),
      FACT_ERRORS.BAD_INTERVAL,
      /valid_to must be after/,
    );
    await rejects(store.correct(first.fact.id, { statement: "Acme" }), FACT_ERRORS.NO_CHANGE, /changes nothing/);
    await rejects(store.correct(first.fact.id, { validFrom: "not a time" }), FACT_ERRORS.BAD_TIME, /valid_from/);
    await rejects(store.retract(99), FACT_ERRORS.UNKNOWN_ID, /no fact 99/);
    await rejects(
      store.retract(first.fact.id, { at: "2023-01-01" }),
      FACT_ERRORS.NO_CHANGE,
      /already ends at 2022-01-01/,
    );
    await rejects(store.retract(first.fact.id, { at: "2021-02-30" }), FACT_ERRORS.BAD_TIME, /no day 30/);
    await rejects(store.erase({ id: 99, reason: "test" }), FACT_ERRORS.UNKNOWN_ID, /no fact 99/);
    await rejects(store.erase({ subject: "nobody", reason: "test" }), FACT_ERRORS.UNKNOWN_ID, /subject 'nobody'/);
    await rejects(store.erase({ id: first.fact.id, reason: "" }), FACT_ERRORS.BAD_INPUT, /reason/);
    await rejects(
      store.erase({ id: first.fact.id, subject: "alice", reason: "x" }),
      FACT_ERRORS.BAD_INPUT,
      /exactly one/,
    );
    await rejects(store.history({ id: 99 }), FACT_ERRORS.UNKNOWN_ID, /no fact 99/);
    await rejects(store.get(0), FACT_ERRORS.BAD_INPUT, /positive whole number/);
    await rejects(store.list({ validAt: "2024-01-01T25:00:00Z" }), FACT_ERRORS.BAD_TIME, /as_of.*hour 25/);

    expect(await snapshot(store)).toEqual(before);
    const after = await store.assert({ subject: "b", predicate: "p", statement: "s" });
    expect(after.fact.id).toBe(first.fact.id + 1); // no id was used up
    expect(after.fact.recordedAt).toBe("2024-01-01T00:00:00.001Z"); // one tick past the last commit, none lost
    await store.close();
  });

  it("withdraws a fact retracted at or before its start, and lets a correction reopen it", async () => {
    const store = await target.open();
    const planned = await store.assert({
      subject: "launch",
      predicate: "date",
      statement: "Launch on 2030-01-01",
      validFrom: "2030-01-01",
    });
    const withdrawn = await store.retract(planned.fact.id, { at: "2029-06-01", reason: "cancelled" });
    expect(withdrawn.fact).toMatchObject({ validFrom: "2030-01-01T00:00:00Z", validTo: "2030-01-01T00:00:00Z" });
    expect(await store.list({ subject: "launch", validAt: "2030-06-01" })).toEqual([]);
    await rejects(store.retract(planned.fact.id), FACT_ERRORS.NO_CHANGE, /withdrawn/);
    const reopened = await store.correct(planned.fact.id, { validTo: null, reason: "back on" });
    expect(reopened.fact).toMatchObject({ version: 3, validTo: null });
    expect(show(await store.list({ subject: "launch", validAt: "2030-06-01" }))).toEqual([
      `#${planned.fact.id}v3 Launch on 2030-01-01`,
    ]);
    await store.close();
  });

  it("erases every fact that ever had a subject, including facts since corrected to another subject", async () => {
    const store = await target.open();
    const one = await store.assert({ subject: "mallory", predicate: "phone", statement: "+33 1 23 45 67 89" });
    await store.correct(one.fact.id, { subject: "m.", reason: "pseudonymise" });
    await store.assert({ subject: "mallory", predicate: "email", statement: "m@example.org" });
    const keep = await store.assert({ subject: "trent", predicate: "email", statement: "t@example.org" });
    const erasure = await store.erase({ subject: "mallory", reason: "GDPR art. 17" });
    expect(erasure.ids).toEqual([one.fact.id, one.fact.id + 1]);
    expect(erasure.versions).toBe(3);
    const left = await snapshot(store);
    expect(left.versions.map((fact) => fact.id)).toEqual([keep.fact.id]);
    expect(JSON.stringify(left.erasures)).not.toContain("mallory"); // the log keeps ids and counts, not content
    await store.close();
  });

  it("searches text: all terms first, stop words ignored, rarer terms weigh more, scores in [0, 1]", async () => {
    const store = await target.open();
    await store.assert({
      subject: "alice smith",
      predicate: "works_at",
      statement: "Alice Smith works at Acme",
      validFrom: "2020-01-01",
    });
    await store.assert({
      subject: "alice smith",
      predicate: "lives_in",
      statement: "Alice Smith lives in Lyon",
      validFrom: "2020-01-01",
    });
    await store.assert({
      subject: "bob smith",
      predicate: "works_at",
      statement: "Bob Smith works at Initech",
      validFrom: "2020-01-01",
    });
    await store.assert({
      subject: "carol",
      predicate: "works_at",
      statement: "Carol works at Acme",
      validFrom: "2020-01-01",
    });
    // It mentions alice, smith and work too, but it is not *about* where she works.
    const biography = `Alice Smith worked on compilers. ${"She worked on many projects and worked hard. ".repeat(20)}`;
    await store.assert({
      subject: "alice smith",
      predicate: "biography",
      statement: biography,
      validFrom: "2020-01-01",
    });
    const hits = await store.search({ text: "Where does Alice Smith work?", validAt: "2024-01-01" });
    expect(hits[0]?.fact.statement).toBe("Alice Smith works at Acme");
    expect(hits[1]?.fact.predicate).toBe("biography");
    expect(hits.map((hit) => hit.fact.statement)).toContain("Alice Smith lives in Lyon");
    for (const hit of hits) {
      expect(hit.relevance).toBeGreaterThan(0);
      expect(hit.relevance).toBeLessThanOrEqual(1);
    }
    const scores = hits.map((hit) => hit.relevance);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(await store.search({ text: "where is the what", validAt: "2024-01-01" })).toEqual([]);
    expect(await store.search({ text: "zeppelin", validAt: "2024-01-01" })).toEqual([]);
    expect(await store.search({ text: "alice", validAt: "2019-01-01" })).toEqual([]); // not yet valid
    expect((await store.search({ text: "smith", validAt: "2024-01-01", limit: 2 })).length).toBe(2);
    await store.close();
  });

  it("folds accents alike in stored text and queries, so both backends find the same facts", async () => {
    const store = await target.open();
    await store.assert({
      subject: "zoë müller",
      predicate: "works_at",
      statement: "Zoë Müller works at Café Ångström in Kraków",
      validFrom: "2020-01-01",
    });
    await store.assert({
      subject: "bob",
      predicate: "works_at",
      statement: "Bob works at Acme",
      validFrom: "2020-01-01",
    });
    for (const text of ["Where does Zoë Müller work?", "zoe muller", "ZOE MULLER", "cafe angstrom krakow"]) {
      const hits = await store.search({ text, validAt: "2024-01-01" });
      expect(hits[0]?.fact.subject, text).toBe("zoë müller");
    }
    expect((await store.search({ text: "krakow", validAt: "2024-01-01" })).map((hit) => hit.fact.subject)).toEqual([
      "zoë müller",
    ]);
    await store.close();
  });

  it("finds a word as it was written when its lower case carries a combining mark (Turkish İ)", async () => {
    const store = await target.open();
    await store.assert({
      subject: "office",
      predicate: "city",
      statement: "The office is in İstanbul near the Bosphorus",
      validFrom: "2020-01-01",
    });
    await store.assert({
      subject: "hq",
      predicate: "city",
      statement: "Headquarters are in Ankara",
      validFrom: "2020-01-01",
    });
    for (const text of ["İstanbul", "istanbul", "ISTANBUL", "where is the İstanbul office?"]) {
      const hits = await store.search({ text, validAt: "2024-01-01" });
      expect(
        hits.map((hit) => hit.fact.subject),
        text,
      ).toEqual(["office"]);
    }
    await store.close();
  });

  it("imports atomically per batch and idempotently by id; a second connection sees only committed batches", async () => {
    const store = await target.open();
    await store.setFunctional("ceo");
    const records = [1, 2, 3].map((id) =>
      parseRecord({
        id: 10 + id,
        subject: `co${id}`,
        predicate: "ceo",
        statement: `CEO ${id}`,
        valid_from: "2020-01-01",
      }),
    );
    expect(await store.importBatch(records)).toEqual({ inserted: 3, skipped: 0, superseded: 0 });
    expect(await store.importBatch(records)).toEqual({ inserted: 0, skipped: 3, superseded: 0 });
    const before = await snapshot(store);
    // One bad record refuses the whole batch: the first two are not imported either.
    const clash = [
      parseRecord({ id: 20, subject: "x", predicate: "p", statement: "new" }),
      parseRecord({ id: 21, subject: "y", predicate: "p", statement: "new" }),
      parseRecord({ id: 12, subject: "co2", predicate: "ceo", statement: "someone else" }),
    ];
    await rejects(
      store.importBatch(clash),
      FACT_ERRORS.CONFLICT,
      /fact 12 version 1 is already stored with different content/,
    );
    expect(await snapshot(store)).toEqual(before);
    // A batch may supersede within itself and against the store; the second record ends the first.
    const result = await store.importBatch([
      parseRecord({ id: 30, subject: "co1", predicate: "ceo", statement: "CEO 1b", valid_from: "2022-01-01" }),
      parseRecord({ id: 31, subject: "co1", predicate: "ceo", statement: "CEO 1c", valid_from: "2023-01-01" }),
    ]);
    expect(result).toEqual({ inserted: 2, skipped: 0, superseded: 2 });
    const co1 = await store.history({ subject: "co1" });
    // Fact 30 was recorded in this same batch, so it was trimmed in place: no extra version.
    expect(co1.map((fact) => [fact.id, fact.version, fact.validTo])).toEqual([
      [11, 1, null],
      [11, 2, "2022-01-01T00:00:00Z"],
      [30, 1, "2023-01-01T00:00:00Z"],
      [31, 1, null],
    ]);
    // Imported ids are reserved: the next assertion does not collide with them.
    expect((await store.assert({ subject: "z", predicate: "p", statement: "s" })).fact.id).toBe(32);
    const second = await target.reopen();
    expect((await snapshot(second)).versions).toEqual((await snapshot(store)).versions);
    await second.close();
    await store.close();
  });

  it("refuses restored history that would leave a fact's current version below it", async () => {
    const store = await target.open();
    await store.setFunctional("works_at");
    const version = (version: number, closed: string | null) =>
      parseRecord({
        id: 70,
        version,
        subject: "ann",
        predicate: "works_at",
        statement: "Ann works at Acme",
        valid_from: "2020-01-01",
        recorded_at: `202${version}-01-01T00:00:00Z`,
        superseded_at: closed,
      });
    const before = await snapshot(store);
    // Either order in one batch, and history above a current version already stored.
    await rejects(
      store.importBatch([version(1, null), version(2, "2023-01-01T00:00:00Z")]),
      FACT_ERRORS.CONFLICT,
      /fact 70: .*version 2 would be history above current version 1/,
    );
    await rejects(
      store.importBatch([version(2, "2023-01-01T00:00:00Z"), version(1, null)]),
      FACT_ERRORS.CONFLICT,
      /fact 70: .*version 1 would be current below stored version 2/,
    );
    expect(await snapshot(store)).toEqual(before);
    await store.importBatch([version(1, null)]);
    await rejects(
      store.importBatch([version(3, "2024-01-01T00:00:00Z")]),
      FACT_ERRORS.CONFLICT,
      /version 3 would be history above current version 1/,
    );
    // History below the current version is what an export holds: accepted, and the fact
    // can still be superseded (its next version is above everything stored).
    const bob = (version: number, recorded: string, closed: string | null) =>
      parseRecord({
        id: 72,
        version,
        subject: "bob",
        predicate: "works_at",
        statement: `Bob works at Acme (v${version})`,
        valid_from: "2020-01-01",
        recorded_at: recorded,
        superseded_at: closed,
      });
    await store.importBatch([
      bob(1, "2021-01-01T00:00:00Z", "2022-06-01T00:00:00Z"),
      bob(2, "2022-06-01T00:00:00Z", null),
    ]);
    const later = await store.assert({
      subject: "bob",
      predicate: "works_at",
      statement: "Bob works at Globex",
      validFrom: "2024-06-01",
    });
    expect(later.superseded.map((fact) => [fact.id, fact.version])).toEqual([[72, 3]]);
    await store.close();
  });

  it("round-trips an export into an empty store exactly, history and system times included", async () => {
    const system = manualClock("2024-01-01T00:00:00Z");
    const source = await target.open({ clock: system.clock });
    await source.setFunctional("role");
    await source.assert({
      subject: "eve",
      predicate: "role",
      statement: "Eve is an engineer",
      validFrom: "2021-01-01",
      author: "hr",
    });
    system.set("2024-02-01T00:00:00Z");
    await source.assert({ subject: "eve", predicate: "role", statement: "Eve is a manager", validFrom: "2023-01-01" });
    system.set("2024-03-01T00:00:00Z");
    await source.correct(1, { statement: "Eve is a senior engineer", reason: "typo" });
    const exported = (await snapshot(source)).versions;
    // The copy's wall clock is behind the history it restores.
    const copy = await target.open({ clock: manualClock("2023-06-01T00:00:00Z").clock });
    const records = exported.map((fact) => parseRecord(JSON.parse(JSON.stringify(toRecord(fact)))));
    expect(await copy.importBatch(records)).toEqual({ inserted: exported.length, skipped: 0, superseded: 0 });
    expect((await snapshot(copy)).versions).toEqual(exported);
    expect(await copy.importBatch(records)).toEqual({ inserted: 0, skipped: exported.length, superseded: 0 });
    // The copy's clock moved past the restored history: a new write is recorded after it.
    const later = await copy.assert({ subject: "eve", predicate: "note", statement: "restored" });
    expect(later.fact.recordedAt).toBe("2024-03-01T00:00:00.001Z");
    await source.close();
    await copy.close();
  });

  it("refuses to open a store that does not exist when asked not to create one", async () => {
    await rejects(target.open({ create: false }), FACT_ERRORS.NO_STORE, /no fact store/);
  });
});
