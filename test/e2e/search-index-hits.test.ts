/**
 * What the three search-index adapters do alike with an engine's hits (their shared
 * `hits.ts`, one file in the templates' layer search-index/common), on real indexes —
 * an FTS5 file, mkdocs' search_index.json, a loopback endpoint — of a few pages written here:
 *
 * - a long hit ships its passage holding the goal's words, not its first lines cut to
 *   fill the budget alone, so the next hit ships too;
 * - a hit holding one word of a two-word goal is not offered ("what cats like to eat"
 *   is not about `git cat-file`), one holding both is;
 * - however long the goal, the engine is asked about at most `MAX_GOAL_WORDS` of its words.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import lunr from "lunr";
import { defineProvider, type Plugin } from "ocp-provider";
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from "vitest";
import { type CorpusDoc, startEndpoint, writeFts5, writeMkdocsIndex } from "../../bench/search-index-corpora.js";
import {
  bestPassage,
  goalText,
  MAX_GOAL_CHARS,
  MAX_GOAL_WORDS,
  passages,
  wordsNeeded,
} from "../../templates/search-index/common/src/adapters/hits.js";
import { goalWords as httpGoalWords, httpSearch } from "../../templates/search-index/http/src/adapters/http-search.js";
import { lunrIndex } from "../../templates/search-index/lunr/src/adapters/lunr-index.js";
import {
  sqliteFts5,
  goalWords as sqliteGoalWords,
} from "../../templates/search-index/sqlite/src/adapters/sqlite-fts5.js";
import { assertReferenceValid } from "../test-support/reference-schema.js";

const BASE = "https://handbook.acme.test/";
const tmp = mkdtempSync(join(tmpdir(), "ocp-search-hits-"));
const endpoints: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(endpoints.map((endpoint) => endpoint.close()));
  rmSync(tmp, { recursive: true, force: true });
});

/** The limit is said once, at the end of a long page about retrying with backoff. */
const LIMIT = "The backoff never grows past its limit of thirty seconds.\n";
const DOCS: CorpusDoc[] = [
  {
    title: "Retry backoff",
    body: `${Array.from(
      { length: 30 },
      (_, i) => `A retry follows a failed call (${i}); each retry waits with backoff, longer every retry.\n`,
    ).join("\n")}\n${LIMIT}`,
    url: `${BASE}retries/#backoff`,
  },
  {
    title: "Timeouts",
    body: "A call that takes too long is cut off; the retry backoff then starts. Every limit is in config.\n",
    url: `${BASE}retries/#timeouts`,
  },
  {
    title: "What a run does",
    body: "To find the files of a commit, a run reads them with git cat-file --batch, stored once.\n",
    url: `${BASE}eval/#run`,
  },
];

const plugins = new Map<string, () => Plugin>();
beforeAll(async () => {
  const lunrFile = writeMkdocsIndex(DOCS, BASE, join(tmp, "search_index.json"));
  plugins.set("lunr", () => lunrIndex({ file: lunrFile, baseUrl: BASE }));
  const sqliteFile = writeFts5(DOCS, join(tmp, "pages.sqlite"));
  plugins.set("sqlite", () =>
    sqliteFts5({ file: sqliteFile, table: "pages", columns: { content: "body", title: "title", uri: "url" } }),
  );
  const endpoint = await startEndpoint(DOCS);
  endpoints.push(endpoint);
  plugins.set("http", () =>
    httpSearch({
      url: endpoint.url,
      hits: "hits.hits",
      fields: { content: "_source.body", title: "_source.title", uri: "_source.url", id: "_id", score: "_score" },
    }),
  );
});

async function ask(adapter: string, goal: string, maxTokens: number) {
  const provider = defineProvider({
    name: "hits-test",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    plugins: [(plugins.get(adapter) as () => Plugin)()],
  });
  try {
    const result = await provider.query({ goal, kinds: [], anchors: [], max_tokens: maxTokens, max_frames: 8 });
    assertReferenceValid({ type: "frames", result });
    return result.frames;
  } finally {
    await provider.close();
  }
}

describe.each(["lunr", "sqlite", "http"])("the %s adapter", (adapter) => {
  it("ships a long hit's passage holding the goal's words, leaving room for the next hit", async () => {
    const frames = await ask(adapter, "retry backoff limit", 400);
    const long = frames.find((frame) => frame.title === "Retry backoff");
    // Cut by the packer, the long page was its first lines (no limit in them), filling the budget alone.
    expect(long?.content).toContain(LIMIT);
    expect(DOCS[0]?.body).toContain(long?.content);
    expect(frames.map((frame) => frame.title).sort()).toEqual(["Retry backoff", "Timeouts"]);
  });

  it("offers no hit holding one word of a two-word goal, and one holding both", async () => {
    expect(await ask(adapter, "how do I find what cats like to eat", 1024)).toEqual([]);
    const frames = await ask(adapter, "find a file with git cat-file", 1024);
    expect(frames.map((frame) => frame.title)).toEqual(["What a run does"]);
  });
});

describe("hits.ts", () => {
  it("asks two words of any goal of two or more, 40% of a long one, none when the floor is off", () => {
    expect([1, 2, 3, 4, 5, 6, 10].map((words) => Math.ceil(wordsNeeded(words, 0.4)))).toEqual([1, 2, 2, 2, 2, 3, 4]);
    expect(wordsNeeded(5, 0)).toBe(0);
  });

  it("cuts a text into consecutive passages, each no longer than asked unless it is one line", () => {
    const text = fc.array(
      fc.oneof(
        fc.lorem({ maxCount: 40, mode: "sentences" }).map((line) => `${line}\n`),
        fc.constant("\n"),
        fc.array(fc.lorem({ maxCount: 4 }), { maxLength: 6 }).map((code) => `\`\`\`\n${code.join("\n\n")}\n\`\`\`\n`),
      ),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 20, max: 1500 }), (blocks, maxChars) => {
        const whole = blocks.join("");
        const found = passages(whole, maxChars);
        // In order, nothing but blank lines between them, nothing else lost.
        let rest = whole;
        for (const passage of found) {
          const at = rest.indexOf(passage);
          expect(at).toBeGreaterThanOrEqual(0);
          expect(rest.slice(0, at).trim()).toBe("");
          rest = rest.slice(at + passage.length);
          if (passage.replace(/\n$/, "").includes("\n")) expect(passage.length).toBeLessThanOrEqual(maxChars);
        }
        expect(rest.trim()).toBe("");
        // The best passage is one of them (or the whole text, when it is short enough)...
        const best = bestPassage(whole, ["lorem", "ipsum"], maxChars);
        expect(whole.length <= maxChars ? best.text === whole : found.includes(best.text)).toBe(true);
        expect(best.whole).toBe(best.text === whole);
        // ...and its lines are where it sits in the text: what its frame's citation names.
        expect(
          whole
            .split(/(?<=\n)/)
            .slice(best.lines.start - 1, best.lines.end)
            .join(""),
        ).toBe(best.text);
      }),
    );
  });
});

describe.each(["lunr", "sqlite", "http"])("the %s adapter given a goal of any length", (adapter) => {
  /** Calls that each ask the engine about words: lunr's query terms, SQLite statements run, requests sent. */
  function engineCalls(): { count(): number; sent(): string[]; restore(): void } {
    if (adapter === "lunr") {
      const terms = vi.spyOn(lunr.Query.prototype, "term");
      return { count: () => terms.mock.calls.length, sent: () => [], restore: () => terms.mockRestore() };
    }
    if (adapter === "sqlite") {
      const probe = new Database(":memory:");
      const statement = Object.getPrototypeOf(probe.prepare("SELECT 1")) as { all: (...args: unknown[]) => unknown };
      probe.close();
      const runs = vi.spyOn(statement, "all");
      // Runs given a MATCH query (setup's look at the table takes none).
      const count = () => runs.mock.calls.filter(([match]) => typeof match === "string").length;
      return { count, sent: () => [], restore: () => runs.mockRestore() };
    }
    const requests: MockInstance<typeof fetch> = vi.spyOn(globalThis, "fetch");
    const sent = () => requests.mock.calls.map(([url]) => new URL(String(url)).searchParams.get("q") ?? "");
    return { count: () => requests.mock.calls.length, sent, restore: () => requests.mockRestore() };
  }

  it("asks its engine about at most MAX_GOAL_WORDS words of a megabyte's goal, and answers one of the page's words", async () => {
    const calls = engineCalls();
    try {
      // A megabyte of distinct words: each used to be a lookup and a check against every hit.
      const distinct = Array.from({ length: 120_000 }, (_, i) => `w${i.toString(36)}`).join(" ");
      await ask(adapter, `retry backoff limit ${distinct}`, 1024);
      const perQuery = adapter === "lunr" ? 2 * MAX_GOAL_WORDS : adapter === "sqlite" ? MAX_GOAL_WORDS + 2 : 1;
      expect(calls.count()).toBeLessThanOrEqual(perQuery);
      for (const text of calls.sent()) expect(text.length).toBeLessThanOrEqual(MAX_GOAL_CHARS);
      // A megabyte of the page's own words is answered with the page.
      const frames = await ask(adapter, "retry backoff limit ".repeat(50_000), 1024);
      expect(frames.map((frame) => frame.title)).toContain("Retry backoff");
    } finally {
      calls.restore();
    }
  });
});

describe("what a search-index adapter reads of a goal", () => {
  const text = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 300 }),
    fc
      .array(fc.oneof(fc.stringMatching(/^[a-z0-9]{1,9}$/), fc.constantFrom("how", "the", "a", " ", "\n", ", ")), {
        maxLength: 6000,
        size: "max",
      })
      .map((words) => words.join(" ")),
  );

  it("reads at most MAX_GOAL_CHARS characters, cut between words, and all of a shorter goal", () => {
    fc.assert(
      fc.property(text, fc.string({ maxLength: 50 }), (goal, more) => {
        const read = goalText(goal);
        expect(goal.startsWith(read)).toBe(true);
        expect(read.length).toBeLessThanOrEqual(MAX_GOAL_CHARS);
        if (goal.length <= MAX_GOAL_CHARS) expect(read).toBe(goal);
        else expect(goalText(goal + more)).toBe(read); // nothing past the limit is looked at
      }),
    );
  });

  it("keeps at most MAX_GOAL_WORDS distinct words, the first written, as the adapters did for any goal under the cap", () => {
    // The FTS5 adapter's words before the cap was shared: every distinct word, stop words aside, first 32.
    const STOPPED = /^(how|the|a)$/;
    fc.assert(
      fc.property(text, (goal) => {
        for (const words of [sqliteGoalWords(goal), httpGoalWords(goal)]) {
          expect(words.length).toBeLessThanOrEqual(MAX_GOAL_WORDS);
          expect(new Set(words).size).toBe(words.length);
        }
        if (goal.length <= MAX_GOAL_CHARS) {
          const all = (goal.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter(
            (word) => !STOPPED.test(word) && sqliteGoalWords(word).length > 0,
          );
          expect(sqliteGoalWords(goal)).toEqual([...new Set(all)].slice(0, MAX_GOAL_WORDS));
        }
      }),
    );
  });
});
