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
import type { RankedDefinition } from "./candidates.js";
import type { AnchorHints } from "./find.js";
import { type GraphCache, personalizedPageRank } from "./graph.js";
import type { NameEntry, NameTable } from "./name-table.js";
import { type ProseFields, type ProseTerm, rankFiles, termWeights } from "./prose.js";
import type { Source } from "./sources.js";

/** Tunable weights of the prose ranking. */
export const PROSE: Record<"files" | "seeds" | "pagerank" | "damping" | "anchor" | "exactName", number> = {
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
};

/** The prose ranking: files, then the best definitions in each, best first. */
export interface ProseRanking {
  /** Frames in shipping order (scores descending). */
  readonly frames: RankedDefinition[];
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
  const frames: RankedDefinition[] = [];
  for (const file of files) {
    if (frames.length >= options.maxFrames) break;
    const row = table.file(file.fileId);
    if (row === undefined) continue;
    const source = options.read(file.fileId);
    if (source === null) {
      stale.push(row.path);
      continue;
    }
    // One definition per file: its larger views hold the file's others.
    const chosen = chooseDefinitions(table.entriesOf(file.fileId), source, terms, weights, 1);
    const score = 0.05 + 0.94 * confidence * (0.25 + 0.75 * (top > 0 ? file.value / top : 0));
    const first = chosen.entries[0];
    if (first !== undefined) {
      frames.push({ entry: first, path: row.path, score, tier: "context", goalWeights: chosen.goalWeights });
    }
  }
  return { frames, files: evidence.size, stale };
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
): { entries: NameEntry[]; goalWeights: Float64Array } {
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
  const goalWeights = new Float64Array(lineCount + 1);
  for (let row = 1; row <= lineCount; row++) {
    let weight = 0;
    for (let k = 0; k < terms.length; k++) weight += (weights[k] as number) * (sums[row * width + k] as number);
    goalWeights[row] = (goalWeights[row - 1] as number) + weight;
    for (let k = 0; k < width; k++)
      sums[row * width + k] = (sums[row * width + k] as number) + (sums[(row - 1) * width + k] as number);
  }
  if (entries.length === 0) return { entries: [], goalWeights };
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
  return { entries: chosen, goalWeights };
}

function overlaps(a: NameEntry, b: NameEntry): boolean {
  return a.startLine <= b.endLine && b.startLine <= a.endLine;
}
