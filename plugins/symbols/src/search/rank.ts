/**
 * The score of a symbol for a query, in [0, 1]: deterministic, and the same formula
 * the README documents.
 *
 *     score = low + (high − low) × 0.999 × (0.45·exported + 0.25·coverage + 0.20·anchor + 0.10·quality)
 *
 * `[low, high)` is the band of the symbol's best match tier; the bands do not
 * overlap, so a better tier always wins: exact name > case-insensitive > prefix >
 * camel-hump/subword > fuzzy > anchor context only. Within a band:
 *
 * - exported: 1 when visible outside its module, else 0 — so exported ranks above private;
 * - coverage: the share of the query's terms that match the symbol at any tier;
 * - anchor: 1 for a symbol in a file the host has open (an anchor path, or a file
 *   named in the query), named by an anchor symbol, or a member of one; 0.5 for one in
 *   a directory beside an anchored file; else 0;
 * - quality: how good the match is within its tier (the share of the name a prefix
 *   covers, of the words camel humps cover, …), averaged with 1/0 for "is of a kind
 *   the query asks for" when it names kinds ("the Config class").
 *
 * Equal scores are ordered by frame id (path, then qualified name) by the packer.
 */
import { Tier } from "./match.js";

/** The score band of each tier, `[low, high]`. Context: no name match, but anchored. */
export const SCORE_BANDS: Readonly<Record<Tier | "context", readonly [number, number]>> = {
  [Tier.Exact]: [0.85, 1],
  [Tier.CaseInsensitive]: [0.7, 0.85],
  [Tier.Prefix]: [0.55, 0.7],
  [Tier.Subword]: [0.4, 0.55],
  [Tier.Fuzzy]: [0.2, 0.4],
  context: [0.05, 0.2],
  [Tier.None]: [0, 0],
};

/** The weights of the within-band factors; they sum to 1. */
export const SCORE_WEIGHTS = { exported: 0.45, coverage: 0.25, anchor: 0.2, quality: 0.1 } as const;

/** What a symbol's score is made of. */
export interface ScoreFactors {
  /** The best tier any term reached, or `context` for an anchored symbol no term matched. */
  readonly tier: Tier | "context";
  readonly exported: boolean;
  /** In [0, 1]. */
  readonly coverage: number;
  /** 0, 0.5 or 1. */
  readonly anchor: number;
  /** In [0, 1]. */
  readonly quality: number;
}

const clamp = (value: number) => Math.min(1, Math.max(0, value));

/** The score of a symbol; see the module comment for the formula. */
export function symbolScore(factors: ScoreFactors): number {
  const [low, high] = SCORE_BANDS[factors.tier];
  const within =
    SCORE_WEIGHTS.exported * (factors.exported ? 1 : 0) +
    SCORE_WEIGHTS.coverage * clamp(factors.coverage) +
    SCORE_WEIGHTS.anchor * clamp(factors.anchor) +
    SCORE_WEIGHTS.quality * clamp(factors.quality);
  // 0.999: the top of a band stays below the bottom of the next one.
  return low + (high - low) * 0.999 * within;
}
