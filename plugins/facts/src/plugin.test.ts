import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ContextQuery, contentDigest, createTokenCounter, silentLogger } from "ocp-provider";
import { connectInMemory } from "ocp-provider/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openFactStore } from "./open.js";
import { createFactsProvider, factsDataFlow } from "./plugin.js";
import type { FactStore } from "./store.js";

const dir = mkdtempSync(join(tmpdir(), "ocp-facts-plugin-"));
const file = join(dir, "team.db");
let store: FactStore;
let now = Date.parse("2024-01-10T00:00:00Z");
const clock = () => now;

beforeAll(async () => {
  store = await openFactStore({ db: file, clock });
  await store.setFunctional("works_at");
  await store.assert({
    subject: "alice",
    predicate: "works_at",
    statement: "Alice works at Acme",
    validFrom: "2020-03-01",
    source: "https://hr.example/alice",
    method: "hr-sync",
    author: "hr-bot",
  });
  now = Date.parse("2024-03-01T00:00:00Z");
  await store.assert({
    subject: "alice",
    predicate: "works_at",
    statement: "Alice works at Globex",
    validFrom: "2024-02-15",
  });
  now = Date.parse("2024-04-01T00:00:00Z");
  await store.correct(1, { validFrom: "2020-06-01", reason: "HR says June" });
  now = Date.parse("2024-06-01T00:00:00Z");
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const query = (goal: string, extra: Partial<ContextQuery> = {}): ContextQuery => ({
  goal,
  kinds: [],
  anchors: [],
  max_frames: 5,
  max_tokens: 1000,
  ...extra,
});

describe("the facts plugin", () => {
  it("answers with fact frames: title, statement, both times, fact provenance, a dated citation, exact costs", async () => {
    const provider = createFactsProvider({ store, logger: silentLogger });
    const result = await provider.query(query("where did alice work?", { as_of: "2021-01-01T00:00:00Z" }));
    const [frame] = result.frames;
    expect(frame).toMatchObject({
      id: "facts:1@v3",
      kind: "fact",
      title: "alice · works_at",
      content: "Alice works at Acme",
      uri: "fact://team/1",
      valid_from: "2020-06-01T00:00:00Z",
      valid_to: "2024-02-15T00:00:00Z",
      recorded_at: "2024-04-01T00:00:00Z",
      citation_label: "fact 1 (valid 2020-06-01 → 2024-02-15)",
    });
    expect(frame?.provenance).toEqual([
      {
        type: "fact",
        uri: "fact://team/1",
        method: "hr-sync",
        by: "hr-bot",
        digest: contentDigest("Alice works at Acme"),
      },
      { type: "source", uri: "https://hr.example/alice", by: "facts" },
    ]);
    expect(frame?.token_cost).toBe(createTokenCounter().count("Alice works at Acme"));
    expect(frame?.score).toBeGreaterThan(0);
    expect(frame?.score).toBeLessThanOrEqual(1);
    await provider.close();
  });

  it("filters by as_of (valid time), defaulting to now", async () => {
    const provider = createFactsProvider({ store, logger: silentLogger });
    const titles = async (extra: Partial<ContextQuery>) =>
      (await provider.query(query("alice works", extra))).frames.map((frame) => frame.content);
    expect(await titles({})).toEqual(["Alice works at Globex"]); // now = 2024-06-01
    expect(await titles({ as_of: "2024-02-14T23:59:59Z" })).toEqual(["Alice works at Acme"]);
    expect(await titles({ as_of: "2020-04-01T00:00:00Z" })).toEqual([]); // corrected: Acme began in June
    expect(await titles({ as_of: "2019-01-01" })).toEqual([]);
    await provider.close();
  });

  it("serves what the store knew at a system time: the asKnownAt option, or a query's as_known_at", async () => {
    const audit = createFactsProvider({ store, asKnownAt: "2024-02-01T00:00:00Z", logger: silentLogger });
    const frames = (await audit.query(query("alice works", { as_of: "2024-05-01" }))).frames;
    // Before Globex was recorded, Acme was believed to hold open-ended.
    expect(frames.map((frame) => [frame.content, frame.citation_label])).toEqual([
      ["Alice works at Acme", "fact 1 (valid since 2020-03-01)"],
    ]);
    await audit.close();
    // A host's as_known_at, sent over the wire, wins over the option.
    const host = connectInMemory(
      createFactsProvider({ store, asKnownAt: "2024-02-01T00:00:00Z", logger: silentLogger }),
    );
    await host.handshake();
    const asked = { ...query("alice works", { as_of: "2020-04-01" }), as_known_at: "2024-03-15T00:00:00Z" };
    const reply = await host.request({ type: "query", query: asked });
    expect(reply.type === "frames" && reply.result.frames.map((frame) => frame.id)).toEqual(["facts:1@v2"]);
    await host.close();
  });

  it("answers a bad as_of with an error envelope naming it, and keeps serving", async () => {
    const provider = createFactsProvider({ store, logger: silentLogger });
    const host = connectInMemory(provider);
    expect((await host.handshake()).type).toBe("handshake_ack");
    const bad = await host.request({ type: "query", query: query("alice", { as_of: "last tuesday" }) });
    expect(bad).toMatchObject({
      type: "error",
      message: expect.stringMatching(/as_of: 'last tuesday' is not a usable time/),
    });
    const good = await host.request({ type: "query", query: query("alice") });
    expect(good.type).toBe("frames");
    await host.close();
    await provider.close();
  });

  it("opens its own store read-only-style: a missing file disables the plugin with a clear log, never creates one", async () => {
    const missing = join(dir, "missing.db");
    const lines: string[] = [];
    const logger = { ...silentLogger, error: (message: string) => lines.push(message) };
    const provider = createFactsProvider({ db: missing, logger });
    await expect(provider.query(query("alice"))).rejects.toThrow(/no plugin is available/);
    expect(lines.join("\n")).toMatch(/no fact store at .*missing\.db/);
    await provider.close();
    const own = createFactsProvider({ db: file, logger: silentLogger, clock });
    expect((await own.query(query("globex"))).frames).toHaveLength(1);
    await own.close();
  });

  it("declares its data flow honestly: reads, never writes, egress only to a PostgreSQL server off this machine", () => {
    expect(factsDataFlow({ db: file })).toEqual({ reads: true, writes: false, egress: false });
    expect(factsDataFlow({ store })).toEqual({ reads: true, writes: false, egress: false });
    expect(factsDataFlow({ pg: "postgres://u:p@127.0.0.1:5432/facts" }).egress).toBe(false);
    expect(factsDataFlow({ pg: "postgres://db.example.com/facts" }).egress).toBe(true);
    expect(createFactsProvider({ db: file }).info.data_flow).toEqual({ reads: true, writes: false, egress: false });
  });
});
