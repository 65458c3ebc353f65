/**
 * Relevance of the search-index adapters on real indexes: a lunr index (mkdocs'
 * search_index.json), an SQLite FTS5 file and a real HTTP endpoint, each built from this
 * repository's docs (by heading) and from the templates' own sample pages.
 *
 * - Off-topic goals (20, generated) get no frames at all from any adapter.
 * - Labelled goals (bench/cases/*.jsonl): the gold document ships for at least 80%, at
 *   `ocp query`'s default budget (1024 tokens), the docs' long sections included.
 * - FTS5 ranks by its own bm25(): "how are token costs counted" finds the Token costs
 *   page first on a table of the docs by page, and real hits never show as score 0.00.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineProvider, type Plugin } from "ocp-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstGoldRank, readCases, staleGold } from "../../bench/labelled-cases.js";
import {
  type CorpusDoc,
  DOCS_BASE,
  docsByPage,
  docsBySection,
  offTopicGoals,
  SAMPLE_BASE,
  SAMPLE_LUNR_INDEX,
  samplePages,
  startEndpoint,
  subjectsMentioned,
  writeFts5,
  writeMkdocsIndex,
} from "../../bench/search-index-corpora.js";
import { httpSearch } from "../../templates/search-index/http/src/adapters/http-search.js";
import { lunrIndex } from "../../templates/search-index/lunr/src/adapters/lunr-index.js";
import { sqliteFts5 } from "../../templates/search-index/sqlite/src/adapters/sqlite-fts5.js";
import { assertReferenceValid } from "../test-support/reference-schema.js";

const REPO = new URL("../..", import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), "ocp-search-relevance-"));
const endpoints: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(endpoints.map((endpoint) => endpoint.close()));
  rmSync(tmp, { recursive: true, force: true });
});

/** `ocp query`'s defaults: every guarantee below is judged at them, on both corpora. */
const BUDGET = 1024;
const MAX_FRAMES = 8;

async function ask(plugin: Plugin, goal: string, maxTokens = BUDGET) {
  const provider = defineProvider({
    name: "relevance-test",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    plugins: [plugin],
  });
  try {
    const result = await provider.query({
      goal,
      kinds: [],
      anchors: [],
      max_tokens: maxTokens,
      max_frames: MAX_FRAMES,
    });
    assertReferenceValid({ type: "frames", result });
    return result.frames;
  } finally {
    await provider.close();
  }
}

type Adapter = "lunr" | "sqlite" | "http";
type Corpus = "docs" | "sample";

/** Each adapter's plugin over each corpus, on a real index built once. */
const plugins = new Map<string, () => Plugin>();
const corpusDocs: Record<Corpus, CorpusDoc[]> = { docs: docsBySection(), sample: samplePages() };

beforeAll(async () => {
  for (const corpus of ["docs", "sample"] as const) {
    const docs = corpusDocs[corpus];
    const lunrFile =
      corpus === "sample"
        ? SAMPLE_LUNR_INDEX
        : writeMkdocsIndex(docs, DOCS_BASE, join(tmp, `${corpus}-search_index.json`));
    const base = corpus === "sample" ? SAMPLE_BASE : DOCS_BASE;
    plugins.set(`lunr ${corpus}`, () => lunrIndex({ file: lunrFile, baseUrl: base }));
    const sqliteFile = writeFts5(docs, join(tmp, `${corpus}.sqlite`));
    plugins.set(`sqlite ${corpus}`, () =>
      sqliteFts5({ file: sqliteFile, table: "pages", columns: { content: "body", title: "title", uri: "url" } }),
    );
    const endpoint = await startEndpoint(docs);
    endpoints.push(endpoint);
    plugins.set(`http ${corpus}`, () =>
      httpSearch({
        url: endpoint.url,
        hits: "hits.hits",
        fields: { content: "_source.body", title: "_source.title", uri: "_source.url", id: "_id", score: "_score" },
      }),
    );
  }
});

const pluginOf = (adapter: Adapter, corpus: Corpus) => (plugins.get(`${adapter} ${corpus}`) as () => Plugin)();

const ADAPTERS: Adapter[] = ["lunr", "sqlite", "http"];
const CASES: Record<Corpus, URL> = {
  docs: new URL("../../bench/cases/docs.jsonl", import.meta.url),
  sample: new URL("../../bench/cases/acme-sample.jsonl", import.meta.url),
};

describe("the off-topic goals", () => {
  it("replace a subject a corpus mentions, and only such a subject", () => {
    const pizza = { title: "Labelled cases", body: '{"goal": "pizza recipe"}', url: `${DOCS_BASE}eval` };
    expect(subjectsMentioned([pizza])).toEqual(["a pizza recipe for a party"]);
    expect(offTopicGoals(20, [pizza]).join("\n")).not.toContain("pizza");
    expect(offTopicGoals(20, [pizza])).toHaveLength(20);
    // One word in common is no mention: the adapters must turn those goals away themselves.
    expect(subjectsMentioned([{ title: "Run", body: "git cat-file --batch; the recipe", url: DOCS_BASE }])).toEqual([]);
    // The corpora here mention none: a doc that starts to is a failure to look at, not a silent swap.
    expect(subjectsMentioned(corpusDocs.sample)).toEqual([]);
    expect(subjectsMentioned(corpusDocs.docs)).toEqual([]);
  });
});

/**
 * A case asks its adapter 20 or more goals in turn, each answered by a fresh plugin over a
 * real index: seconds on a quiet machine, and past vitest's 30 s default while the other
 * test files run beside it on a loaded one.
 */
const LOOP_TIMEOUT_MS = 5 * 60_000;

describe.each(ADAPTERS)("the %s adapter", (adapter) => {
  it.each(["docs", "sample"] as const)(
    "answers 20 off-topic goals over the %s corpus with no frames",
    async (corpus) => {
      const answered: string[] = [];
      for (const goal of offTopicGoals(20, corpusDocs[corpus])) {
        const frames = await ask(pluginOf(adapter, corpus), goal);
        if (frames.length > 0) answered.push(`"${goal}" → ${frames.map((f) => `${f.title} ${f.score}`).join(", ")}`);
      }
      expect(answered).toEqual([]);
    },
    LOOP_TIMEOUT_MS,
  );

  it.each(["docs", "sample"] as const)(
    "ships the gold document for at least 80 percent of the labelled goals over the %s corpus",
    async (corpus) => {
      const cases = readCases(CASES[corpus]);
      const judged = corpusDocs[corpus].map((doc) => ({ uri: doc.url, title: doc.title }));
      const stale = staleGold(cases, judged, REPO);
      const live = cases.filter((labelled) => labelled.gold.some((gold) => !stale.includes(gold)));
      const missed: string[] = [];
      for (const labelled of live) {
        const frames = await ask(pluginOf(adapter, corpus), labelled.goal, BUDGET);
        if (firstGoldRank(frames, labelled.gold, REPO) === undefined) {
          missed.push(`"${labelled.goal}" → ${frames.map((frame) => frame.title).join(" | ") || "nothing"}`);
        }
        // Real hits are never shown as 0.00: a frame that ships is worth a score a host can see.
        for (const frame of frames)
          expect(frame.score, `${labelled.goal}: ${frame.title}`).toBeGreaterThanOrEqual(0.01);
      }
      expect(live.length).toBeGreaterThan(0);
      expect(missed.length / live.length, missed.join("\n")).toBeLessThanOrEqual(0.2);
    },
    LOOP_TIMEOUT_MS,
  );
});

describe("the sqlite adapter on a table of this repository's docs, one row per page", () => {
  it("ranks the Token costs page first for 'how are token costs counted' and ships it", async () => {
    const file = writeFts5(docsByPage(), join(tmp, "pages.sqlite"));
    const plugin = sqliteFts5({ file, table: "pages", columns: { content: "body", title: "title", uri: "url" } });
    const frames = await ask(plugin, "how are token costs counted");
    expect(frames[0]).toMatchObject({ title: "Token costs", uri: `${DOCS_BASE}docs/tokens.md` });
    // Its words are in most pages, so FTS5 weighs them about 0; the score still says it is a hit.
    expect(frames[0]?.score).toBeGreaterThanOrEqual(0.01);
  });
});

describe("the lunr adapter on the template's sample index", () => {
  it("finds nothing for 'pizza recipe for a party' (no prefix wildcard on 'a' or 'for')", async () => {
    expect(await ask(pluginOf("lunr", "sample"), "pizza recipe for a party")).toEqual([]);
  });
});
