/**
 * `ocp-facts serve --db FILE` as a host meets it: a real child process over stdio
 * and over --http, checked against the provider-side requirements — handshake
 * (H1–H3), frame validity (F1–F3), budget honesty with exact costs (B1),
 * malformed-input tolerance (R1), clean shutdown (R2) — and against the store:
 * every frame's content and digest match the fact its URI names.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FactStore, openFactStore, parseRecord, toRecord } from "ocp-plugin-facts";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Child, exitWithin, REPO, trackChildren } from "../test-support/child.js";
import { handshake, nextEnvelope, postEnvelope } from "../test-support/envelopes.js";
import { listeningUrl } from "../test-support/listening.js";
import * as check from "../test-support/provider-checks.js";

const FACTS_BIN = join(REPO, "plugins/facts/bin/ocp-facts.js");
const dir = mkdtempSync(join(tmpdir(), "ocp-facts-e2e-"));
const db = join(dir, "company.db");
const statements = new Map<string, string>(); // fact uri → statement of its current version

beforeAll(async () => {
  let now = Date.parse("2024-01-01T00:00:00Z");
  const store: FactStore = await openFactStore({ db, clock: () => now });
  await store.setFunctional("works_at");
  const people = ["alice", "bob", "carol", "dan", "erin", "frank"];
  for (const [i, person] of people.entries()) {
    now += 86_400_000;
    await store.assert({
      subject: person,
      predicate: "works_at",
      statement: `${person} works at ${i % 2 === 0 ? "Acme" : "Globex"} as an engineer.`,
      validFrom: "2020-01-01",
      author: "hr-bot",
      method: "hr-sync",
    });
    await store.assert({
      subject: person,
      predicate: "biography",
      // Long, multi-line statements: budgets must cut these at line boundaries.
      statement: Array.from(
        { length: 12 },
        (_, line) => `${person} biography line ${line + 1}: worked on projects and teams.`,
      ).join("\n"),
      validFrom: "2019-01-01",
    });
  }
  now += 86_400_000;
  await store.assert({
    subject: "alice",
    predicate: "works_at",
    statement: "alice works at Initech as a manager.",
    validFrom: "2023-06-01",
  });
  for await (const fact of store.versions())
    if (fact.supersededAt === null) statements.set(store.uri(fact.id), fact.statement);
  await store.close();
});

const pgUrl = process.env.OCP_PG_URL;
const pgSchema = `ocp_facts_serve_${randomBytes(5).toString("hex")}`;
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (pgUrl) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
    await client.end();
  }
});

const children = trackChildren();
afterEach(children.killAll);

function serve(args: string[] = []): Child {
  return children.spawn([FACTS_BIN, "serve", "--db", db, ...args]);
}

const query = (goal: string, maxTokens: number, maxFrames = 5, asOf?: string) => ({
  type: "query",
  query: { goal, kinds: [], anchors: [], max_frames: maxFrames, max_tokens: maxTokens, as_of: asOf },
});

interface WireFrame extends check.CheckedFrame {
  kind: string;
  uri: string;
  valid_from: string;
  recorded_at: string;
  provenance: { type: string; uri: string; digest: string }[];
}

/** The generic frame checks, then every frame traceable to its fact in the store. */
function checkFrames(reply: { type: string; result: { frames: WireFrame[] } }, maxTokens: number, maxFrames: number) {
  const frames = check.genericFrames(reply, maxTokens, maxFrames);
  for (const frame of frames) {
    expect(frame.kind).toBe("fact");
    expect(frame.citation_label).toMatch(/^fact \d+ \(valid /);
    expect(frame.valid_from).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(frame.recorded_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // The content is the fact's statement, or a whole-line prefix of it when the budget cut it.
    const statement = statements.get(frame.uri);
    expect(statement).toBeDefined();
    expect(statement === frame.content || (statement as string).startsWith(frame.content)).toBe(true);
    expect(frame.content === statement || frame.content.endsWith("\n")).toBe(true);
    expect(frame.provenance[0]).toMatchObject({ type: "fact", uri: frame.uri });
    expect(frame.provenance[0]?.digest).toBe(`sha256:${createHash("sha256").update(frame.content).digest("hex")}`);
  }
  return frames;
}

describe("ocp-facts serve over stdio (a real child process)", () => {
  it("handshakes, answers within budget with valid fact frames, survives garbage and exits 0 on shutdown", async () => {
    const child = serve();
    const ack = await handshake(child);
    expect(ack).toMatchObject({
      type: "handshake_ack",
      protocol_version: "ocp/1.0-draft",
      provider: { name: "facts" },
    });
    expect(ack.provider.data_flow).toEqual({ reads: true, writes: false, egress: false });
    expect(ack.capabilities.query.kinds).toEqual(["fact"]);

    let cut = false;
    for (const [maxTokens, maxFrames] of [
      [2000, 5],
      [150, 3],
      [40, 2],
      [5, 2],
      [0, 5],
    ] as const) {
      child.send(query("alice biography and where she works", maxTokens, maxFrames));
      const frames = checkFrames(await nextEnvelope(child), maxTokens, maxFrames);
      if (maxTokens === 2000) expect(frames.length).toBeGreaterThan(1);
      cut ||= frames.some((frame) => frame.content !== statements.get(frame.uri));
    }
    expect(cut).toBe(true); // the small budgets did cut a long statement

    // as_of: valid time. In 2021 alice worked at Acme; since mid-2023 at Initech.
    child.send(query("where does alice work", 500, 1, "2021-06-01T00:00:00Z"));
    expect(checkFrames(await nextEnvelope(child), 500, 1)[0]?.content).toBe("alice works at Acme as an engineer.");
    child.send(query("where does alice work", 500, 1));
    expect(checkFrames(await nextEnvelope(child), 500, 1)[0]?.content).toBe("alice works at Initech as a manager.");
    child.send(query("where does alice work", 500, 1, "the day before yesterday"));
    expect((await nextEnvelope(child)).message).toMatch(/as_of/);

    await check.garbageAnsweredWithErrors(child);
    child.send(query("bob", 500));
    expect(checkFrames(await nextEnvelope(child), 500, 5).length).toBeGreaterThan(0);

    await check.shutdown(child, 2000);
  });

  it("reports a version-family mismatch as a named error, and exits 0 on EOF and on SIGTERM", async () => {
    const child = serve();
    await check.versionMismatch(child, "ocp/2.0");
    child.send(query("alice", 300));
    await check.exitsOnEof(child, 2000);

    const term = serve();
    await handshake(term);
    await check.exitsOnSigterm(term, 2000);
  });

  it("exits 1 with a clear message, before serving anything, when the store does not exist", async () => {
    const child = children.spawn([FACTS_BIN, "serve", "--db", join(dir, "missing.db")]);
    expect((await exitWithin(child, 5000)).code).toBe(1);
    expect(child.stderr()).toMatch(/no fact store at .*missing\.db/);
    expect(child.lines).toEqual([]);
  });
});

describe("ocp-facts serve --http (a real child process)", () => {
  it("meets the same requirements over HTTP and drains on SIGTERM", async () => {
    const child = serve(["--http", "127.0.0.1:0"]);
    const url = await listeningUrl(child);
    const post = (body: unknown) => postEnvelope(url, body);
    const ack = await post({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    expect(ack).toMatchObject({ status: 200, message: { type: "handshake_ack" } });
    for (const [maxTokens, maxFrames] of [
      [2000, 5],
      [60, 2],
      [0, 3],
    ] as const) {
      const { status, message } = await post(query("carol biography works", maxTokens, maxFrames));
      expect(status).toBe(200);
      checkFrames(message, maxTokens, maxFrames);
    }
    const past = await post(query("where does alice work", 500, 1, "2021-06-01T00:00:00Z"));
    expect(checkFrames(past.message, 500, 1)[0]?.content).toBe("alice works at Acme as an engineer.");
    expect((await post(query("alice", 100, 1, "2024-02-30"))).message.message).toMatch(/no day 30/);
    await check.httpRejectsMalformed(post, query("still up", 100));
    await check.exitsOnSigterm(child, 3000);
  });
});

describe.skipIf(!pgUrl)("ocp-facts serve --pg (a real child process, OCP_PG_URL)", () => {
  it("serves the same store from PostgreSQL: same frames, loopback server declared without egress", async () => {
    const source = await openFactStore({ db, create: false });
    const target = await openFactStore({ pg: pgUrl as string, schema: pgSchema });
    const records = [];
    for await (const fact of source.versions()) records.push(parseRecord(toRecord(fact)));
    await target.importBatch(records);
    await source.close();
    await target.close();

    const child = children.spawn([
      FACTS_BIN,
      "serve",
      "--pg",
      pgUrl as string,
      "--schema",
      pgSchema,
      "--store-name",
      "company",
    ]);
    const ack = await handshake(child);
    expect(ack.provider.data_flow).toEqual({ reads: true, writes: false, egress: false });
    child.send(query("where does alice work", 500, 1, "2021-06-01T00:00:00Z"));
    expect(checkFrames(await nextEnvelope(child), 500, 1)[0]?.content).toBe("alice works at Acme as an engineer.");
    child.send(query("alice biography and where she works", 150, 3));
    checkFrames(await nextEnvelope(child), 150, 3);
    await check.shutdown(child, 2000);
  });
});
