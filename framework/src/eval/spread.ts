/**
 * How widely a run's gold is spread over files. On a small repository most commits touch
 * the same few files: an answer that ignores the goal and always cites them scores well,
 * and a ratio over BM25 (which reads only the goal) can then come from knowing which files
 * change often rather than from reading the goal. The report shows the spread and says
 * when it is too narrow for the ratios to mean much.
 */

/**
 * A run's gold is narrow when one file is the gold of at least this share of the cases:
 * a goal-blind answer shipping that file first has acc@1 ≥ this share for free — a
 * quarter, the order of BM25's own MRR on the repositories measured (0.30–0.49).
 */
export const NARROW_TOP_SHARE = 0.25;

/** One gold file (or URI) and the number of cases whose gold it is in. */
export interface GoldCount {
  readonly gold: string;
  readonly cases: number;
}

/** The spread of a run's gold over files, and what a goal-blind answer would score on it. */
export interface GoldSpread {
  readonly cases: number;
  /** Distinct gold files (paths without a line range or fragment, or URIs). */
  readonly files: number;
  /** The commonest gold files, most cases first (at most 3). */
  readonly top: readonly GoldCount[];
  /**
   * What the answer "the `max_frames` commonest gold files, commonest first", the same for
   * every goal, would score: acc@1 (the top file's share), hit and file recall. Chosen
   * knowing the gold, so an upper bound of what a history's prior alone can earn.
   */
  readonly goalBlind: { readonly acc1: number; readonly hit: number; readonly recall: number };
  /** True when the ratios over BM25 need a caveat: see `reasons`. */
  readonly narrow: boolean;
  /** Why it is narrow, in words (empty when it is not). */
  readonly reasons: readonly string[];
}

/** The file a gold entry is about: the entry without its `#fragment` (`src/a.ts#L3-9` → `src/a.ts`). */
const goldFile = (entry: string) => {
  const hash = entry.indexOf("#");
  return hash < 0 ? entry : entry.slice(0, hash);
};

const percent = (share: number) => `${Math.round(share * 100)}%`;

/** The reasons a spread is narrow: one file in a quarter or more of the cases, or no more files than one answer cites. */
function narrowReasons(cases: number, files: number, top: GoldCount | undefined, maxFrames: number): string[] {
  const reasons: string[] = [];
  if (top !== undefined && cases > 0 && top.cases / cases >= NARROW_TOP_SHARE) {
    reasons.push(`one file, ${top.gold}, is gold in ${top.cases} of ${cases} cases (${percent(top.cases / cases)})`);
  }
  if (files > 0 && files <= maxFrames) {
    reasons.push(
      `${files} gold file${files === 1 ? "" : "s"} in all, no more than max_frames ${maxFrames}: one answer cites them all`,
    );
  }
  return reasons;
}

/** The spread of `cases`' gold (each a list of entries), judged at `maxFrames`. */
export function goldSpread(cases: readonly { readonly gold: readonly string[] }[], maxFrames: number): GoldSpread {
  const counts = new Map<string, number>();
  const golds = cases.map((kase) => new Set(kase.gold.map(goldFile)));
  for (const files of golds) for (const file of files) counts.set(file, (counts.get(file) ?? 0) + 1);
  // Most cases first; ties by name, so the report does not depend on the order cases came in.
  const ranked = [...counts]
    .map(([gold, n]) => ({ gold, cases: n }))
    .sort((a, b) => b.cases - a.cases || (a.gold < b.gold ? -1 : a.gold > b.gold ? 1 : 0));
  const blind = new Set(ranked.slice(0, maxFrames).map((entry) => entry.gold));
  const first = ranked[0];
  const n = cases.length;
  const share = (value: number) => (n === 0 ? 0 : value / n);
  const reasons = narrowReasons(n, counts.size, first, maxFrames);
  return {
    cases: n,
    files: counts.size,
    top: ranked.slice(0, 3),
    goalBlind: {
      acc1: share(first?.cases ?? 0),
      hit: share(golds.filter((files) => [...files].some((file) => blind.has(file))).length),
      recall: share(
        golds.reduce(
          (sum, files) => sum + (files.size === 0 ? 0 : [...files].filter((f) => blind.has(f)).length / files.size),
          0,
        ),
      ),
    },
    narrow: reasons.length > 0,
    reasons,
  };
}
