/**
 * `ocp bench --tokenizers …`: what a provider's frames cost in each model family's
 * tokenizer, how far the usual estimators (and o200k used for another family) are
 * from each family's exact count, and how often an answer packed honestly in one
 * family's tokenizer overruns the same budget counted in another's.
 */
import type { Provider } from "../provider/provider.js";
import { createTokenCounter } from "../tokens/counter.js";
import { TokenizerMissingError } from "../tokens/errors.js";
import {
  installedTokenizers,
  isInstalled,
  resolveTokenizer,
  TOKENIZERS,
  type TokenizerName,
  tokenizerSpec,
} from "../tokens/registry.js";
import type { ContextQuery } from "../wire/schemas.js";
import { bytesOver4, type Estimate, type EstimateError, estimateError, wordsTimes13 } from "./bench-estimates.js";

/** One tokenizer's view of the frames. */
export interface FamilyCost {
  readonly tokenizer: TokenizerName;
  /** Σ exact count over the distinct frames. */
  readonly tokens: number;
  /** `tokens` over the provider's own tokenizer's Σ (1.15 = 15 % more tokens). */
  readonly ratio: number;
  /** First use: building the vocabulary, in milliseconds (0 when it was loaded already). */
  readonly loadMs: number;
  /** Each estimator against this tokenizer's exact count. */
  readonly estimates: readonly (EstimateError & { readonly name: string })[];
}

/** Answers packed honestly in `honestIn`, their frames counted in `countedIn`. */
export interface CrossBudget {
  readonly honestIn: TokenizerName;
  readonly countedIn: TokenizerName;
  /** Queries whose Σ count in `countedIn` exceeded the budget. */
  readonly queriesOver: number;
  /** The largest Σ over the budget, in tokens (0 if none was). */
  readonly worstOvershoot: number;
}

/** What `--tokenizers` found. */
export interface TokenizersReport {
  readonly tokenizers: readonly TokenizerName[];
  /** Distinct frames the goals found under a wide budget. */
  readonly frames: number;
  /** Queries packed per tokenizer (one per goal) for the cross-budget table. */
  readonly queries: number;
  readonly costs: readonly FamilyCost[];
  readonly cross: readonly CrossBudget[];
}

/**
 * The tokenizers `--tokenizers` names (wire names or aliases, comma-separated), or
 * `all`: every installed one but `canonical` (that one is the bytes/4 estimate).
 * Returns a message for an unknown name.
 */
export function parseTokenizerList(text: string): TokenizerName[] | string {
  if (text.trim() === "all") return installedTokenizers().filter((name) => name !== "canonical");
  const names: TokenizerName[] = [];
  for (const part of text.split(",")) {
    const name = part.trim();
    if (name === "") continue;
    const resolved = resolveTokenizer(name);
    if (resolved === undefined)
      return `unknown tokenizer '${name}' (expected all, or some of ${TOKENIZERS.join(", ")})`;
    if (!names.includes(resolved)) names.push(resolved);
  }
  return names.length === 0 ? "--tokenizers names none" : names;
}

const query = (goal: string, maxTokens: number, maxFrames: number): ContextQuery => ({
  goal,
  kinds: [],
  anchors: [],
  max_tokens: maxTokens,
  max_frames: maxFrames,
});

/**
 * Measures `tokenizers` on `provider` (which must offer them: an open family needs its
 * package installed) for `goals`: `frames` are the distinct frame contents the goals
 * found under a wide budget; the cross-budget table packs each goal at `budget` in each tokenizer.
 */
export async function runTokenizerBench(
  provider: Provider,
  options: {
    readonly tokenizers: readonly TokenizerName[];
    readonly goals: readonly string[];
    readonly frames: readonly string[];
    readonly budget: number;
    readonly maxFrames: number;
  },
): Promise<TokenizersReport> {
  const { tokenizers, goals, frames, budget, maxFrames } = options;
  for (const name of tokenizers) {
    const pkg = tokenizerSpec(name).package;
    if (pkg !== undefined && !isInstalled(name)) throw new TokenizerMissingError(name, pkg.name, pkg.version);
  }
  const counters = new Map<TokenizerName, (text: string) => number>();
  const loadMs = new Map<TokenizerName, number>();
  for (const name of tokenizers) {
    const counter = provider.counterFor(name);
    const started = performance.now();
    counter.preload();
    loadMs.set(name, performance.now() - started);
    counters.set(name, counter.count);
  }
  const own = provider.counterFor(provider.counter.tokenizer).count;
  const ownTotal = frames.reduce((total, text) => total + own(text), 0);
  const o200k = createTokenCounter({ tokenizer: "o200k_base" }).count;
  const cl100k = createTokenCounter({ tokenizer: "cl100k_base" }).count;

  const costs = tokenizers.map((name): FamilyCost => {
    const count = counters.get(name) as (text: string) => number;
    const exact = frames.map((content) => ({ content, exact: count(content) }));
    const tokens = exact.reduce((total, frame) => total + frame.exact, 0);
    const estimators: [string, Estimate][] = [
      ["bytes/4", bytesOver4],
      ["words×1.3", wordsTimes13],
    ];
    // A count in another tokenizer, as used in place of this one's: o200k (cl100k for o200k itself).
    estimators.push(name === "o200k_base" ? ["cl100k_base", cl100k] : ["o200k_base", o200k]);
    return {
      tokenizer: name,
      tokens,
      ratio: ownTotal === 0 ? 1 : tokens / ownTotal,
      loadMs: Math.round(loadMs.get(name) ?? 0),
      estimates: estimators.map(([label, estimate]) => ({ name: label, ...estimateError(exact, estimate) })),
    };
  });

  const cross: CrossBudget[] = [];
  for (const honestIn of tokenizers) {
    const answers: string[][] = [];
    for (const goal of goals) {
      const result = await provider.query(query(goal, budget, maxFrames), { tokenizer: honestIn });
      answers.push(result.frames.map((frame) => frame.content));
    }
    for (const countedIn of tokenizers) {
      if (countedIn === honestIn) continue;
      const count = counters.get(countedIn) as (text: string) => number;
      let queriesOver = 0;
      let worstOvershoot = 0;
      for (const contents of answers) {
        const total = contents.reduce((sum, content) => sum + count(content), 0);
        if (total > budget) {
          queriesOver++;
          worstOvershoot = Math.max(worstOvershoot, total - budget);
        }
      }
      cross.push({ honestIn, countedIn, queriesOver, worstOvershoot });
    }
  }
  return { tokenizers, frames: frames.length, queries: goals.length, costs, cross };
}

const percent = (fraction: number, signed = false) =>
  `${signed && fraction > 0 ? "+" : ""}${(fraction * 100).toFixed(1)}%`;

/** The tokenizers part of the report, as a person reads it. */
export function renderTokenizers(report: TokenizersReport, own: TokenizerName, budget: number): string[] {
  const lines = [
    `tokenizers: the ${report.frames} distinct frames (each goal's, under a wide budget) in each family's exact count`,
    `  ${"tokenizer".padEnd(13)}${"tokens".padStart(9)}${`vs ${own}`.padStart(16)}${"first load".padStart(12)}   estimate error (mean |err|, bias): bytes/4 · words×1.3 · another tokenizer`,
  ];
  for (const cost of report.costs) {
    const estimates = cost.estimates
      .map((estimate) => `${estimate.name} ${percent(estimate.meanError)} (${percent(estimate.bias, true)})`)
      .join(" · ");
    lines.push(
      `  ${cost.tokenizer.padEnd(13)}${String(cost.tokens).padStart(9)}${cost.ratio.toFixed(3).padStart(16)}${`${cost.loadMs} ms`.padStart(12)}   ${estimates}`,
    );
  }
  if (report.tokenizers.length > 1) {
    lines.push(
      "",
      `a budget of ${budget} honest in the row's tokenizer, counted in the column's: queries over budget of ${report.queries} (worst overshoot)`,
      `  ${"".padEnd(13)}${report.tokenizers.map((name) => name.padStart(16)).join("")}`,
    );
    for (const honestIn of report.tokenizers) {
      const cells = report.tokenizers.map((countedIn) => {
        if (countedIn === honestIn) return "—".padStart(16);
        const cell = report.cross.find((entry) => entry.honestIn === honestIn && entry.countedIn === countedIn);
        const text =
          cell === undefined ? "?" : `${cell.queriesOver}${cell.queriesOver > 0 ? ` (+${cell.worstOvershoot})` : ""}`;
        return text.padStart(16);
      });
      lines.push(`  ${honestIn.padEnd(13)}${cells.join("")}`);
    }
  }
  return lines;
}
