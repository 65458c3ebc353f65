/**
 * The search-index template's adapters against real indexes built here: an SQLite
 * FTS5 file, mkdocs' search_index.json (with and without a prebuilt lunr index), a bare
 * lunr index, and a real HTTP search endpoint on loopback.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import lunr from "lunr";
import { createTokenCounter, defineProvider, type Plugin } from "ocp-provider";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { httpSearch, isLoopback, pick } from "../../templates/search-index/http/src/adapters/http-search.js";
import { htmlToText, lunrIndex } from "../../templates/search-index/lunr/src/adapters/lunr-index.js";
import { ftsQuery, goalWords, sqliteFts5 } from "../../templates/search-index/sqlite/src/adapters/sqlite-fts5.js";
import { sampleDatabase } from "../../templates/search-index/sqlite/src/sample-data.js";
import { assertReferenceValid } from "../test-support/reference-schema.js";

const PAGES = [
  { location: "", title: "Home", text: "Welcome to the Acme handbook. Everything about deploys and on-call." },
  { location: "deploys/", title: "Deploys", text: "How a release reaches production." },
  {
    location: "deploys/#rollback",
    title: "Rolling back",
    text: "To roll back a deploy, run acme rollback with the release id.\nRollbacks take about two minutes.",
  },
  { location: "oncall/#paging", title: "Paging", text: "The pager rotates weekly; escalate after fifteen minutes." },
  { location: "oncall/#empty", title: "Empty", text: "   " },
];

const counter = createTokenCounter();
const tmp = mkdtempSync(join(tmpdir(), "ocp-search-index-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const query = (goal: string, maxTokens = 2000, maxFrames = 8) => ({
  goal,
  kinds: [],
  anchors: [],
  max_tokens: maxTokens,
  max_frames: maxFrames,
});

function providerOf(plugin: Plugin, egress = false) {
  return defineProvider({
    name: "search-index-test",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress },
    plugins: [plugin],
  });
}

/** Asks, checks F1–F3 and B1 and exact costs, and returns the frames. */
async function ask(plugin: Plugin, goal: string, maxTokens = 2000) {
  const provider = providerOf(plugin);
  try {
    const result = await provider.query(query(goal, maxTokens));
    assertReferenceValid({ type: "frames", result });
    expect(result.frames.reduce((sum, frame) => sum + frame.token_cost, 0)).toBeLessThanOrEqual(maxTokens);
    for (const frame of result.frames) {
      expect(frame.score).toBeGreaterThanOrEqual(0);
      expect(frame.score).toBeLessThanOrEqual(1);
      expect(frame.title.trim()).not.toBe("");
      expect(frame.citation_label?.trim()).not.toBe("");
      expect(frame.token_cost).toBe(counter.count(frame.content));
    }
    return result;
  } finally {
    await provider.close();
  }
}

describe("sqliteFts5: a real FTS5 file", () => {
  const file = join(tmp, "docs.sqlite");
  beforeAll(() => {
    const db = new Database(file);
    db.exec("CREATE VIRTUAL TABLE pages USING fts5(title, body, url, tokenize = 'porter')");
    const insert = db.prepare("INSERT INTO pages (title, body, url) VALUES (?, ?, ?)");
    for (const page of PAGES) insert.run(page.title, page.text, `https://handbook.acme.test/${page.location}`);
    db.exec("CREATE TABLE plain (body TEXT)");
    db.close();
  });

  it("ranks rows by bm25 and maps columns to title, content and citation", async () => {
    const plugin = sqliteFts5({ file, table: "pages", columns: { content: "body", title: "title", uri: "url" } });
    const { frames } = await ask(plugin, "how do I roll back a deploy");
    expect(frames[0]).toMatchObject({
      title: "Rolling back",
      uri: "https://handbook.acme.test/deploys/#rollback",
      citation_label: "https://handbook.acme.test/deploys/#rollback",
      kind: "doc",
    });
    expect(frames[0]?.content).toBe(PAGES[2]?.text);
    expect(frames.map((frame) => frame.title)).not.toContain("Paging");
    // bm25 order survives the mapping into [0, 1].
    const scores = frames.map((frame) => frame.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it("treats FTS5 syntax in a goal as words, and a wordless goal as no match", async () => {
    const plugin = sqliteFts5({ file, table: "pages", columns: { content: "body" } });
    for (const goal of ['rollback" OR NEAR(', "-deploy* : ^title", "AND OR NOT"]) {
      await expect(ask(plugin, goal)).resolves.toBeDefined();
    }
    expect((await ask(plugin, "?!")).frames).toEqual([]);
    expect(ftsQuery(goalWords('how a "bb" cc-dd'), "OR")).toBe('"bb" OR "cc" OR "dd"');
    expect(ftsQuery(goalWords("Rollback deploy rollback"), "AND")).toBe('"rollback" "deploy"');
  });

  it("names a missing file with its path, a missing table, a plain table or a missing column instead of failing at a query", async () => {
    const missing = join(tmp, "no-such-dir", "docs.sqlite");
    for (const [options, message] of [
      [{ file: missing, table: "pages", columns: { content: "body" } }, `no SQLite database at ${missing}`],
      [{ file, table: "nope", columns: { content: "body" } }, "no table 'nope'"],
      [{ file, table: "plain", columns: { content: "body" } }, "not an FTS5 table"],
      [{ file, table: "pages", columns: { content: "text" } }, "has no column 'text'"],
    ] as const) {
      const logged: string[] = [];
      const provider = defineProvider({
        name: "t",
        version: "1",
        dataFlow: { reads: true, writes: false, egress: false },
        plugins: [sqliteFts5(options)],
        logger: { error: (line) => logged.push(line), warn: () => {}, info: () => {}, debug: () => {} },
      });
      await expect(provider.query(query("deploy"))).rejects.toThrow(/no plugin is available/);
      expect(logged.join("\n")).toContain(message);
    }
  });
});

describe("the sqlite template's sample database (src/sample-data.ts)", () => {
  it("is built on first use, whole and in place, says on stderr what it made, and is built once", () => {
    const dir = join(tmp, "sample");
    mkdirSync(dir);
    const file = join(dir, "docs.sqlite");
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(sampleDatabase(file)).toBe(file);
      expect(sampleDatabase(file)).toBe(file);
      expect(stderr.mock.calls.map(([text]) => String(text))).toEqual([
        `sample: built ${file}, 7 pages from ${join("templates", "search-index", "sqlite", "data", "sample-docs.json")}\n`,
      ]);
    } finally {
      stderr.mockRestore();
    }
    expect(readdirSync(dir)).toEqual(["docs.sqlite"]);
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM pages").get()).toEqual({ n: 7 });
    db.close();
  });
});

describe("lunrIndex: mkdocs' search_index.json and bare lunr indexes", () => {
  const buildIndex = () =>
    lunr(function () {
      this.ref("location");
      this.field("title", { boost: 10 });
      this.field("text");
      for (const page of PAGES) this.add(page);
    });

  it("searches an mkdocs index without a prebuilt index, titling sections by page", async () => {
    const file = join(tmp, "search_index.json");
    writeFileSync(file, JSON.stringify({ config: { lang: ["en"], separator: "[\\s\\-]+" }, docs: PAGES }));
    const plugin = lunrIndex({ file, baseUrl: "https://handbook.acme.test/" });
    const { frames } = await ask(plugin, "roll back a deploy");
    expect(frames[0]).toMatchObject({
      title: "Deploys › Rolling back",
      uri: "https://handbook.acme.test/deploys/#rollback",
      citation_label: "https://handbook.acme.test/deploys/#rollback",
    });
    // An empty section is never offered.
    expect(frames.map((frame) => frame.title)).not.toContain("Empty");
  });

  it("uses mkdocs' prebuilt lunr index when there is one, and finds prefixes", async () => {
    const file = join(tmp, "prebuilt.json");
    writeFileSync(file, JSON.stringify({ config: {}, docs: PAGES, index: buildIndex().toJSON() }));
    const { frames } = await ask(lunrIndex({ file }), "escal");
    expect(frames[0]).toMatchObject({ title: "Paging", uri: "oncall/#paging" });
  });

  it("reads a bare lunr index with its documents, and never parses a goal as lunr syntax", async () => {
    const file = join(tmp, "bare.json");
    writeFileSync(file, JSON.stringify(buildIndex().toJSON()));
    const plugin = lunrIndex({ file, documents: PAGES });
    expect((await ask(plugin, "pager rotation")).frames[0]?.title).toBe("Paging");
    for (const goal of ["title:deploy~2 +pager -x", "^^^ *:* ~", "   "]) {
      await expect(ask(plugin, goal)).resolves.toBeDefined();
    }
    await expect(
      providerOf(lunrIndex({ file }))
        .query(query("x"))
        .catch((error: Error) => error.message),
    ).resolves.toMatch(/no plugin is available/);
  });

  it("names a missing index by its absolute path: a relative one is relative to where the provider runs", async () => {
    const logged: string[] = [];
    const provider = defineProvider({
      name: "t",
      version: "1",
      dataFlow: { reads: true, writes: false, egress: false },
      plugins: [lunrIndex({ file: "no-such-site/search/search_index.json" })],
      logger: { error: (line) => logged.push(line), warn: () => {}, info: () => {}, debug: () => {} },
    });
    await expect(provider.query(query("deploy"))).rejects.toThrow(/no plugin is available/);
    expect(logged.join("\n")).toContain(
      `cannot read the search index at ${resolve("no-such-site/search/search_index.json")}: no such file`,
    );
  });

  it("turns mkdocs-material's HTML into text", () => {
    expect(
      htmlToText("<p>Run <code>acme&nbsp;rollback</code> &amp; wait&#33;</p><ul><li>one</li><li>two</li></ul>"),
    ).toBe("Run acme rollback & wait!\none\ntwo");
    expect(htmlToText("a < b and c > d")).toBe("a < b and c > d");
    expect(htmlToText("&#xFFFFFFF; kept")).toBe("&#xFFFFFFF; kept");
  });
});

describe("httpSearch: a real HTTP endpoint on loopback", () => {
  let server: Server;
  let base: string;
  const seen: URL[] = [];
  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      seen.push(url);
      const send = (status: number, body: string, headers: Record<string, string> = {}) => {
        response.writeHead(status, { "content-type": "application/json", ...headers });
        response.end(body);
      };
      if (url.pathname === "/slow") return void setTimeout(() => send(200, "[]"), 2_000);
      if (url.pathname === "/broken") return send(503, "{}");
      if (url.pathname === "/html") return send(200, "<html>");
      if (url.pathname === "/redirect") return send(302, "", { location: "http://127.0.0.2:9/elsewhere" });
      const words = (url.searchParams.get("q") ?? "").toLowerCase().split(/\W+/).filter(Boolean);
      const hits = PAGES.map((page, i) => ({
        _id: `page-${i}`,
        _score: words.filter((word) => page.text.toLowerCase().includes(word)).length * 1.5,
        _source: { title: page.title, body: page.text, url: `https://handbook.acme.test/${page.location}` },
      }))
        .filter((hit) => hit._score > 0)
        .sort((a, b) => b._score - a._score);
      send(200, JSON.stringify({ took: 1, hits: { total: hits.length, hits } }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const elastic = (path = "/docs/_search", timeoutMs?: number) =>
    httpSearch({
      url: `${base}${path}`,
      hits: "hits.hits",
      fields: { content: "_source.body", title: "_source.title", uri: "_source.url", id: "_id", score: "_score" },
      timeoutMs,
    });

  it("maps hits by dotted paths, keeps the engine's order and declares no egress on loopback", async () => {
    const plugin = elastic();
    expect(plugin.egress).toBe(false);
    const { frames } = await ask(plugin, "roll back the deploy release");
    expect(seen.at(-1)?.searchParams.get("q")).toBe("roll back the deploy release");
    expect(frames[0]).toMatchObject({ id: "search-index:page-2", title: "Rolling back" });
    expect(frames[0]?.uri).toBe("https://handbook.acme.test/deploys/#rollback");
  });

  it("declares egress for an endpoint that is not on this machine", () => {
    expect(httpSearch({ url: "https://search.example.com/q", fields: { content: "text" } }).egress).toBe(true);
    expect(httpSearch({ url: "http://[::1]:9200/", fields: { content: "text" } }).egress).toBe(false);
    expect(httpSearch({ url: "http://localhost:9200/", fields: { content: "text" } }).egress).toBe(false);
    expect(isLoopback("127.8.0.1")).toBe(true);
    expect(isLoopback("127.example.com")).toBe(false);
    expect(isLoopback("10.0.0.1")).toBe(false);
    expect(pick({ a: [{ b: "x" }] }, "a.0.b")).toBe("x");
  });

  it("builds a POST request when asked to, and ranks by position without a score field", async () => {
    const plugin = httpSearch({
      url: base,
      request: (text) => ({ url: `/docs/_search?q=${encodeURIComponent(text)}`, method: "GET" }),
      hits: "hits.hits",
      fields: { content: "_source.body" },
    });
    const { frames } = await ask(plugin, "pager escalate weekly");
    expect(frames[0]?.content).toBe(PAGES[3]?.text);
    expect(frames[0]?.score).toBe(1);
  });

  it("answers a host with a clear error on a timeout, an HTTP error, non-JSON, a redirect, or no server", async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    for (const [plugin, message] of [
      [elastic("/slow", 200), "did not answer within 200 ms"],
      [elastic("/broken"), "answered HTTP 503"],
      [elastic("/html"), "not JSON"],
      [elastic("/redirect"), "could not reach"],
      [httpSearch({ url: `http://127.0.0.1:${closed}/`, fields: { content: "x" } }), "ECONNREFUSED"],
    ] as const) {
      await expect(providerOf(plugin).query(query("deploy"))).rejects.toThrow(message);
    }
  });
});
