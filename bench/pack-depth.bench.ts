/**
 * Depth against knapsack: how good is the packer's greedy rule (docs/packing.md) on a
 * stated utility, against the exact optimum of that utility (a multiple-choice knapsack
 * solved by dynamic programming), the classic greedy knapsack, and breadth first (the
 * packer when candidates offer no views).
 *
 * Generated candidate sets: 40 regions, each in a file of its own (so no overlaps), with
 * a 7-line window around a match, the enclosing block, a larger enclosing definition and
 * the whole file when it has at most 400 lines, plus the one-line pointer at the match;
 * every cost is counted exactly (o200k_base). Scores come in three shapes: flat, gradual
 * (as today's plugins), and one region clearly above the rest.
 *
 * Two utilities, each an expectation over which region the host needs, with the packer's
 * own belief (p ∝ 2^(score / 0.05)):
 * - log: Σ p · ln(1 + tokens / 32), the objective the packer climbs;
 * - lines: Σ p · (0.2 · [the region shipped] + 0.8 · P(the line to change is among those
 *   shipped)), that line lying a Laplace-distributed distance (scale 25 lines) from the
 *   match: file recall and hunk recall, as `ocp eval` weighs them, and no log in sight.
 */
import { type PackCandidate, type PackResolution, packFrames } from "ocp-provider/pack";
import { createTokenCounter, type TokenCounter } from "ocp-provider/tokens";
import { documents } from "./corpus.js";
import { type BenchReport, type BenchRow, checkVerdict, seededRandom, type Verdict } from "./harness.js";

const REGIONS = 40;
const MAX_FRAMES = 20;
const BUDGETS = [1024, 2048, 4096, 8192] as const;
const SETS = 12;
const STEP = 0.05;
const TAU = 32;
const HUNK_SCALE = 25;
const FILE_WEIGHT = 0.2;
const SHAPES = ["flat", "gradual", "peaked"] as const;
type Shape = (typeof SHAPES)[number];

/** One way a region can ship: its lines and their exact cost. */
interface Option {
  readonly start: number;
  readonly end: number;
  readonly tokens: number;
}

interface Region {
  readonly candidate: PackCandidate;
  readonly lines: number;
  readonly match: number;
  readonly p: number;
  /** Pointer, window, then each view: what a knapsack may choose from (plus nothing). */
  readonly options: readonly Option[];
}

function regionSet(seed: number, shape: Shape, counter: TokenCounter): Region[] {
  const random = seededRandom(seed);
  const files = documents(REGIONS, 0, seed).map((_, i) => {
    const lines = 30 + Math.floor(random() ** 2 * 600);
    return documents(1, lines * 40, seed * 100 + i)[0] as string;
  });
  const top = shape === "peaked" ? 0.6 + random() * 0.3 : 0.5;
  const scores = files.map((_, i) => {
    const noise = (random() - 0.5) * 0.02;
    if (shape === "flat") return 0.5 - 0.002 * i + noise;
    if (shape === "gradual") return 0.45 - 0.012 * i + noise;
    return i === 0 ? top : 0.4 - 0.01 * i + noise;
  });
  const weights = scores.map((score) => 2 ** ((score - (scores[0] as number)) / STEP));
  const total = weights.reduce((a, b) => a + b, 0);
  return files.map((text, i) => {
    const all = text.split(/(?<=\n)/);
    const slice = (start: number, end: number) => all.slice(start - 1, end).join("");
    const lines = all.length;
    const clamp = (line: number) => Math.max(1, Math.min(lines, line));
    const match = clamp(1 + Math.floor(random() * lines));
    const ranges = [
      [match, match],
      [clamp(match - 3), clamp(match + 3)],
      [clamp(match - 5 - Math.floor(random() * 25)), clamp(match + 5 + Math.floor(random() * 25))],
      [clamp(match - 20 - Math.floor(random() * 60)), clamp(match + 20 + Math.floor(random() * 60))],
      ...(lines <= 400 ? [[1, lines]] : []),
    ].filter(([start, end], k, list) => k < 2 || start !== list[k - 1]?.[0] || end !== list[k - 1]?.[1]);
    const options = ranges.map(([start, end]) => ({
      start: start as number,
      end: end as number,
      tokens: counter.count(slice(start as number, end as number)),
    }));
    const uri = `file:///set/${seed}/${i}.ts`;
    const [pointer, window, ...views] = options as [Option, Option, ...Option[]];
    const resolutions: PackResolution[] = views.map((view) => ({
      id: `${uri}#L${view.start}-${view.end}`,
      content: slice(view.start, view.end),
      range: { start: view.start, end: view.end },
      score: scores[i] as number,
    }));
    return {
      candidate: {
        id: `r${String(i).padStart(2, "0")}`,
        kind: "snippet",
        content: slice(window.start, window.end),
        score: scores[i] as number,
        uri,
        range: { start: window.start, end: window.end },
        pointerLine: pointer.start,
        resolutions,
      },
      lines,
      match,
      p: (weights[i] as number) / total,
      options,
    };
  });
}

/** P(the line to change lies in start..end), that line at a Laplace distance from the match, within the file. */
function coverage(region: Region, start: number, end: number): number {
  const cdf = (x: number) => (x < 0 ? 0.5 * Math.exp(x / HUNK_SCALE) : 1 - 0.5 * Math.exp(-x / HUNK_SCALE));
  const mass = (a: number, b: number) => cdf(b + 0.5 - region.match) - cdf(a - 0.5 - region.match);
  return mass(start, end) / mass(1, region.lines);
}

type Utility = (region: Region, option: Option) => number;
const logUtility: Utility = (region, option) => region.p * Math.log(1 + option.tokens / TAU);
const linesUtility: Utility = (region, option) =>
  region.p * (FILE_WEIGHT + (1 - FILE_WEIGHT) * coverage(region, option.start, option.end));

/** What shipped of each region (undefined: nothing), read back from a packing. */
type Plan = (Option | undefined)[];

function planOf(candidates: readonly PackCandidate[], result: ReturnType<typeof packFrames<PackCandidate>>): Plan {
  const plan: Plan = candidates.map(() => undefined);
  for (const frame of result.frames) {
    const at = candidates.indexOf(frame.candidate);
    const range = frame.range ??
      (frame.keptLines !== undefined
        ? {
            start: frame.candidate.range?.start as number,
            end: (frame.candidate.range?.start as number) + frame.keptLines - 1,
          }
        : frame.candidate.range) ?? { start: 0, end: -1 };
    plan[at] = { start: range.start, end: range.end, tokens: frame.tokenCost };
  }
  return plan;
}

const value = (regions: readonly Region[], plan: Plan, utility: Utility) =>
  plan.reduce((sum, option, i) => sum + (option === undefined ? 0 : utility(regions[i] as Region, option)), 0);

/** The exact optimum: a multiple-choice knapsack over (tokens, frames), by dynamic programming. */
function knapsack(regions: readonly Region[], budget: number, utility: Utility): Plan {
  const width = (budget + 1) * (MAX_FRAMES + 1);
  const layers: Int8Array[] = [];
  let best = new Float64Array(width).fill(Number.NEGATIVE_INFINITY);
  best[0] = 0;
  for (const region of regions) {
    const next = new Float64Array(best);
    const choice = new Int8Array(width).fill(-1);
    region.options.forEach((option, k) => {
      const gain = utility(region, option);
      for (let t = budget; t >= option.tokens; t--) {
        for (let f = MAX_FRAMES; f >= 1; f--) {
          const from = best[(t - option.tokens) * (MAX_FRAMES + 1) + f - 1] as number;
          const at = t * (MAX_FRAMES + 1) + f;
          if (from + gain > (next[at] as number)) {
            next[at] = from + gain;
            choice[at] = k;
          }
        }
      }
    });
    layers.push(choice);
    best = next;
  }
  let at = 0;
  for (let i = 1; i < width; i++) if ((best[i] as number) > (best[at] as number)) at = i;
  const plan: Plan = regions.map(() => undefined);
  for (let r = regions.length - 1; r >= 0; r--) {
    const k = (layers[r] as Int8Array)[at] as number;
    if (k === -1) continue;
    const option = (regions[r] as Region).options[k] as Option;
    plan[r] = option;
    at -= option.tokens * (MAX_FRAMES + 1) + 1;
  }
  return plan;
}

/** The greedy knapsack: repeatedly the upgrade of best value per token that still fits. */
function greedy(regions: readonly Region[], budget: number, utility: Utility): Plan {
  const plan: Plan = regions.map(() => undefined);
  let left = budget;
  let frames = 0;
  for (;;) {
    let pick: { r: number; option: Option; ratio: number } | undefined;
    regions.forEach((region, r) => {
      const current = plan[r];
      const have = current === undefined ? 0 : utility(region, current);
      for (const option of region.options) {
        const extra = option.tokens - (current?.tokens ?? 0);
        if (extra <= 0 || extra > left || (current === undefined && frames >= MAX_FRAMES)) continue;
        const ratio = (utility(region, option) - have) / extra;
        if (ratio > 0 && (pick === undefined || ratio > pick.ratio)) pick = { r, option, ratio };
      }
    });
    if (pick === undefined) return plan;
    left -= pick.option.tokens - (plan[pick.r]?.tokens ?? 0);
    if (plan[pick.r] === undefined) frames++;
    plan[pick.r] = pick.option;
  }
}

/** Lines of the top region (the best score; the first of equals) a plan ships, 0 when none. */
function topLines(regions: readonly Region[], plan: Plan): number {
  let top = 0;
  regions.forEach((region, i) => {
    if (region.candidate.score > (regions[top] as Region).candidate.score) top = i;
  });
  const option = plan[top];
  return option === undefined ? 0 : option.end - option.start + 1;
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
}

/** Packs generated candidate sets with packFrames, breadth first, the exact and the greedy knapsack. */
export async function run(): Promise<BenchReport> {
  const counter = createTokenCounter();
  counter.preload();
  const sets = Array.from({ length: SETS }, (_, k) => ({
    shape: SHAPES[k % SHAPES.length] as Shape,
    regions: regionSet(0x0de9_0000 + k, SHAPES[k % SHAPES.length] as Shape, counter),
  }));
  const rows: BenchRow[] = [];
  const verdicts: Verdict[] = [];
  let ruleMs = 0;
  let optimumMs = 0;
  let packs = 0;
  for (const budget of BUDGETS) {
    for (const [name, utility] of [
      ["log", logUtility],
      ["lines", linesUtility],
    ] as const) {
      const share: number[] = [];
      const breadthShare: number[] = [];
      const greedyShare: number[] = [];
      const greedyLogShare: number[] = [];
      const byShape: Record<Shape, number[]> = { flat: [], gradual: [], peaked: [] };
      const spent: number[] = [];
      const pointerShare: number[] = [];
      const frames: number[] = [];
      for (const { regions, shape } of sets) {
        const candidates = regions.map((region) => region.candidate);
        const plain = candidates.map(({ resolutions: _views, pointerLine: _line, ...candidate }) => candidate);
        const limits = { maxTokens: budget, maxFrames: MAX_FRAMES, counter };
        const began = performance.now();
        const packed = packFrames(candidates, limits);
        ruleMs += performance.now() - began;
        packs++;
        const started = performance.now();
        const optimum = value(regions, knapsack(regions, budget, utility), utility);
        optimumMs += performance.now() - started;
        const ours = value(regions, planOf(candidates, packed), utility) / optimum;
        share.push(ours);
        byShape[shape].push(ours);
        greedyLogShare.push(value(regions, greedy(regions, budget, logUtility), utility) / optimum);
        breadthShare.push(value(regions, planOf(plain, packFrames(plain, limits)), utility) / optimum);
        greedyShare.push(value(regions, greedy(regions, budget, utility), utility) / optimum);
        spent.push(packed.totalTokens / budget);
        const pointerTokens = packed.frames.reduce((sum, frame) => sum + (frame.pointer ? frame.tokenCost : 0), 0);
        pointerShare.push(pointerTokens / budget);
        frames.push(packed.frames.length);
      }
      rows.push({
        budget,
        utility: name,
        packFrames: `${(100 * mean(share)).toFixed(1)}% (min ${(100 * Math.min(...share)).toFixed(1)}%)`,
        flat: `${(100 * mean(byShape.flat)).toFixed(1)}%`,
        gradual: `${(100 * mean(byShape.gradual)).toFixed(1)}%`,
        peaked: `${(100 * mean(byShape.peaked)).toFixed(1)}%`,
        "greedy knapsack": `${(100 * mean(greedyShare)).toFixed(1)}%`,
        "greedy on log": `${(100 * mean(greedyLogShare)).toFixed(1)}%`,
        "breadth first": `${(100 * mean(breadthShare)).toFixed(1)}%`,
        "budget spent": `${(100 * mean(spent)).toFixed(0)}%`,
        "on pointers": `${(100 * mean(pointerShare)).toFixed(0)}%`,
        frames: mean(frames).toFixed(1),
      });
    }
  }

  // Monotone in the budget? The top region's lines, budget after budget, for the rule and the optimum.
  let ruleShrinks = 0;
  let optimumShrinks = 0;
  let greedyShrinks = 0;
  for (const { regions } of sets.slice(0, 12)) {
    let lastRule = 0;
    let lastOptimum = 0;
    let lastGreedy = 0;
    let ruleShrank = false;
    let optimumShrank = false;
    let greedyShrank = false;
    for (let budget = 512; budget <= 4096; budget += 64) {
      const candidates = regions.map((region) => region.candidate);
      const rule = topLines(
        regions,
        planOf(candidates, packFrames(candidates, { maxTokens: budget, maxFrames: MAX_FRAMES, counter })),
      );
      const optimum = topLines(regions, knapsack(regions, budget, linesUtility));
      const greedyLines = topLines(regions, greedy(regions, budget, logUtility));
      greedyShrank ||= greedyLines < lastGreedy;
      lastGreedy = greedyLines;
      ruleShrank ||= rule < lastRule;
      optimumShrank ||= optimum < lastOptimum;
      lastRule = rule;
      lastOptimum = optimum;
    }
    if (ruleShrank) ruleShrinks++;
    if (optimumShrank) optimumShrinks++;
    if (greedyShrank) greedyShrinks++;
  }

  verdicts.push(
    checkVerdict(
      "packFrames never ships fewer lines of the top region at a bigger budget (12 sets, 512 to 4096 by 64)",
      ruleShrinks === 0,
      `packFrames: ${ruleShrinks} of 12 sets; the exact optimum of 'lines': ${optimumShrinks} of 12; the greedy knapsack on 'log': ${greedyShrinks} of 12`,
    ),
  );
  return {
    title: `pack-depth: packFrames with views against the exact knapsack, ${SETS} generated sets of ${REGIONS} regions, maxFrames ${MAX_FRAMES}`,
    rows,
    verdicts,
    notes: [
      "Each cell: the utility reached, as a share of the exact optimum of that utility (mean over the sets; packFrames' worst in brackets; flat, gradual, peaked: its mean by shape).",
      "Greedy knapsack: the upgrade of best utility per token first, knowing the utility; greedy on log: the same on the log utility, judged on the row's (what a packer can do without a model of where the change lies).",
      `packFrames: with views (scoreStep ${STEP}). Breadth first: packFrames on the same candidates without views or pointer lines (today's packer).`,
      `Time: packFrames ${(ruleMs / packs).toFixed(2)} ms a packing; the exact knapsack ${(optimumMs / packs).toFixed(0)} ms (mean over every budget and both utilities).`,
      `Shapes: ${SHAPES.join(", ")}, ${SETS / SHAPES.length} sets each; utilities and the generator are described at the top of bench/pack-depth.bench.ts.`,
    ],
  };
}
