/**
 * Budgets carry over: the agent's `max_tokens` bounds the whole text it gets, wrapper
 * included, not just the frames' contents.
 *
 * The provider packs under the budget less what the wrapper is expected to cost
 * (learned from the previous answer); the answer is laid out and counted exactly.
 * - It fits: done, unless candidates were left out and a good part of the budget is
 *   unused; then the provider packs again with that room added.
 * - It does not fit: its longest prefix of frames that fits is an answer already (the
 *   least relevant frames go, and the closing line says so). If the room that prefix
 *   leaves could hold a cut of the next frame, the provider packs again under exactly
 *   that budget: its packer, not the bridge, chooses and cuts frames, so costs, ranges
 *   and digests stay the provider's own.
 * At most three queries; the answer holding the most content wins. An answer a plugin
 * could not complete (its index still being built) says so in its closing line, and is
 * not asked again for more room: what it misses is not what a bigger budget would add.
 */
import type { Provider, TokenizerName } from "ocp-provider";
import type { ContextFrame, ContextQueryResult } from "ocp-provider/wire";
import type { Closing, ContextRenderer, ContextRendering, Layout } from "./render.js";

/** A query as the bridge sends it: the protocol's fields and any extension fields. */
export interface BridgeQuery {
  goal: string;
  max_tokens: number;
  max_frames: number;
  [field: string]: unknown;
}

/** An answer whose whole rendered text fits the query's `max_tokens`. */
export interface BudgetedAnswer {
  /** The frames shown, with `truncated` and `dropped_estimate` as the text states them. */
  readonly result: ContextQueryResult;
  /** The text and its exact token count (≤ max_tokens). */
  readonly rendering: ContextRendering;
  /** How many times the provider was queried. */
  readonly queries: number;
}

/** Answers queries within budget for one provider; learns what its wrapper costs. */
export type BudgetedAnswerer = (query: BridgeQuery, signal?: AbortSignal) => Promise<BudgetedAnswer>;

const MAX_QUERIES = 3;

/**
 * Room worth one more query: a twentieth of the budget, at least 48 tokens. Less is what
 * cutting at whole lines and the boundary's own token count leave anyway; asking again
 * for it would double the provider's work on most calls for a percent or two of the budget.
 */
const worthRequery = (budget: number) => Math.max(48, Math.floor(budget / 20));

const contentTokens = (frames: readonly ContextFrame[], count = frames.length) => {
  let sum = 0;
  for (let index = 0; index < count; index++) sum += (frames[index] as ContextFrame).token_cost;
  return sum;
};

const closingOf = (result: ContextQueryResult, maxTokens: number, incomplete: readonly string[]): Closing => ({
  truncated: result.truncated,
  dropped: result.dropped_estimate,
  maxTokens,
  incomplete,
});

/** The first `kept` frames of an answer, the rest counted as dropped. */
function prefixClosing(
  result: ContextQueryResult,
  kept: number,
  maxTokens: number,
  incomplete: readonly string[],
): Closing {
  const dropped = Math.min((result.dropped_estimate ?? 0) + (result.frames.length - kept), 4_294_967_295);
  return { truncated: true, dropped, maxTokens, incomplete };
}

interface Candidate {
  readonly result: ContextQueryResult;
  readonly layout: Layout;
  readonly shown: number;
  readonly closing: Closing;
  readonly content: number;
}

/** Creates the answerer; `renderer` must count in `tokenizer`, the one the provider's answers are costed in. */
export function createBudgetedAnswerer(
  provider: Provider,
  renderer: ContextRenderer,
  tokenizer: TokenizerName = provider.counter.tokenizer,
): BudgetedAnswerer {
  const queryOptions = (signal: AbortSignal | undefined) => ({ signal, tokenizer });
  // Learned from the last answer: the wrapper's mean cost per frame (rounded up once, on the total: rounded per
  // frame it reserved up to a token per frame too many), and how many frames per token of budget it held. At
  // first, about what a marker line with its citation costs.
  let perFrameCost = 16;
  let framesPerToken = 1 / 320;
  let fixedCost: number | undefined;

  return async (query, signal) => {
    const budget = query.max_tokens;
    fixedCost ??= renderer.layout([]).count(0, { truncated: true, dropped: 999_999, maxTokens: budget });
    const expectedFrames = Math.min(query.max_frames, Math.max(1, Math.round(budget * framesPerToken)));
    let queryBudget = Math.max(0, budget - fixedCost - Math.ceil(perFrameCost * expectedFrames));
    let best: Candidate | undefined;
    const consider = (candidate: Candidate) => {
      if (best === undefined || candidate.content > best.content) best = candidate;
    };
    let queries = 0;
    while (queries < MAX_QUERIES) {
      queries++;
      const incomplete: string[] = [];
      const result = await provider.query(
        { ...query, max_tokens: queryBudget },
        { ...queryOptions(signal), incomplete },
      );
      const layout = renderer.layout(result.frames, incomplete);
      const all = result.frames.length;
      const closing = closingOf(result, budget, incomplete);
      const tokens = layout.count(all, closing);
      if (tokens <= budget) {
        consider({ result, layout, shown: all, closing, content: contentTokens(result.frames) });
        const room = budget - tokens;
        // Only partial (nothing left out for the budget): more room would not bring what is missing.
        const onlyPartial = incomplete.length > 0 && (result.dropped_estimate ?? 0) === 0;
        if (!result.truncated || onlyPartial || room < worthRequery(budget)) break;
        queryBudget += room;
        continue;
      }
      // Too long: the longest prefix that fits is an answer; the room it leaves may hold a cut of the next frame.
      const prefix = (kept: number) => prefixClosing(result, kept, budget, incomplete);
      let kept = all - 1;
      while (kept > 0 && layout.count(kept, prefix(kept)) > budget) kept--;
      const keptTokens = layout.count(kept, prefix(kept));
      if (keptTokens > budget)
        throw new Error(`the empty rendering costs ${keptTokens} tokens, over max_tokens ${budget}`);
      const content = contentTokens(result.frames, kept);
      consider({ result, layout, shown: kept, closing: prefix(kept), content });
      const next = result.frames[kept] as ContextFrame;
      const nextWrapper = layout.count(kept + 1, closing) - layout.count(kept, closing) - next.token_cost;
      const spare = budget - keptTokens - Math.max(0, nextWrapper);
      if (spare < worthRequery(budget)) break;
      queryBudget = content + spare;
    }
    const chosen = best as Candidate;
    const rendering = chosen.layout.finish(chosen.shown, chosen.closing);
    fixedCost = chosen.layout.count(0, chosen.closing);
    if (chosen.shown > 0) {
      perFrameCost = Math.max(1, (rendering.tokens - fixedCost - chosen.content) / chosen.shown);
      framesPerToken = chosen.shown / budget;
    }
    const result: ContextQueryResult =
      chosen.shown === chosen.result.frames.length
        ? chosen.result
        : {
            frames: chosen.result.frames.slice(0, chosen.shown),
            truncated: true,
            dropped_estimate: chosen.closing.dropped,
          };
    return { result, rendering, queries };
  };
}
