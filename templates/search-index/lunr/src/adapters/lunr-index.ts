/**
 * A plugin over a lunr search index: the `search_index.json` that mkdocs (and
 * mkdocs-material) build — `{ config, docs: [{ location, title, text }], index? }` —
 * or any serialized lunr index (`lunr.Index#toJSON()`) with its documents beside it.
 *
 * Searching is lunr's own (BM25 with its stemmer), so the frames rank much the way the
 * site's search box does, with three differences that matter to an agent: stop words
 * ("how", "are", "a") are dropped from the goal, only words of five letters or more also
 * match as prefixes (`a*` would match everything), and a page must hold 40% of the goal's
 * words, and two at least, and — unless it holds them all — words that are evidence of a
 * subject in this index, not only words most of its pages hold (`minCoverage`, and
 * `holdsEnough` in ./hits.ts), to be offered at all, so an off-topic goal gets no frames
 * instead of confident ones. A long page ships its passage holding most of the goal's
 * words, cited by its lines in the page (see ./hits.ts). Scores are in [0, 1], `y / (1 + y)` of
 * `y = words held × lunr's score / words²` (see {@link relevance}). This file is yours:
 * edit it freely.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import lunr from "lunr";
import { type Candidate, definePlugin, type FrameKind, type Plugin } from "ocp-provider";
import { bestPassage, goalText, holdsEnough, lineLabel, MAX_GOAL_WORDS, passageChars, wordEvidence } from "./hits.js";

/** Options of {@link lunrIndex}. */
export interface LunrIndexOptions {
  /** mkdocs' `search_index.json`, or a serialized lunr index (then give `documents` too). */
  file: string | URL;
  /** For a bare lunr index: the indexed documents (a JSON file holding an array, or the array itself). */
  documents?: string | URL | Record<string, unknown>[];
  /** Which document fields hold what. Default mkdocs' names: `location` (the ref), `title`, `text`. */
  fields?: { ref?: string; title?: string; content?: string };
  /** Where locations are relative to, e.g. `https://docs.example.com/`: frames then carry absolute URLs. */
  baseUrl?: string;
  /** Plugin name (frame ids and provenance `method`); default `search-index`. */
  name?: string;
  /** Frame kind; default `doc`. */
  kind?: FrameKind;
  /** Most hits offered to the packer per query; default 50. */
  limit?: number;
  /**
   * The share of the goal's words (stop words aside) a page must hold to be offered, and two
   * words at least, and evidence of a subject (./hits.ts) unless it holds them all; 0 asks
   * for nothing. Default 0.4 (two words of two to five).
   */
  minCoverage?: number;
}

interface Doc {
  ref: string;
  title: string;
  text: string;
}

interface Loaded {
  index: lunr.Index;
  docs: Map<string, Doc>;
  separator: RegExp;
  /** How many documents the index holds (what a word's weight is relative to). */
  documents: number;
}

/** A plugin answering queries from a lunr index (see the file comment for the formats it reads). */
export function lunrIndex(options: LunrIndexOptions): Plugin {
  const fields = { ref: "location", title: "title", content: "text", ...options.fields };
  const limit = options.limit ?? 50;
  const minCoverage = options.minCoverage ?? 0.4;
  let loaded: Loaded | undefined;

  return definePlugin({
    name: options.name ?? "search-index",
    kinds: [options.kind ?? "doc"],
    async setup() {
      loaded = await load(options, fields);
    },
    search(query) {
      if (loaded === undefined) return [];
      const { index, docs, separator, documents } = loaded;
      const text = goalText(query.query_text ?? query.goal);
      const words = goalWords(withSeparator(separator, () => lunr.tokenizer(text)));
      if (words.length === 0) return [];
      // Built, not parsed: a goal such as "fix: title:foo ~2" must not be lunr query syntax.
      const hits = index.query((q) => {
        for (const word of words) {
          q.term(word.token, { boost: 10 });
          if (word.prefix) q.term(word.token, { boost: 1, usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING });
        }
      });
      // Hits whose document is missing or empty, or that hold too little of the goal,
      // are never offered, so they are not "omitted" either.
      const evidence = words.map((word) => wordEvidence(holdingTerm(index, word.stem), documents));
      const texts = words.map((word) => word.text);
      const usable: Candidate[] = [];
      for (const hit of hits) {
        const doc = docs.get(hit.ref);
        if (doc === undefined || doc.text.trim() === "") continue;
        const held = wordsHeld(words, Object.keys(hit.matchData.metadata));
        if (!holdsEnough(held, evidence, minCoverage)) continue;
        const passage = bestPassage(doc.text, texts, passageChars(query.max_tokens, query.max_frames));
        const candidate = toCandidate(
          doc,
          relevance(held.filter(Boolean).length, words.length, hit.score),
          docs,
          options.baseUrl,
        );
        usable.push({
          ...candidate,
          content: passage.text,
          range: passage.lines,
          // A passage of a long page is cited by its lines in the page's text.
          citationLabel: passage.whole
            ? candidate.citationLabel
            : `${candidate.citationLabel} ${lineLabel(passage.lines)}`,
        });
      }
      // lunr's order, weighed by the share of the goal's words held; ties keep lunr's order (sort is stable).
      usable.sort((a, b) => b.relevance - a.relevance);
      const candidates = usable.slice(0, limit);
      return { candidates, omitted: usable.length - candidates.length };
    },
  });
}

/** Words of five letters or more also match as prefixes ("escal" finds "escalate"); shorter ones would match too much. */
const PREFIX_MIN_LENGTH = 5;

/** A goal's word: the token lunr searches, the term its stemmer makes of it, and whether it matches prefixes. */
interface GoalWord {
  token: lunr.Token;
  stem: string;
  text: string;
  prefix: boolean;
}

/** The goal's distinct words, stop words dropped (lunr's list and a few ways of asking); the first {@link MAX_GOAL_WORDS}. */
function goalWords(tokens: lunr.Token[]): GoalWord[] {
  const seen = new Map<string, GoalWord>();
  for (const token of tokens) {
    const text = token.toString().toLowerCase();
    if (text === "" || STOP.has(text) || lunr.stopWordFilter(token) === undefined) continue;
    const stem = lunr.stemmer(token.clone()).toString();
    if (!seen.has(stem)) seen.set(stem, { token, stem, text, prefix: text.length >= PREFIX_MIN_LENGTH });
    if (seen.size === MAX_GOAL_WORDS) break;
  }
  return [...seen.values()];
}

/** Which of the goal's words a hit holds, from the index terms lunr matched in it. */
function wordsHeld(words: GoalWord[], matched: string[]): boolean[] {
  return words.map(
    (word) => matched.includes(word.stem) || (word.prefix && matched.some((term) => term.startsWith(word.text))),
  );
}

/** The lunr index's inverted index: term → field → document ref → metadata (not in lunr's types). */
type Postings = Record<string, Record<string, Record<string, unknown> | number>>;

/** How many documents of the index hold `term` (an index term: a stem), in any field. */
function holdingTerm(index: lunr.Index, term: string): number {
  const postings = (index as unknown as { invertedIndex: Postings }).invertedIndex;
  // Own keys only: a goal's word "constructor" is no posting.
  const posting = Object.hasOwn(postings, term) ? postings[term] : undefined;
  if (posting === undefined) return 0;
  const refs = new Set<string>();
  for (const [field, documents] of Object.entries(posting)) {
    if (field !== "_index" && typeof documents === "object") for (const ref of Object.keys(documents)) refs.add(ref);
  }
  return refs.size;
}

/** How many documents the index holds: the distinct refs of its field vectors (`field/ref`). */
function documentsIn(index: lunr.Index): number {
  const vectors = (index as unknown as { fieldVectors: Record<string, unknown> }).fieldVectors;
  return new Set(Object.keys(vectors).map((key) => key.slice(key.indexOf("/") + 1))).size;
}

/**
 * The part of a score that is the share of the goal's words held alone: a real hit never
 * shows as 0.00, even where the engine weighs its words about 0 (FTS5 does for words in
 * more than half of the rows), and hits weighed alike keep the engine's order.
 */
const MIN_SHARE = 0.05;

/**
 * A score in [0, 1] that means the same in any index: `y / (1 + y)` with
 * `y = held × bm25 / words²`, so a page holding every word of the goal scores by the
 * BM25 weight of one word, however long the goal, and one holding half of them a quarter
 * of it; plus `MIN_SHARE` × the share of words held, so that no real hit scores 0.
 */
function relevance(held: number, words: number, bm25: number): number {
  const y = (held * bm25) / (words * words);
  return (MIN_SHARE * held) / words + (1 - MIN_SHARE) * (y / (1 + y));
}

/** Ways of asking lunr's stop word list lets through: they say how a goal is asked, not what about. */
const STOP = new Set(
  "also doing find gets help many much need one please show tell thing things use using want way".split(" "),
);

function toCandidate(doc: Doc, score: number, docs: Map<string, Doc>, baseUrl: string | undefined): Candidate {
  // mkdocs indexes each page and each of its sections; a section's location is `page/#anchor`.
  const hash = doc.ref.indexOf("#");
  const page = hash === -1 ? undefined : docs.get(doc.ref.slice(0, hash));
  const title = doc.title.trim() || doc.ref;
  const uri = baseUrl === undefined ? doc.ref || undefined : new URL(doc.ref, baseUrl).href;
  return {
    id: doc.ref === "" ? "/" : doc.ref, // mkdocs' home page is location ""
    title: page !== undefined && page.title.trim() !== "" && page.title !== title ? `${page.title} › ${title}` : title,
    citationLabel: uri ?? title,
    content: doc.text,
    relevance: score,
    uri,
    provenance: [{ type: "search-index", uri }],
  };
}

async function load(options: LunrIndexOptions, fields: Required<NonNullable<LunrIndexOptions["fields"]>>) {
  const json = await readJson(options.file, "the search index");
  const mkdocs = isRecord(json) && Array.isArray(json.docs);
  const rawDocs = mkdocs ? (json.docs as unknown[]) : await documentsOf(options);
  const config = mkdocs && isRecord(json.config) ? json.config : {};
  const separator = typeof config.separator === "string" ? new RegExp(config.separator) : /[\s-]+/;
  const docs = new Map<string, Doc>();
  for (const raw of rawDocs) {
    if (!isRecord(raw)) continue;
    const ref = raw[fields.ref];
    if (typeof ref !== "string" && typeof ref !== "number") continue;
    docs.set(String(ref), {
      ref: String(ref),
      title: htmlToText(String(raw[fields.title] ?? "")),
      text: htmlToText(String(raw[fields.content] ?? "")),
    });
  }
  const serialized = mkdocs ? json.index : json;
  if (isRecord(serialized) && Array.isArray(serialized.invertedIndex)) {
    const index = lunr.Index.load(serialized);
    return { index, docs, separator, documents: documentsIn(index) };
  }
  if (!mkdocs) throw new Error(`${pathOf(options.file)} is neither mkdocs' search_index.json nor a lunr index`);
  // mkdocs without `prebuild_index`: build the index the way mkdocs' own search worker does.
  const index = withSeparator(separator, () =>
    lunr(function () {
      this.ref("ref");
      this.field("title", { boost: 10 });
      this.field("text");
      for (const doc of docs.values()) this.add(doc);
    }),
  );
  return { index, docs, separator, documents: documentsIn(index) };
}

async function documentsOf(options: LunrIndexOptions): Promise<unknown[]> {
  if (options.documents === undefined) {
    throw new Error("a bare lunr index holds no text: pass `documents` (the documents it was built from)");
  }
  if (Array.isArray(options.documents)) return options.documents;
  const json = await readJson(options.documents, "the documents");
  if (!Array.isArray(json)) throw new Error(`${pathOf(options.documents)} must hold a JSON array of documents`);
  return json;
}

/** A file as an error names it: absolute, since a relative path is relative to where the provider runs. */
function pathOf(file: string | URL): string {
  return resolve(file instanceof URL ? fileURLToPath(file) : file);
}

async function readJson(file: string | URL, what: string): Promise<unknown> {
  const path = pathOf(file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    throw new Error(`cannot read ${what} at ${path}: ${code === "ENOENT" ? "no such file" : (error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} at ${path} is not JSON: ${(error as Error).message}`);
  }
}

/** lunr's tokenizer splits on a global separator: set it for one synchronous call only. */
function withSeparator<T>(separator: RegExp, run: () => T): T {
  const saved = lunr.tokenizer.separator;
  lunr.tokenizer.separator = separator;
  try {
    return run();
  } finally {
    lunr.tokenizer.separator = saved;
  }
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** mkdocs-material stores section text as HTML: a host should get text, not markup that costs tokens. */
export function htmlToText(html: string): string {
  if (!/<[a-z!/][^>]*>|&[#a-z0-9]+;/i.test(html)) return html;
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, "")
    .replace(/<br\s*\/?>|<\/(p|li|h[1-6]|pre|tr|div|blockquote|dt|dd)>/gi, "\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
      if (!name.startsWith("#")) return ENTITIES[name.toLowerCase()] ?? entity;
      const code = /^#x/i.test(name) ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    })
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
