/**
 * A provider over a folder of Markdown: each heading starts a section, a long section is
 * cut into passages between its paragraphs, and passages are ranked by BM25 (minisearch)
 * over their section's heading and their text, the heading boosted; each cites its
 * section's file, heading and exact lines. However long a goal, a search looks up at most
 * its first 32 distinct terms (see {@link goalTerms}): the work of one query is bounded, so
 * a pasted file never holds the provider while other requests wait.
 * Files are read and split once; a watcher drops that index whenever anything under
 * the served paths changes, so answers never go stale. By default it serves this
 * repository's README.md and docs/; set OCP_DOCS to a comma-separated list of files
 * and folders to serve others. Every file is read through the root-confined reader
 * (`ocp-provider/fs`): a symlink, or a file reached through a linked directory that
 * leaves its folder, is skipped with a warning, never served.
 *
 *   ocp serve examples/docs-provider.ts          # what a host spawns (stdio)
 *   ocp query examples/docs-provider.ts "how do plugins report errors?"
 */
import { type FSWatcher, realpathSync, watch } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import MiniSearch, { type SearchOptions } from "minisearch";
import { type Candidate, definePlugin, defineProvider, type Logger } from "ocp-provider";
import { isFileRefused, RootReader } from "ocp-provider/fs";

// Real paths throughout: files are read (and cited) by their folders' real paths.
const repo = realpathSync(fileURLToPath(new URL("..", import.meta.url)));
const roots = (process.env.OCP_DOCS ?? `${join(repo, "README.md")},${join(repo, "docs")}`)
  .split(",")
  .map((p) => resolve(p));

/**
 * Words that say how a question is asked, not what it is about ("how", "does", "one",
 * "each"): matching them would rank sections by their length, not their subject.
 */
const STOP = new Set(
  `a about after all also am an and any are as at be been but by can could did do does doing each every few for
  from get gets got had has have how i if in into is it its just let like make many may me might more most much my
  need no not of on once one only or other our own same several shall should so some still such than that the their
  them then there these they thing things this those to too us use using very via want was way we were what when
  where whether which while who whom why will with without would yet you your`.split(/\s+/),
);

/** Folds the common English endings, so "counted", "counts" and "counting" meet "count". */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2);
  if (word.length > 4 && /(ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** One word as the index holds it, or null for a stop word. */
function oneTerm(word: string): string | null {
  const lower = word.toLowerCase();
  if ((lower.length < 2 && !/\d/.test(lower)) || STOP.has(lower)) return null;
  return stem(lower);
}

/**
 * A word's terms, the same for sections and goals: itself and, for an identifier such
 * as `runConformance`, its parts, since the docs name things by their identifiers.
 */
export function indexTerms(word: string): string[] | string | null {
  const parts = word.split(/(?<=[a-z0-9])(?=[A-Z])/);
  if (parts.length === 1) return oneTerm(word);
  return [word, ...parts].map(oneTerm).filter((term) => term !== null);
}

/**
 * A word as minisearch's own tokenizer cuts text (at Unicode spaces and punctuation, its
 * `SPACE_OR_PUNCTUATION`), which `indexTerms` refines: sections are indexed with that
 * tokenizer, and a goal is read with this, one word at a time, so that reading stops at
 * {@link MAX_GOAL_WORDS}. A test holds the two to the same words.
 */
const WORD = /[^\n\r\p{Z}\p{P}]+/gu;

/**
 * The most distinct terms of a goal searched, the first written. Every term searched is a
 * pass over the passages holding it, and minisearch merges each passage's matched terms
 * with a linear scan per term — a goal of thousands of words took seconds to minutes while
 * the provider answered nothing else. A goal is a sentence or a paragraph: the longest of
 * bench/cases/docs.jsonl holds 10 terms, so no labelled goal searches differently.
 */
export const MAX_GOAL_TERMS = 32;

/** The most words of a goal read: the rest is not looked at (a goal is a question, not a file). */
export const MAX_GOAL_WORDS = 1000;

/** What a goal is searched for: its distinct terms, first written first, and how often it says each. */
export interface GoalTerms {
  terms: string[];
  counts: number[];
}

/**
 * A goal's terms as minisearch would search the whole text (each word through
 * `indexTerms`), bounded: at most {@link MAX_GOAL_TERMS} distinct terms, from at most
 * {@link MAX_GOAL_WORDS} words. A term said twice is searched once at twice the weight,
 * which scores exactly as searching it twice.
 */
export function goalTerms(text: string): GoalTerms {
  const at = new Map<string, number>();
  const terms: string[] = [];
  const counts: number[] = [];
  let words = 0;
  for (const [word] of text.matchAll(WORD)) {
    if (++words > MAX_GOAL_WORDS) break;
    const found = indexTerms(word);
    for (const term of typeof found === "string" ? [found] : (found ?? [])) {
      const known = at.get(term);
      if (known !== undefined) (counts[known] as number)++;
      else if (terms.length < MAX_GOAL_TERMS) {
        at.set(term, terms.length);
        terms.push(term);
        counts.push(1);
      }
    }
  }
  return { terms, counts };
}

/**
 * How a goal is searched, as measured on bench/cases/docs.jsonl: any of its words
 * (minisearch then multiplies a passage's score by how many it holds), a word in its
 * section's heading counting twice and one in the headings above (the page's title, the
 * parent sections') half — any weight from 0.2 to 1 ranks about the same, without them
 * one more goal misses at 1024 tokens — and classic BM25 (b = 1, no BM25+ bonus per
 * word), which keeps long passages from winning on length alone. Prefix and fuzzy
 * matching are off: on those goals they ranked the gold section lower, never higher.
 */
const SEARCH: SearchOptions = {
  combineWith: "OR",
  boost: { heading: 2, context: 0.5 },
  bm25: { k: 1.2, b: 1, d: 0 },
};

/** A served path's files: a folder's Markdown files, or the one file named, each with the reader of its folder. */
async function markdownFiles(path: string): Promise<{ reader: RootReader; file: string }[]> {
  const folder = path.endsWith(".md") ? dirname(path) : path;
  let reader: RootReader;
  try {
    reader = new RootReader(folder);
  } catch {
    return []; // a path that does not exist (yet) is simply not served
  }
  if (path.endsWith(".md")) return [{ reader, file: basename(path) }];
  // Dirents are not followed: a linked file or directory is not a file here.
  const entries = await readdir(reader.root, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".md"))
    .map((e) => ({ reader, file: relative(reader.root, join(e.parentPath, e.name)) }))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** Paths already warned about, so a refused file costs one line on stderr, not one per rebuild. */
const warned = new Set<string>();

/** A file's text, read through its folder's confined reader; "" (and one warning) if refused or unreadable. */
async function readMarkdown(reader: RootReader, file: string, log: Logger): Promise<string> {
  try {
    return (await reader.readFile(file)).bytes.toString("utf8");
  } catch (error) {
    const path = join(reader.root, file);
    if (isFileRefused(error) && !warned.has(path)) {
      warned.add(path);
      log.warn(`skipped ${path}: ${error.code}: ${error.message}`);
    }
    return "";
  }
}

/** One section of a Markdown file: its heading and its exact lines. */
export interface Section {
  file: string;
  heading: string;
  text: string;
  start: number;
  end: number;
}

/** A passage ready to ship: where it came from, its text and its place in the index. */
interface Indexed extends Section {
  uri: string;
  /** Its lines, made once: candidates may share such parts, the framework copies what it ships. */
  range: { start: number; end: number };
  /** Which section it is a passage of: passages of one section share it. */
  section: number;
  /** The headings above its section: the page's title and the section's parents. */
  context: string;
}

/**
 * Longest passage, in characters (about four per token). A longer section is searched and
 * served as passages of at most this size, so a long section ranked first no longer fills
 * a small budget on its own, cut to its first lines: at 1024 tokens, six or more passages
 * ship. Measured on the tuned goals of bench/cases/docs.jsonl as the docs grew (with
 * {@link LATER_PASSAGE}): on the docs of 2026-12-03, 550–650 ship the gold section for the
 * most goals at every budget (29 of 32), 500 and 700 one fewer, 800–900 two fewer at 1024.
 */
const PASSAGE_CHARS = 600;

/**
 * A later passage of a section already ranked above it weighs this much less per passage
 * before it, so the budget goes to other sections before it goes to more of the same one.
 * Measured with passages of 600: 0–0.2 ship the gold section for the most tuned goals,
 * 0.3–0.5 one fewer. Not 0: a second passage of the best section should still outrank a
 * section that barely matches.
 */
const LATER_PASSAGE = 0.2;

/**
 * A table, with the paragraph that introduces it, stays one passage up to this many times
 * the passage size: cut between its rows, all but the first piece lose the header that
 * says what the columns are, and the sentence above says what the table is for. With
 * 2.5 (1500 characters), "how are token costs counted?" ships docs/tokens.md's tokenizer
 * table first (it was a rowless piece at rank 15, behind its own 6-line intro); the tuned
 * goals of bench/cases/docs.jsonl rank as before (28 of 32 at 1024 tokens, MRR 0.576
 * against 0.575), from 2.5 to 4 alike.
 */
export const TABLE_PASSAGES = 2.5;

/** A line range [from, to) of a section's lines. */
type Span = [number, number];

/**
 * A section as passages of at most about `maxChars` characters, each its section's exact
 * lines under its section's heading, so a passage still cites `file#Section`. Cut between
 * paragraphs (at blank lines outside code fences) into passages of about equal size; a
 * table and the paragraph before it stay together up to {@link TABLE_PASSAGES} passages;
 * a longer paragraph (a long table or list) is cut between its lines.
 */
export function sectionPassages(section: Section, maxChars = PASSAGE_CHARS): Section[] {
  if (section.text.length <= maxChars) return [section];
  const lines = section.text.split(/(?<=\n)/);
  const size = ([from, to]: Span) => lines.slice(from, to).reduce((sum, line) => sum + line.length, 0);
  const pieces = withTables(lines, paragraphs(lines), maxChars * TABLE_PASSAGES).flatMap(({ span, table }) =>
    size(span) <= maxChars || (table && size(span) <= maxChars * TABLE_PASSAGES)
      ? [span]
      : cutLines(lines, span, maxChars),
  );
  // Equal shares rather than full passages and a scrap: a passage of three lines says little.
  const target = section.text.length / Math.ceil(section.text.length / maxChars);
  const passages: Section[] = [];
  let from = 0;
  let chars = 0;
  const close = (to: number) => {
    const text = lines.slice(from, to).join("");
    if (text.trim() !== "")
      passages.push({ ...section, text, start: section.start + from, end: section.start + to - 1 });
    from = to;
    chars = 0;
  };
  for (const piece of pieces) {
    const length = size(piece);
    // The heading line alone says nothing: it goes with what follows it, however long.
    const headingAlone = from === 0 && headingsOnly(lines, [0, piece[0]]);
    if (chars > 0 && !headingAlone && (chars + length > maxChars || chars >= target)) close(piece[0]);
    chars += length;
  }
  close(lines.length);
  return passages;
}

/** The lines are headings and blank lines only: they say what follows, nothing alone. */
function headingsOnly(lines: readonly string[], [from, to]: Span): boolean {
  return lines.slice(from, to).every((line) => line.trim() === "" || /^#{1,6}\s/.test(line));
}

/** A paragraph's lines are a table: every line that is not blank is a row, and there is one. */
function isTable(lines: readonly string[], [from, to]: Span): boolean {
  const rows = lines.slice(from, to).filter((line) => line.trim() !== "");
  return rows.length > 0 && rows.every((line) => line.trimStart().startsWith("|"));
}

/**
 * The paragraphs with each table marked and joined to the paragraph before it (not a
 * heading, not another table) when the two together are at most `maxChars`.
 */
function withTables(
  lines: readonly string[],
  spans: readonly Span[],
  maxChars: number,
): { span: Span; table: boolean }[] {
  const size = ([from, to]: Span) => lines.slice(from, to).reduce((sum, line) => sum + line.length, 0);
  const marked: { span: Span; table: boolean }[] = [];
  for (const span of spans) {
    const table = isTable(lines, span);
    const before = marked.at(-1);
    const lead = before !== undefined && !before.table && !headingsOnly(lines, before.span);
    if (table && lead && size([before.span[0], span[1]]) <= maxChars) {
      marked[marked.length - 1] = { span: [before.span[0], span[1]], table: true };
    } else marked.push({ span, table });
  }
  return marked;
}

/** A section's paragraphs, each ending with its blank line; a fenced block with blank lines inside stays one. */
function paragraphs(lines: readonly string[]): Span[] {
  const spans: Span[] = [];
  let fenced = false;
  let from = 0;
  lines.forEach((line, at) => {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    if (!fenced && line.trim() === "") {
      spans.push([from, at + 1]);
      from = at + 1;
    }
  });
  if (from < lines.length) spans.push([from, lines.length]);
  return spans;
}

/** A span cut between its lines into pieces of at most `maxChars` (a single longer line is a piece alone). */
function cutLines(lines: readonly string[], [from, to]: Span, maxChars: number): Span[] {
  const pieces: Span[] = [];
  let start = from;
  let chars = 0;
  for (let at = from; at < to; at++) {
    const length = (lines[at] as string).length;
    if (chars > 0 && chars + length > maxChars) {
      pieces.push([start, at]);
      start = at;
      chars = 0;
    }
    chars += length;
  }
  pieces.push([start, to]);
  return pieces;
}

/** Every section's provenance: read from a file, split at headings. */
const PROVENANCE: Candidate["provenance"] = [{ type: "file", method: "markdown-sections" }];

/** What the index holds of a passage. */
type Searched = { id: number; heading: string; text: string; context: string };

/** The passages, and the BM25 index over them (a passage's id is its place in the list). */
interface Index {
  sections: Indexed[];
  search: MiniSearch<Searched>;
  /** Rankings already made, by goal: see {@link rank}. */
  ranked: Map<string, Ranked>;
}

/** What {@link rank} gives: the candidates to offer, and how many others matched. */
type Ranked = { candidates: Candidate[]; omitted: number } | [];

/**
 * How many rankings an index keeps. A host asks the same goal again (each turn of an
 * agent, a retry, a second budget), and a ranking is a pure function of the goal and the
 * index, which is rebuilt whenever a file changes — so a repeated goal is answered from
 * here in microseconds instead of searched again (~0.2 ms over this repository's docs).
 */
const RANKED_KEPT = 256;

/** Reads, splits and indexes every file; what the search reads until a file changes. */
async function buildIndex(log: Logger): Promise<Index> {
  const found = (await Promise.all(roots.map(markdownFiles))).flat();
  const sectionsFound: Indexed[] = [];
  let sections = 0;
  for (const { reader, file: name } of found) {
    const source = await readMarkdown(reader, name, log);
    const file = join(reader.root, name);
    const uri = pathToFileURL(file).href;
    const parents: { level: number; heading: string }[] = [];
    for (const whole of markdownSections(file, source)) {
      sections++;
      const level = /^(#{1,6})\s/.exec(whole.text)?.[1]?.length ?? 0;
      while (parents.length > 0 && (parents.at(-1) as { level: number }).level >= level) parents.pop();
      const context = parents.map((parent) => parent.heading).join("\n");
      if (level > 0) parents.push({ level, heading: whole.heading });
      for (const passage of sectionPassages(whole)) {
        const range = { start: passage.start, end: passage.end };
        sectionsFound.push({ ...passage, uri, range, section: sections, context });
      }
    }
  }
  const search = new MiniSearch<Searched>({
    fields: ["heading", "text", "context"],
    processTerm: indexTerms,
    searchOptions: SEARCH,
  });
  search.addAll(
    sectionsFound.map((section, id) => ({
      id,
      heading: section.heading,
      text: section.text,
      context: section.context,
    })),
  );
  return { sections: sectionsFound, search, ranked: new Map() };
}

// Built on first use and dropped whenever anything under the roots changes.
let index: Index | undefined;
let building: Promise<Index> | undefined;
/** Counts changes under the roots: an index whose build saw one is served once, not kept. */
let generation = 0;
const watchers: FSWatcher[] = [];

function loadIndex(log: Logger): Promise<Index> {
  if (building === undefined) {
    const started = generation;
    building = buildIndex(log).then(
      (built) => {
        if (generation === started) index = built;
        return built;
      },
      (error: unknown) => {
        building = undefined;
        throw error;
      },
    );
  }
  return building;
}

function forgetIndex(): void {
  generation++;
  index = undefined;
  building = undefined;
}

/** Splits Markdown at headings (outside code fences); each section keeps its exact lines. */
export function markdownSections(file: string, source: string): Section[] {
  const lines = source.split(/(?<=\n)/);
  const found: Section[] = [];
  let fenced = false;
  lines.forEach((line, index) => {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line.trimEnd());
    if (heading !== null || found.length === 0) {
      found.push({ file, heading: heading?.[1] ?? relative(repo, file), text: "", start: index + 1, end: index + 1 });
    }
    const current = found[found.length - 1] as Section;
    current.text += line;
    current.end = index + 1;
  });
  return found.filter((section) => section.text.trim() !== "");
}

/**
 * A section's relevance: its BM25 score over the square of the goal's word count. The
 * framework maps it into [0, 1] as r / (1 + r) ("unbounded" scores), so a section holding
 * every word of the goal scores by the weight of a single word, however long the goal:
 * about 0.6 for a good match, under 0.25 for a goal that only shares a common word.
 * (minisearch multiplies the BM25 sum by the number of words matched, hence the square.)
 */
function relevanceOf(bm25: number, words: number): number {
  return bm25 / (words * words);
}

/**
 * The longest goal whose ranking is kept: a key holds the whole text, and 256 goals of a
 * megabyte would keep a quarter of a gigabyte alive. A longer goal is searched each time
 * (its search is bounded all the same, see {@link goalTerms}).
 */
const KEPT_GOAL_CHARS = 4096;

/** The best sections for the goal, best first (kept for a repeated goal); the others are counted as omitted. */
function rank(index: Index, text: string, maxFrames: number): Ranked {
  if (text.length > KEPT_GOAL_CHARS) return search(index, text, maxFrames);
  const key = `${maxFrames}\n${text}`;
  let ranked = index.ranked.get(key);
  if (ranked === undefined) {
    ranked = search(index, text, maxFrames);
    // Dropped whole when full: simpler than an LRU, and a busy host refills it at once.
    if (index.ranked.size >= RANKED_KEPT) index.ranked.clear();
    index.ranked.set(key, ranked);
  }
  return ranked;
}

/** Searches the index for the goal: see {@link rank}. */
function search({ sections: all, search }: Index, text: string, maxFrames: number): Ranked {
  const { terms, counts } = goalTerms(text);
  const words = terms.length;
  if (words === 0) return [];
  // The terms as found, not read again (`indexTerms` twice would turn "uses" into the stop
  // word "use"); a term said n times weighs n, as n searches of it would.
  const hits = search.search(terms.join(" "), {
    tokenize: (joined) => joined.split(" "),
    processTerm: (term) => term,
    boostTerm: (_term, i) => counts[i] as number,
  });
  // The best few are enough to fill any budget; the others are reported, not shipped.
  const keep = Math.max(8, 3 * maxFrames);
  const ranked = new Map<number, number>(); // passages of each section ranked so far
  const candidates: Candidate[] = hits.slice(0, keep).map((hit) => {
    const section = all[hit.id as number] as Indexed;
    const above = ranked.get(section.section) ?? 0;
    ranked.set(section.section, above + 1);
    return {
      content: section.text,
      relevance: relevanceOf(hit.score, words) * LATER_PASSAGE ** above,
      title: section.heading,
      uri: section.uri,
      range: section.range,
      provenance: PROVENANCE,
    };
  });
  return { candidates, omitted: hits.length - candidates.length };
}

const markdown = definePlugin({
  name: "markdown",
  kinds: ["doc"],
  scores: "unbounded",
  setup({ log }) {
    for (const root of roots) {
      try {
        watchers.push(watch(root, { recursive: true, persistent: false }, forgetIndex));
      } catch {
        // A root that does not exist (yet) is simply not served.
      }
    }
    // Built now, in the background, so the first query does not wait for it (a failed build is retried then).
    loadIndex(log).catch(() => {});
  },
  search(query, { log }) {
    const text = `${query.goal} ${query.query_text ?? ""}`;
    // Synchronous once the index is built: the framework then answers without a promise.
    if (index !== undefined) return rank(index, text, query.max_frames);
    return loadIndex(log).then((built) => rank(built, text, query.max_frames));
  },
  close() {
    for (const watcher of watchers.splice(0)) watcher.close();
  },
});

export default defineProvider({
  name: "docs",
  version: "0.1.0",
  dataFlow: { reads: true, writes: false, egress: false },
  plugins: [markdown],
  root: repo,
});
