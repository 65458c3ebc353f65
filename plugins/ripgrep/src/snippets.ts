/**
 * From what rg found to ranked snippet candidates: term weights from the files' own
 * statistics, windows per file, features per window, a per-file cap with diminishing
 * returns (a file's second snippet ranks below the next file's first), and the
 * best-first order the packer will use. Nothing depends on the order of `files`.
 */
import { join, posix } from "node:path";
import { pathToFileURL } from "node:url";
import { type Candidate, formatRange, type LineRange } from "ocp-provider";
import { type Anchors, proximity, symbolRegExp } from "./anchors.js";
import type { FileMatches } from "./collect.js";
import {
  aboutTests,
  type DefinitionQuestion,
  definitionQuestion,
  filePrior,
  isDefinition,
  MATCH_QUALITY,
  occurrenceQuality,
  relevance,
  type SnippetFeatures,
} from "./rank.js";
import { pathRegExp, type Term } from "./terms.js";
import { TermStats } from "./weights.js";
import { mergeWindows, type SnippetWindow } from "./windows.js";

/** Options of {@link buildSnippets}. */
export interface SnippetOptions {
  /** The resolved root (rg's working directory). */
  root: string;
  /** Context lines on each side of a match. */
  contextLines: number;
  /** Most lines in one snippet. */
  maxSnippetLines: number;
  /** Most snippets from one file. */
  perFileMaxSnippets: number;
  /** Most candidates returned; the rest count as omitted. */
  maxCandidates: number;
}

/** Where a candidate's lines are in its file, as rg read it: what {@link confirmSnippets} checks. */
export interface SnippetOrigin {
  /** The root-relative path: its exact bytes when the name is not UTF-8. */
  readonly path: string | Buffer;
  /** Byte offset of the first line. */
  readonly offset: number;
  /** Byte offset of the last line. */
  readonly lastOffset: number;
  /** The line a pointer to the snippet shows: its best-matching line. */
  readonly bestLine: number;
  /** The relevance of a larger view of the snippet: the same features over the view's lines and the matches in them. */
  readonly rescore: (range: LineRange) => number;
}

/** Candidates best first (each with its origin, at the same index), and how many snippets were found but not returned. */
export interface SnippetResult {
  readonly candidates: Candidate[];
  readonly origins: SnippetOrigin[];
  readonly omitted: number;
}

/** What a file brings to each of its windows' scores: its path, proximity and prior. */
interface FileContext {
  path: number;
  pathMatch: number;
  proximity: number;
  symbols: RegExp | undefined;
  fileCoverage: number;
  prior: number;
  /** Set when the goal asks where an identifier is defined. */
  question: DefinitionQuestion | undefined;
}

/** A scored window, before its candidate is built. */
interface Ranked {
  /** The frame id the framework will give it, without the plugin prefix; built only when a tie needs it. */
  id?: string;
  readonly relevance: number;
  readonly file: FileMatches;
  readonly window: SnippetWindow;
  readonly source: { readonly file: FileMatches; uri?: string };
  readonly bestLine: number;
  /** The file's part of the score, and the window's rank in its file: what a view is scored with. */
  readonly context: FileContext;
  readonly repeat: number;
}

/** The file's URI, built once per file and only when needed (ties and returned candidates). */
function uriOf(entry: Ranked, root: string): string {
  entry.source.uri ??= fileUri(root, entry.file.path, entry.file.pathBytes);
  return entry.source.uri;
}

const TITLE_TEXT = 80;

/** The last root's URI: a provider has one root, so one entry is the whole cache. */
let lastRoot = { path: "", uri: "" };

/** The printable ASCII that `pathToFileURL` (Node 20) writes as is; anything else takes the slow path. */
const URI_AS_IS = /^[!$&'()*+,\-./0-9:;=@A-Z_a-z]*$/;

/**
 * The `file:` URI of a root-relative path: what `pathToFileURL` gives, built by
 * concatenation when the path needs no escaping (nearly always; `pathToFileURL`
 * costs microseconds per call). Raw bytes (a non-UTF-8 name) are percent-encoded one by one.
 */
export function fileUri(root: string, path: string, pathBytes: Buffer | undefined): string {
  if (root !== lastRoot.path) lastRoot = { path: root, uri: pathToFileURL(root).href.replace(/\/$/, "") };
  const rootUri = lastRoot.uri;
  if (pathBytes === undefined)
    return URI_AS_IS.test(path) ? `${rootUri}/${path}` : pathToFileURL(join(root, path)).href;
  let encoded = "";
  for (const byte of pathBytes) {
    const char = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9\-._~/]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return `${rootUri}/${encoded}`;
}

/**
 * One line of a snippet made fit for a title: control characters, bidirectional
 * overrides (which could make a title read differently from the code) and runs of
 * space become one space; long lines are shortened. The content keeps every byte.
 */
function titleText(line: string): string {
  const points = [...line.replace(/[\p{Cc}\s\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/gu, " ").trim()];
  return points.length > TITLE_TEXT ? `${points.slice(0, TITLE_TEXT - 1).join("")}…` : points.join("");
}

/** "src/config.ts L42: export function parseConfig(…": the file and its best-matching line. */
function title(path: string, line: number, text: string): string {
  const shown = titleText(text);
  return shown === "" ? `${path} L${line}` : `${path} L${line}: ${shown}`;
}

/** File names that say nothing of their module: the directory above names it instead. */
const GENERIC_NAME = /^(index|mod|main|__init__|__main__|init|lib)\.[^/.]+$/i;

/**
 * Where each term is in a path: in the file name 1, in a directory 0.5, nowhere 0. A
 * generic name (`index.ts`, `__init__.py`, `mod.rs`) counts its directory as the name:
 * `src/middleware/cors/index.ts` is the cors module.
 */
export function pathHits(path: string, matchers: readonly RegExp[]): number[] {
  const base = posix.basename(path);
  const parent = posix.dirname(path);
  const generic = GENERIC_NAME.test(base) && parent !== ".";
  const name = generic ? `${posix.basename(parent)}/${base}` : base;
  const dir = generic ? posix.dirname(parent) : parent;
  return matchers.map((matcher) => {
    matcher.lastIndex = 0;
    const inName = matcher.test(name);
    matcher.lastIndex = 0;
    const inDir = !inName && dir !== "." && matcher.test(dir);
    matcher.lastIndex = 0;
    return inName ? 1 : inDir ? 0.5 : 0;
  });
}

/** The weighted share of `hits` ({@link pathHits}) under `weights`. */
export function pathScore(hits: readonly number[], weights: readonly number[]): number {
  let total = 0;
  let score = 0;
  weights.forEach((weight, i) => {
    total += weight;
    score += weight * (hits[i] as number);
  });
  return total > 0 ? score / total : 0;
}

/** Scores one window: its features, its best line (for the title) and the relevance they give. */
function scoreWindow(
  window: SnippetWindow,
  file: FileMatches,
  weights: readonly number[],
  matchers: readonly RegExp[],
  context: FileContext,
): { features: SnippetFeatures; bestLine: number } {
  const best = new Array<number>(weights.length).fill(0);
  let definition = 0;
  let declares = false;
  let bestLine = window.matches[0] as number;
  let bestLineScore = -1;
  for (const number of window.matches) {
    const text = file.lines.text(number) ?? "";
    let lineScore = 0;
    weights.forEach((weight, i) => {
      const matcher = matchers[i] as RegExp;
      matcher.lastIndex = 0;
      let quality = 0;
      for (let found = matcher.exec(text); found !== null; found = matcher.exec(text)) {
        quality = Math.max(quality, occurrenceQuality(text, found.index, found.index + found[0].length));
        if (quality === MATCH_QUALITY.wholeWord) break;
        if (found[0].length === 0) matcher.lastIndex++;
      }
      matcher.lastIndex = 0;
      if (quality > (best[i] as number)) best[i] = quality;
      lineScore += weight * quality;
    });
    if (lineScore > 0 && definition === 0 && isDefinition(text)) definition = 1;
    if (lineScore > 0 && context.question?.declares(text)) declares = true;
    if (lineScore > bestLineScore) {
      bestLineScore = lineScore;
      bestLine = number;
    }
  }
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let found = 0;
  let weighted = 0;
  weights.forEach((weight, i) => {
    if ((best[i] as number) > 0) {
      found += weight;
      weighted += weight * (best[i] as number);
    }
  });
  // rg matched these lines, so something is there even if the JS reading of a pattern differs in a corner case.
  const coverage = found > 0 ? found / total : Math.min(...weights) / total;
  const quality = found > 0 ? weighted / found : MATCH_QUALITY.substring;
  let mention = 0;
  if (context.symbols !== undefined) {
    for (let line = window.start; line <= window.end && mention === 0; line++) {
      if (context.symbols.test(file.lines.text(line) ?? "")) mention = 1;
    }
  }
  const density = window.matches.length / (window.end - window.start + 1);
  return {
    features: {
      coverage,
      fileCoverage: Math.max(coverage, context.fileCoverage),
      quality,
      density,
      path: context.path,
      pathMatch: context.pathMatch,
      proximity: context.proximity,
      mention,
      // Asked where a name is defined, only its declaration is a definition, in whatever kind of file.
      definition: context.question === undefined ? definition : declares ? 1 : 0,
      prior: declares ? 1 : context.prior,
    },
    bestLine,
  };
}

/**
 * The highest relevance any window of a file can reach: every window feature at its
 * most — a window's coverage is at most its file's (its terms are among the file's; or
 * the smallest term's share when none is read), quality, density and definition at 1,
 * mention 1 if anchors name symbols — and the file's own path, proximity and prior.
 * {@link relevance} never falls as a feature rises (in floating point too: the same
 * operations on larger operands), so no window of the file scores above this.
 */
export function bestPossible(context: FileContext, minWeightShare: number): number {
  const coverage = Math.max(context.fileCoverage, minWeightShare);
  return relevance({
    coverage,
    fileCoverage: coverage,
    quality: 1,
    density: 1,
    path: context.path,
    pathMatch: context.pathMatch,
    proximity: context.proximity,
    mention: context.symbols !== undefined ? 1 : 0,
    definition: 1,
    prior: context.question === undefined ? context.prior : 1,
  });
}

/** The `size` highest values added so far; {@link lowest} is the smallest of them, or -Infinity until there are `size`. */
class TopValues {
  readonly #size: number;
  /** Ascending. */
  readonly #values: number[] = [];

  constructor(size: number) {
    this.#size = size;
  }

  get lowest(): number {
    return this.#values.length < this.#size ? Number.NEGATIVE_INFINITY : (this.#values[0] as number);
  }

  add(value: number): void {
    const values = this.#values;
    if (values.length === this.#size && value <= (values[0] as number)) return;
    let low = 0;
    let high = values.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((values[middle] as number) < value) low = middle + 1;
      else high = middle;
    }
    values.splice(low, 0, value);
    if (values.length > this.#size) values.shift();
  }
}

/** Best first by relevance, then by id — the packer's own order, so capping here never disagrees with it. */
function byRank(root: string): (a: Ranked, b: Ranked) => number {
  return (a, b) => {
    if (a.relevance !== b.relevance) return b.relevance - a.relevance;
    a.id ??= `${uriOf(a, root)}#${formatRange(a.window)}`;
    b.id ??= `${uriOf(b, root)}#${formatRange(b.window)}`;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}

/** The candidate of a ranked window: its exact lines, title and provenance (built only for what is returned). */
function materialize(entry: Ranked, root: string): Candidate {
  const { file, window, bestLine } = entry;
  const uri = uriOf(entry, root);
  let content = "";
  let lossy = false;
  for (let line = window.start; line <= window.end; line++) {
    const record = file.lines.get(line);
    content += record?.text ?? "";
    lossy ||= record?.lossy === true;
  }
  const provenance: Candidate["provenance"] = [{ type: "file", method: "ripgrep" }];
  // The digest covers the shipped text: for a file that is not UTF-8, its bytes decoded with U+FFFD.
  if (lossy) provenance.push({ type: "derivation", method: "utf-8-decode-with-replacement" });
  return {
    content,
    relevance: entry.relevance,
    kind: "snippet",
    uri,
    path: file.path,
    range: { start: window.start, end: window.end },
    title: title(file.path, bestLine, file.lines.text(bestLine) ?? ""),
    provenance,
  };
}

/**
 * Turns rg's findings into ranked candidates (see the module comment). `stats` holds
 * the term statistics of the whole search (every file rg reported, also those the
 * match cap dropped); without it they are taken from `files`.
 */
export function buildSnippets(
  files: readonly FileMatches[],
  terms: readonly Term[],
  anchors: Anchors,
  options: SnippetOptions,
  stats: TermStats = new TermStats(terms),
): SnippetResult {
  if (terms.length === 0) return { candidates: [], origins: [], omitted: 0 };
  for (const file of files) stats.present(file);
  const { matchers } = stats;
  const question = definitionQuestion(terms);
  // The words that ask for a definition say what the answer is, not what it holds.
  const raw = stats.weights().map((weight, i) => (question?.asks[i] ? 0 : weight));
  // A weight of 0 (a term in every file of a one-file search) would make the share undefined.
  const weights = raw.some((weight) => weight > 0) ? raw : raw.map(() => 1);
  const weightTotal = weights.reduce((sum, weight) => sum + weight, 0);
  const testsWanted = aboutTests(terms);
  const symbols = symbolRegExp(anchors);
  const rank = byRank(options.root);
  const ranked: Ranked[] = [];
  let omitted = 0;
  // Paths have statistics of their own: `context` is in nearly every file of a web framework
  // but in the name of a few, and a goal that says "context" is about those few. Counted over
  // the files kept (all of them unless the match cap dropped some), which `files` is.
  const pathMatchers = terms.map(pathRegExp);
  const hits = new Map(files.map((file) => [file, pathHits(file.path, pathMatchers)]));
  const pathDf = terms.map((_, i) =>
    files.reduce((n, file) => n + (((hits.get(file) as number[])[i] as number) > 0 ? 1 : 0), 0),
  );
  const pathWeights = terms.map((term, i) => {
    const df = pathDf[i] as number;
    return df === 0 ? 0 : term.weight * Math.log(1 + (files.length - df + 0.5) / (df + 0.5));
  });
  const minWeightShare = Math.min(...weights) / weightTotal;
  const plans = files.map((file) => {
    const windows = mergeWindows(file.matchLines, {
      context: options.contextLines,
      maxLines: options.maxSnippetLines,
      lastLine: file.lastLine,
      isBlocked: (line) => !file.lines.hasText(line),
    });
    const present = stats.present(file);
    const context = {
      path: pathScore(hits.get(file) as number[], weights),
      pathMatch: pathScore(hits.get(file) as number[], pathWeights),
      proximity: proximity(file.path, anchors),
      symbols,
      fileCoverage: weights.reduce((sum, weight, i) => sum + (present[i] ? weight : 0), 0) / weightTotal,
      prior: filePrior(file.path, testsWanted, terms),
      question,
    };
    // Every window feature at its most: what no window of this file can exceed (see bestPossible).
    return { file, windows, context, bound: bestPossible(context, minWeightShare) };
  });
  // Files by their bound, best first: once a file's bound is below the best maxCandidates
  // windows in hand, no window of it or of any file after it can be returned, and scoring
  // them (the regexes over every match line) is skipped. Their windows still count as omitted.
  plans.sort((a, b) => b.bound - a.bound);
  const best = new TopValues(options.maxCandidates);
  for (const { file, windows, context, bound } of plans) {
    if (bound < best.lowest) {
      // As if scored: over the per-file cap, or past maxCandidates (already full when a file is skipped).
      omitted += windows.length;
      continue;
    }
    const source = { file };
    const own: { features: SnippetFeatures; entry: Ranked }[] = [];
    for (const window of windows) {
      const { features, bestLine } = scoreWindow(window, file, weights, matchers, context);
      own.push({
        features,
        entry: { relevance: relevance(features), file, window, source, bestLine, context, repeat: 0 },
      });
    }
    own.sort((a, b) => rank(a.entry, b.entry));
    omitted += Math.max(0, own.length - options.perFileMaxSnippets);
    // Diminishing returns: a file's n-th best window is scored again with its rank in the file.
    own.slice(0, options.perFileMaxSnippets).forEach(({ features, entry }, index) => {
      const kept =
        index === 0 ? entry : { ...entry, relevance: relevance({ ...features, repeat: index }), repeat: index };
      // Nothing of the goal but the words that ask for a definition (`defineConfig` for "defined"): not offered.
      if (kept.relevance === 0) {
        omitted++;
        return;
      }
      ranked.push(kept);
      best.add(kept.relevance);
    });
  }
  ranked.sort(rank);
  omitted += Math.max(0, ranked.length - options.maxCandidates);
  const returned = ranked.slice(0, options.maxCandidates);
  const candidates = returned.map((entry) => materialize(entry, options.root));
  const origins = returned.map(({ file, window, bestLine, context, repeat }) => ({
    path: file.pathBytes ?? file.path,
    offset: file.lines.get(window.start)?.offset ?? -1,
    lastOffset: file.lines.get(window.end)?.offset ?? -1,
    bestLine,
    rescore: (range: LineRange) => {
      const matches = file.matchLines.filter((line) => range.start <= line && line <= range.end);
      const view = { start: range.start, end: range.end, matches: matches.length > 0 ? matches : window.matches };
      return relevance({ ...scoreWindow(view, file, weights, matchers, context).features, repeat });
    },
  }));
  return { candidates, origins, omitted };
}
