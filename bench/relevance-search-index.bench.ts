/**
 * Relevance of the search-index adapters (lunr, SQLite FTS5, HTTP) on real indexes of
 * two corpora: this repository's docs by heading (goals: bench/cases/docs.jsonl) and the
 * templates' sample pages (bench/cases/acme-sample.jsonl). Per adapter and corpus: the
 * share of labelled goals whose gold document ships and the MRR, for all cases, the tuned
 * part and the held-out part; and how many of 20 generated off-topic goals got any frame
 * at all (the target is none).
 *
 * `OCP_BENCH_SPLIT=tune` evaluates only the tuned part, for tuning without seeing the
 * held-out figures.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineProvider, type Plugin } from "ocp-provider";
import { httpSearch } from "../templates/search-index/http/src/adapters/http-search.js";
import { lunrIndex } from "../templates/search-index/lunr/src/adapters/lunr-index.js";
import { sqliteFts5 } from "../templates/search-index/sqlite/src/adapters/sqlite-fts5.js";
import { type BenchReport, type BenchRow, checkVerdict, ratioVerdict, type Verdict } from "./harness.js";
import {
  count,
  firstGoldRank,
  hitRate,
  mrr,
  readCases,
  type Split,
  staleGold,
  type Tally,
  tally,
} from "./labelled-cases.js";
import {
  type CorpusDoc,
  DOCS_BASE,
  docsBySection,
  offTopicGoals,
  SAMPLE_BASE,
  SAMPLE_LUNR_INDEX,
  samplePages,
  startEndpoint,
  subjectsMentioned,
  writeFts5,
  writeMkdocsIndex,
} from "./search-index-corpora.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));
/** `ocp query`'s defaults: the budget the target is judged at. */
const BUDGET = 1024;
const BUDGETS = [1024, 2048, 4096] as const;
const MAX_FRAMES = 8;
/** Each adapter ships the gold document for at least this share of its labelled goals. */
const TARGET_HIT_RATE = 0.8;

type Adapter = "lunr" | "sqlite" | "http";
type Corpus = "docs" | "sample";
const ADAPTERS: Adapter[] = ["lunr", "sqlite", "http"];
const CORPORA: Record<Corpus, { docs: () => CorpusDoc[]; cases: URL; base: string }> = {
  docs: { docs: docsBySection, cases: new URL("cases/docs.jsonl", import.meta.url), base: DOCS_BASE },
  sample: { docs: samplePages, cases: new URL("cases/acme-sample.jsonl", import.meta.url), base: SAMPLE_BASE },
};

async function framesFor(plugin: Plugin, goal: string, budget: number = BUDGET) {
  const provider = defineProvider({
    name: "relevance-bench",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    plugins: [plugin],
  });
  try {
    const result = await provider.query({ goal, kinds: [], anchors: [], max_tokens: budget, max_frames: MAX_FRAMES });
    return result.frames;
  } finally {
    await provider.close();
  }
}

export async function run(): Promise<BenchReport> {
  const only = process.env.OCP_BENCH_SPLIT as Split | undefined;
  const tmp = mkdtempSync(join(tmpdir(), "ocp-bench-search-index-"));
  const rows: BenchRow[] = [];
  const verdicts: Verdict[] = [];
  const notes: string[] = [];
  try {
    for (const corpus of ["docs", "sample"] as const) {
      const { docs: load, cases: file, base } = CORPORA[corpus];
      const docs = load();
      const offTopic = offTopicGoals(20, docs);
      const mentioned = subjectsMentioned(docs);
      if (mentioned.length > 0) {
        notes.push(`${corpus}: off-topic subjects the corpus mentions, replaced by stand-ins: ${mentioned.join("; ")}`);
      }
      const all = readCases(file).filter((labelled) => only === undefined || labelled.split === only);
      const stale = staleGold(
        all,
        docs.map((doc) => ({ uri: doc.url, title: doc.title })),
        REPO,
      );
      if (stale.length > 0) notes.push(`${corpus}: gold no longer in the corpus: ${stale.join(", ")}`);
      const cases = all.filter((labelled) => labelled.gold.some((gold) => !stale.includes(gold)));
      const lunrFile = corpus === "sample" ? SAMPLE_LUNR_INDEX : writeMkdocsIndex(docs, base, join(tmp, "index.json"));
      const sqliteFile = writeFts5(docs, join(tmp, `${corpus}.sqlite`));
      const endpoint = await startEndpoint(docs);
      const plugins: Record<Adapter, () => Plugin> = {
        lunr: () => lunrIndex({ file: lunrFile, baseUrl: base }),
        sqlite: () =>
          sqliteFts5({ file: sqliteFile, table: "pages", columns: { content: "body", title: "title", uri: "url" } }),
        http: () =>
          httpSearch({
            url: endpoint.url,
            hits: "hits.hits",
            fields: { content: "_source.body", title: "_source.title", uri: "_source.url", id: "_id", score: "_score" },
          }),
      };
      try {
        for (const adapter of ADAPTERS) {
          const byBudget = new Map<number, Record<"all" | Split, Tally>>();
          for (const budget of BUDGETS) {
            const parts: Record<"all" | Split, Tally> = { all: tally(), tune: tally(), "held-out": tally() };
            byBudget.set(budget, parts);
            for (const labelled of cases) {
              const frames = await framesFor(plugins[adapter](), labelled.goal, budget);
              const rank = firstGoldRank(frames, labelled.gold, REPO);
              count(parts.all, rank);
              count(parts[labelled.split], rank);
              if (rank === undefined && budget === BUDGET) {
                notes.push(`${adapter} ${corpus}: miss [${labelled.split}] "${labelled.goal}"`);
              }
            }
          }
          const parts = byBudget.get(BUDGET) as Record<"all" | Split, Tally>;
          let answered = 0;
          for (const goal of offTopic) {
            const frames = await framesFor(plugins[adapter](), goal);
            if (frames.length === 0) continue;
            answered++;
            notes.push(
              `${adapter} ${corpus}: off-topic "${goal}" got ${frames.map((frame) => frame.title).join(" | ")}`,
            );
          }
          for (const budget of BUDGETS) {
            const at = byBudget.get(budget) as Record<"all" | Split, Tally>;
            rows.push({
              adapter,
              corpus,
              budget,
              "hit: all": hitRate(at.all),
              "hit: tuned": hitRate(at.tune),
              "hit: held-out": hitRate(at["held-out"]),
              "MRR: all": mrr(at.all),
              "off-topic answered": budget === BUDGET ? `${answered}/${offTopic.length}` : "",
            });
          }
          const share = parts.all.cases === 0 ? 0 : parts.all.hits / parts.all.cases;
          verdicts.push(
            ratioVerdict(
              `${adapter} over the ${corpus} corpus ships the gold document for ≥ ${TARGET_HIT_RATE * 100}% of its labelled goals at ${BUDGET} tokens`,
              share / TARGET_HIT_RATE,
              1,
              hitRate(parts.all),
            ),
            checkVerdict(
              `${adapter} over the ${corpus} corpus answers no off-topic goal`,
              answered === 0,
              `${answered} of ${offTopic.length} got frames`,
            ),
          );
        }
      } finally {
        await endpoint.close();
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return {
    title: `relevance-search-index: the adapters on real indexes, ${MAX_FRAMES} frames`,
    rows,
    verdicts,
    notes: [
      "docs: this repository's README.md and docs/ by heading; sample: the templates' Acme pages. hit: the gold document shipped.",
      "off-topic: 20 generated goals no corpus covers (pizza recipes, the weather on mars, ...); any frame for one is a failure.",
      ...notes,
    ],
  };
}
