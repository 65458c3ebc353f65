/**
 * Relevance of the docs example (`examples/docs-provider.ts`) on labelled goals
 * (`bench/cases/docs.jsonl`): does the gold section ship, and how high? Against plain
 * BM25 in the same run — minisearch with its defaults, no boosts, stop words or
 * stemming, over the very same sections — packed by the same framework under the same
 * budgets. Both run in this process, through `provider.query()`.
 *
 * Reported per budget for all cases, the tuned part and the held-out part (written
 * before any tuning, never tuned on). `OCP_BENCH_SPLIT=tune` evaluates only the tuned
 * part, for tuning without seeing the held-out figures.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import MiniSearch from "minisearch";
import { definePlugin, defineProvider, type Provider } from "ocp-provider";
import docsProvider, { markdownSections, type Section } from "../examples/docs-provider.js";
import { type BenchReport, type BenchRow, ratioVerdict, type Verdict } from "./harness.js";
import {
  count,
  firstGoldRank,
  hitRate,
  type LabelledCase,
  mrr,
  readCases,
  type Split,
  staleGold,
  type Tally,
  tally,
} from "./labelled-cases.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const CASES = new URL("cases/docs.jsonl", import.meta.url);
/** `ocp query`'s defaults: what "the default budget" means. */
const DEFAULT_BUDGET = 1024;
const BUDGETS = [1024, 2048, 4096] as const;
const MAX_FRAMES = 8;
/** The docs example ships the gold section for at least this share of its labelled goals at the default budget. */
const TARGET_HIT_RATE = 0.85;

/** The sections the example serves by default: README.md and docs/, split by its own splitter. */
function corpus(): (Section & { uri: string })[] {
  const docs = join(REPO, "docs");
  const files = [
    join(REPO, "README.md"),
    ...readdirSync(docs, { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".md"))
      .map((name) => join(docs, name))
      .sort(),
  ];
  return files.flatMap((file) => {
    const uri = pathToFileURL(file).href;
    return markdownSections(file, readFileSync(file, "utf8")).map((section) => ({ ...section, uri }));
  });
}

/** The baseline: textbook BM25 (minisearch, every default) over the same sections, scores mapped as any BM25's. */
function bm25Provider(sections: readonly (Section & { uri: string })[]): Provider {
  const index = new MiniSearch<{ id: number; heading: string; text: string }>({ fields: ["heading", "text"] });
  index.addAll(sections.map((section, id) => ({ id, heading: section.heading, text: section.text })));
  return defineProvider({
    name: "bm25-baseline",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    plugins: [
      definePlugin({
        name: "bm25",
        kinds: ["doc"],
        scores: "unbounded",
        search: ({ goal }) =>
          index.search(goal).map((hit) => {
            const section = sections[hit.id as number] as Section & { uri: string };
            return {
              content: section.text,
              relevance: hit.score,
              title: section.heading,
              uri: section.uri,
              range: { start: section.start, end: section.end },
            };
          }),
      }),
    ],
    root: REPO,
  });
}

type Side = "ours" | "bm25";
type Part = "all" | Split;

export async function run(): Promise<BenchReport> {
  const only = process.env.OCP_BENCH_SPLIT as Split | undefined;
  const sections = corpus();
  const judged = sections.map((section) => ({ uri: section.uri, title: section.heading }));
  const all = readCases(CASES).filter((labelled) => only === undefined || labelled.split === only);
  const stale = staleGold(all, judged, REPO);
  // A case is judged when at least one of its gold sections still exists.
  const cases = all.filter((labelled) => labelled.gold.some((gold) => !stale.includes(gold)));
  const providers: Record<Side, Provider> = { ours: docsProvider as Provider, bm25: bm25Provider(sections) };
  const tallies = new Map<string, Tally>();
  const at = (side: Side, budget: number, part: Part) => {
    const key = `${side} ${budget} ${part}`;
    const found = tallies.get(key) ?? tally();
    tallies.set(key, found);
    return found;
  };
  const misses: string[] = [];
  try {
    for (const budget of BUDGETS) {
      for (const labelled of cases) {
        for (const side of ["ours", "bm25"] as const) {
          const { frames } = await providers[side].query({
            goal: labelled.goal,
            kinds: [],
            anchors: [],
            max_tokens: budget,
            max_frames: MAX_FRAMES,
          });
          const rank = firstGoldRank(frames, labelled.gold, REPO);
          count(at(side, budget, "all"), rank);
          count(at(side, budget, labelled.split), rank);
          if (side === "ours" && budget === DEFAULT_BUDGET && rank === undefined)
            misses.push(missLine(labelled, frames));
        }
      }
    }
  } finally {
    await Promise.all(Object.values(providers).map((provider) => provider.close()));
  }

  const parts: Part[] = only === undefined ? ["all", "tune", "held-out"] : [only];
  const rows: BenchRow[] = [];
  for (const budget of BUDGETS) {
    for (const part of parts) {
      const ours = at("ours", budget, part);
      const bm25 = at("bm25", budget, part);
      rows.push({
        budget,
        cases: part,
        "ours: hit": hitRate(ours),
        "BM25: hit": hitRate(bm25),
        "ours: MRR": mrr(ours),
        "BM25: MRR": mrr(bm25),
      });
    }
  }
  const headline = at("ours", DEFAULT_BUDGET, "all");
  const baseline = at("bm25", DEFAULT_BUDGET, "all");
  const share = headline.cases === 0 ? 0 : headline.hits / headline.cases;
  const verdicts: Verdict[] = [
    ratioVerdict(
      `docs example ships the gold section for ≥ ${TARGET_HIT_RATE * 100}% of its labelled goals at ${DEFAULT_BUDGET} tokens`,
      share / TARGET_HIT_RATE,
      1,
      `${hitRate(headline)} (held-out ${hitRate(at("ours", DEFAULT_BUDGET, "held-out"))})`,
    ),
    ratioVerdict(
      `docs example's MRR at least plain BM25's at ${DEFAULT_BUDGET} tokens`,
      baseline.reciprocalRanks === 0 ? 1 : headline.reciprocalRanks / baseline.reciprocalRanks,
      1,
      `ours ${mrr(headline)}, BM25 ${mrr(baseline)}`,
    ),
  ];
  return {
    title: `relevance-docs: the docs example vs plain BM25 on ${cases.length} labelled goals (${MAX_FRAMES} frames)`,
    rows,
    verdicts,
    notes: [
      "hit: the gold section shipped (whole or cut to fit); MRR: 1 / rank of the first gold frame among those shipped, 0 when none.",
      `${DEFAULT_BUDGET} tokens and ${MAX_FRAMES} frames are \`ocp query\`'s defaults. Held-out cases were written before tuning and never tuned on.`,
      ...(stale.length === 0
        ? []
        : [
            `gold sections no longer in the docs (cases with no other gold are left out): ${stale.join(", ")}; ${all.length - cases.length} case(s) left out`,
          ]),
      ...misses.map((miss) => `miss at ${DEFAULT_BUDGET}: ${miss}`),
    ],
  };
}

function missLine(labelled: LabelledCase, frames: readonly { title: string }[]): string {
  const shipped = frames.map((frame) => frame.title).join(" | ");
  return `[${labelled.split}] "${labelled.goal}" wanted ${labelled.gold.join(" or ")}; shipped ${shipped || "nothing"}`;
}
