/**
 * What one query ships, and at what size: the ranking of definitions by the goal's
 * words and by structure, then a plan that spends the budget.
 *
 * **Ranking.** Two kinds of goal meet here. A lookup names a symbol (`parseConfig`,
 * `Config.retry`, `gSF`): the match tiers of find.ts rank it, as they always have. A
 * goal in prose ("frames writer: bound what the memos keep alive") names few symbols
 * exactly; its files are ranked by BM25 over their words (prose.ts), then by
 * personalised PageRank over the reference graph seeded by those files and the
 * anchors (graph.ts), and within each file the definition whose own lines (and name)
 * hold most of the goal's weight is chosen. A definition whose name a goal's word
 * matches exactly lends its file that evidence too.
 *
 * **Diversity.** One frame per file first, in file order; second definitions of the
 * leading files only after every file has had its turn — so the budget cites as many
 * of the right files as it can, and one large file cannot crowd out the second.
 *
 * **Granularity.** The budget is shared out over the frames that can ship (at most
 * `max_frames`), in order, each taking what it needs of its share and leaving the rest
 * to those after it: a definition ships whole when it fits its share (and a small
 * member brings its whole container when that fits), else cut to its share — from its
 * doc comment when the doc and signature fit, from the signature when tight.
 */
import { posix } from "node:path";
import { textHashes } from "../extract/bag.js";
import type { AnchorHints, Ranked } from "./find.js";
import { type GraphCache, personalizedPageRank } from "./graph.js";
import { Tier } from "./match.js";
import type { NameEntry, NameTable } from "./name-table.js";
import { type ProseFields, type ProseTerm, rankFiles, termWeights } from "./prose.js";
import type { Source } from "./sources.js";

/** A planned frame: a symbol, its score, and the lines it ships. */
export interface PlannedFrame extends Ranked {
  /** The lines to ship, 1-based inclusive; undefined for the default (doc comment to end, capped). */
  readonly lines?: { readonly start: number; readonly end: number };
}

/** What a plan needs to know of the query. */
export interface AnswerLimits {
  readonly maxTokens: number;
  readonly maxFrames: number;
  /** Most lines in one frame. */
  readonly maxContentLines: number;
}

/** Tunable weights of the prose ranking. */
export const PROSE: Record<
  "files" | "seeds" | "pagerank" | "damping" | "anchor" | "exactName" | "secondFrame",
  number
> = {
  /** Files taken from the lexical ranking into PageRank and the plan. */
  files: 60,
  /** Of those, the ones that seed PageRank. */
  seeds: 30,
  /** How much PageRank (normalised to the best file) adds to the lexical score (normalised likewise). */
  pagerank: 0.15,
  /**
   * PageRank's damping: how far from the seeds the walk goes before jumping back. 0.7
   * ranks the tuned cases as 0.85 does (within one case) and settles in a third of the
   * steps, which on a large tree is most of a prose query's time.
   */
  damping: 0.7,
  /** What an anchored file adds to the lexical score, and its seed weight. */
  anchor: 0.5,
  /** What a file gains per goal word that exactly names one of its definitions, × that word's IDF share. */
  exactName: 0.5,
  /** Second frames from files score this share of the lowest first frame, times their file's standing. */
  secondFrame: 0.5,
};

/**
 * How a frame is sized to its share: characters per token assumed, measured under
 * o200k_base on this repository, hono, express and sphinx — TypeScript and JavaScript
 * 3.3–3.8, Python 4.4–4.7 (too few per token leaves budget unspent, too many cuts or
 * drops the last frames).
 */
export const PLAN = { charsPerToken: 3.6, pythonCharsPerToken: 4.2 };

/** A share smaller than this many tokens still ships the symbol's first line (the packer cuts the rest). */
const MIN_SHARE = 24;

/** The prose ranking: files, then the best definitions in each, best first. */
export interface ProseRanking {
  /** Frames in shipping order (scores descending). */
  readonly frames: Ranked[];
  /** How many files had any evidence at all. */
  readonly files: number;
  /** Files whose text no longer matches the index: re-index, then ask again. */
  readonly stale: string[];
}

/** Reads a file's text for ranking; null when it changed since it was indexed. */
export type SourceReader = (fileId: number) => Source | null;

/**
 * Ranks definitions for a prose goal: files by BM25, PageRank and exact-name evidence,
 * then definitions within each file by the goal's words in their lines. `names` are the
 * goal's identifiers as written (`fetch`, `Object.create`): a definition of exactly that
 * name is evidence for its file, the more so the fewer files define it.
 */
export function rankProse(options: {
  table: NameTable;
  terms: readonly ProseTerm[];
  names: readonly string[];
  anchors: AnchorHints;
  fields: ProseFields;
  graphs: GraphCache;
  read: SourceReader;
  /** The query's max_frames: only that many files need a definition chosen (and second ones only if fewer files). */
  maxFrames: number;
}): ProseRanking {
  const { table, terms, anchors } = options;
  const lexical = rankFiles(table, terms, options.fields);
  const weights = termWeights(table, terms);
  const weightTotal = weights.reduce((sum, weight) => sum + weight, 0) || 1;
  const termIndex = new Map(terms.map((term, i) => [term.hash, i]));

  // File evidence: lexical (normalised), anchors, exact names.
  const best = lexical[0]?.score ?? 0;
  const evidence = new Map<number, number>();
  const coverage = new Map<number, number>();
  for (const file of lexical.slice(0, PROSE.files)) {
    evidence.set(file.fileId, best > 0 ? file.score / best : 0);
    coverage.set(file.fileId, file.coverage);
  }
  const anchored = anchoredFiles(table, anchors);
  for (const [fileId, weight] of anchored) evidence.set(fileId, (evidence.get(fileId) ?? 0) + PROSE.anchor * weight);
  const exact = new Map<number, number>();
  for (const written of new Set(options.names)) {
    const definitions = table.named(written.slice(Math.max(written.lastIndexOf("."), written.lastIndexOf(":")) + 1));
    if (definitions.length === 0) continue;
    const share = exactShare(definitions[0] as NameEntry, termIndex, weights) / weightTotal;
    if (share <= 0) continue;
    const definers = new Set(definitions.map((entry) => entry.fileId));
    const value = (PROSE.exactName * share) / definers.size;
    for (const fileId of definers) exact.set(fileId, Math.max(exact.get(fileId) ?? 0, value));
  }
  for (const [fileId, value] of exact) evidence.set(fileId, (evidence.get(fileId) ?? 0) + value);

  // Structure: PageRank seeded by the leading files and the anchors.
  const graph = options.graphs.of(table);
  const seeds = new Map<number, number>();
  for (const file of lexical.slice(0, PROSE.seeds)) {
    const node = graph.nodes.get(file.fileId);
    if (node !== undefined && best > 0) seeds.set(node, file.score / best);
  }
  for (const [fileId, weight] of anchored) {
    const node = graph.nodes.get(fileId);
    if (node !== undefined) seeds.set(node, (seeds.get(node) ?? 0) + weight);
  }
  const rank = personalizedPageRank(graph, seeds, PROSE.damping);
  let rankTop = 0;
  for (const value of rank) rankTop = Math.max(rankTop, value);
  if (rankTop > 0) {
    // The files structure ranks best join in, whether or not their own words match.
    const byRank = [...rank.keys()].filter((node) => (rank[node] as number) > 0);
    byRank.sort((a, b) => (rank[b] as number) - (rank[a] as number) || a - b);
    for (const node of byRank.slice(0, PROSE.files)) {
      const fileId = graph.fileIds[node] as number;
      evidence.set(fileId, (evidence.get(fileId) ?? 0) + PROSE.pagerank * ((rank[node] as number) / rankTop));
    }
  }

  const files = [...evidence]
    .filter(([, value]) => value > 0)
    .map(([fileId, value]) => ({ fileId, value, path: table.file(fileId)?.path ?? "" }))
    .sort((a, b) => b.value - a.value || (a.path < b.path ? -1 : 1))
    .slice(0, PROSE.files);
  const top = files[0]?.value ?? 0;
  // How sure the answer is: how much of the goal's weight the best file holds at all.
  const confidence = Math.max(coverage.get(files[0]?.fileId ?? -1) ?? 0, anchored.size > 0 ? 0.5 : 0);

  const stale: string[] = [];
  const firsts: Ranked[] = [];
  const seconds: Ranked[] = [];
  for (const file of files) {
    if (firsts.length >= options.maxFrames) break;
    const row = table.file(file.fileId);
    if (row === undefined) continue;
    const source = options.read(file.fileId);
    if (source === null) {
      stale.push(row.path);
      continue;
    }
    // Second definitions ship only when fewer files than frames have one: then choose two.
    const chosen = chooseDefinitions(
      table.entriesOf(file.fileId),
      source,
      terms,
      weights,
      files.length < options.maxFrames ? 2 : 1,
    );
    const score = 0.05 + 0.94 * confidence * (0.25 + 0.75 * (top > 0 ? file.value / top : 0));
    const [first, second] = chosen;
    if (first !== undefined) firsts.push({ entry: first, path: row.path, score, tier: "context" });
    if (second !== undefined) {
      seconds.push({ entry: second, path: row.path, score: score * PROSE.secondFrame, tier: "context" });
    }
  }
  // Second frames rank below every first one: each file has its turn before any has two.
  const floor = Math.min(...firsts.map((frame) => frame.score));
  const ceiling = Math.max(...firsts.map((frame) => frame.score));
  const below = seconds.map((frame) => ({
    ...frame,
    score: floor * PROSE.secondFrame * (ceiling > 0 ? frame.score / (ceiling * PROSE.secondFrame) : 0),
  }));
  return { frames: [...firsts, ...below], files: evidence.size, stale };
}

/** The goal's IDF weight that a symbol's own name spells exactly (its words are goal words). */
function exactShare(entry: NameEntry, termIndex: ReadonlyMap<number, number>, weights: readonly number[]): number {
  let share = 0;
  textHashes(entry.name, (hash) => {
    const index = termIndex.get(hash);
    if (index !== undefined) share += weights[index] as number;
  });
  return share;
}

/** Anchored files (1) and files beside them or under an anchored directory (0.5), by file id. */
function anchoredFiles(table: NameTable, anchors: AnchorHints): Map<number, number> {
  const weights = new Map<number, number>();
  if (anchors.files.size + anchors.dirs.size + anchors.trees.size === 0) return weights;
  for (const file of table.files()) {
    if (anchors.files.has(file.path)) weights.set(file.id, 1);
    else if (anchors.dirs.has(posix.dirname(file.path))) weights.set(file.id, 0.5);
    else {
      for (const tree of anchors.trees) {
        if (file.path.startsWith(`${tree}/`)) {
          weights.set(file.id, 0.5);
          break;
        }
      }
    }
  }
  return weights;
}

/**
 * The `count` definitions of a file whose lines hold most of the goal's weight (BM25
 * over each definition's words, with its own name's words counted again), best first,
 * none overlapping one before it. A file with no word of the goal in any definition
 * offers its first top-level one.
 *
 * The file is read once: per line, how many words it has and how often each goal word
 * occurs, as running sums, so a definition's counts are two lookups per word however
 * deeply definitions nest.
 */
export function chooseDefinitions(
  entries: readonly NameEntry[],
  source: Source,
  terms: readonly ProseTerm[],
  weights: readonly number[],
  count: number,
): NameEntry[] {
  if (entries.length === 0) return [];
  const index = new Map(terms.map((term, i) => [term.hash, i]));
  const lineCount = source.starts.length - 1;
  const width = terms.length + 1; // goal words, then all words
  const sums = new Int32Array((lineCount + 1) * width);
  let line = 1;
  textHashes(source.text, (hash, at) => {
    while (line < lineCount && (source.starts[line] as number) <= at) line++;
    const base = line * width;
    sums[base + terms.length] = (sums[base + terms.length] as number) + 1;
    const term = index.get(hash);
    if (term !== undefined) sums[base + term] = (sums[base + term] as number) + 1;
  });
  for (let row = 1; row <= lineCount; row++) {
    for (let k = 0; k < width; k++)
      sums[row * width + k] = (sums[row * width + k] as number) + (sums[(row - 1) * width + k] as number);
  }
  const scored: { entry: NameEntry; score: number; length: number; counts: number[] }[] = [];
  let totalLength = 0;
  for (const entry of entries) {
    const start = Math.max(1, Math.min(entry.docStartLine ?? entry.startLine, entry.startLine));
    const end = Math.min(entry.endLine, lineCount);
    if (start > end) continue;
    const counts = terms.map((_, k) => (sums[end * width + k] as number) - (sums[(start - 1) * width + k] as number));
    const length = (sums[end * width + terms.length] as number) - (sums[(start - 1) * width + terms.length] as number);
    textHashes(entry.name, (hash) => {
      const at = index.get(hash);
      if (at !== undefined) counts[at] = (counts[at] as number) + 2;
    });
    scored.push({ entry, score: 0, length, counts });
    totalLength += length;
  }
  const mean = Math.max(1, totalLength / Math.max(1, scored.length));
  for (const item of scored) {
    const norm = 1.2 * (0.25 + (0.75 * item.length) / mean);
    let sum = 0;
    for (let i = 0; i < terms.length; i++) {
      const tf = item.counts[i] as number;
      if (tf > 0) sum += ((weights[i] as number) * tf * 2.2) / (tf + norm);
    }
    item.score = sum;
  }
  scored.sort((a, b) => b.score - a.score || a.entry.startLine - b.entry.startLine);
  const chosen: NameEntry[] = [];
  for (const item of scored) {
    if (chosen.length >= count) break;
    if (item.score <= 0 && chosen.length > 0) break;
    if (chosen.some((other) => overlaps(other, item.entry))) continue;
    chosen.push(item.entry);
  }
  if (chosen.length === 0) {
    const first = entries.find((entry) => entry.containerKey === undefined) ?? entries[0];
    if (first !== undefined) chosen.push(first);
  }
  return chosen;
}

function overlaps(a: NameEntry, b: NameEntry): boolean {
  return a.startLine <= b.endLine && b.startLine <= a.endLine;
}

/**
 * Shares the budget out over `frames` (in order, at most `maxFrames` of them): each
 * frame takes the lines that fit its share — whole, a small member's whole container,
 * or a cut from the doc comment or the signature — and leaves the rest of its share
 * to the frames after it. Frames the budget cannot reach are returned unplanned (the
 * packer may still fit them).
 */
export function planFrames(
  frames: readonly Ranked[],
  table: NameTable,
  read: SourceReader,
  limits: AnswerLimits,
): PlannedFrame[] {
  const planned: PlannedFrame[] = [];
  const count = Math.min(frames.length, limits.maxFrames);
  let remaining = limits.maxTokens;
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i] as Ranked;
    if (i >= count) {
      planned.push(frame);
      continue;
    }
    const share = Math.max(MIN_SHARE, remaining / (count - i));
    const source = read(frame.entry.fileId);
    if (source === null) {
      planned.push(frame);
      continue;
    }
    // A symbol the query names (exactly, or by a prefix) ships as itself; a goal's pick may bring its container.
    const named = frame.tier === Tier.Exact || frame.tier === Tier.CaseInsensitive || frame.tier === Tier.Prefix;
    const perToken =
      table.file(frame.entry.fileId)?.language === "python" ? PLAN.pythonCharsPerToken : PLAN.charsPerToken;
    const lines = fitLines(frame.entry, table, source, share * perToken, limits.maxContentLines, !named);
    planned.push({ ...frame, lines });
    remaining = Math.max(0, remaining - chars(source, lines.start, lines.end) / perToken);
  }
  return planned;
}

/** The length of lines `[start, end]` in UTF-16 units: over characters per token, close enough to size a share. */
function chars(source: Source, start: number, end: number): number {
  return (source.starts[end] as number) - (source.starts[start - 1] as number);
}

/** The lines of `entry` that best use a share of `share` characters; with `widen`, a small member may bring its container. */
export function fitLines(
  entry: NameEntry,
  table: NameTable,
  source: Source,
  share: number,
  maxLines: number,
  widen = true,
): { start: number; end: number } {
  const lineCount = source.starts.length - 1;
  const docStart = Math.max(1, Math.min(entry.docStartLine ?? entry.startLine, entry.startLine));
  const end = Math.min(entry.endLine, lineCount);
  const whole = { start: docStart, end: Math.min(end, docStart + maxLines - 1) };
  const cost = chars(source, whole.start, whole.end);
  if (cost <= share) {
    // A small member (a field, a one-line method) brings its container when all of it fits.
    if (widen && entry.container !== undefined && cost < share / 4) {
      const container = table.entriesOf(entry.fileId).find((other) => other.qualifiedName === entry.container);
      if (container !== undefined && container.startLine <= entry.startLine && container.endLine >= entry.endLine) {
        const from = Math.max(1, Math.min(container.docStartLine ?? container.startLine, container.startLine));
        const to = Math.min(container.endLine, lineCount);
        if (to - from + 1 <= maxLines && chars(source, from, to) <= share) return { start: from, end: to };
      }
    }
    return whole;
  }
  // Tight: from the doc comment if the doc and the declaration's first line fit, else from the declaration.
  const start = chars(source, docStart, Math.min(end, entry.startLine)) <= share ? docStart : entry.startLine;
  let last = start;
  while (last < end && last - start + 1 < maxLines && chars(source, start, last + 1) <= share) last++;
  return { start, end: last };
}
