/**
 * A plugin over a lunr search index: the `search_index.json` that mkdocs (and
 * mkdocs-material) build — `{ config, docs: [{ location, title, text }], index? }` —
 * or any serialized lunr index (`lunr.Index#toJSON()`) with its documents beside it.
 *
 * Searching is lunr's own (BM25 with its stemmer and stop words), so the frames rank
 * the way the site's search box does. This file is yours: edit it freely.
 */
import { readFile } from "node:fs/promises";
import lunr from "lunr";
import { type Candidate, definePlugin, type FrameKind, type Plugin } from "ocp-provider";

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
}

/** A plugin answering queries from a lunr index (see the file comment for the formats it reads). */
export function lunrIndex(options: LunrIndexOptions): Plugin {
  const fields = { ref: "location", title: "title", content: "text", ...options.fields };
  const limit = options.limit ?? 50;
  let loaded: Loaded | undefined;

  return definePlugin({
    name: options.name ?? "search-index",
    kinds: [options.kind ?? "doc"],
    scores: "unbounded", // lunr scores are BM25: any non-negative number
    async setup() {
      loaded = await load(options, fields);
    },
    search(query) {
      if (loaded === undefined) return [];
      const { index, docs, separator } = loaded;
      const terms = withSeparator(separator, () => lunr.tokenizer(query.query_text ?? query.goal));
      if (terms.length === 0) return [];
      // Built, not parsed: a goal such as "fix: title:foo ~2" must not be lunr query syntax.
      const hits = index.query((q) => {
        q.term(terms, { boost: 10 });
        q.term(terms, { boost: 1, usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING });
      });
      // Hits whose document is missing or empty are never offered, so they are not "omitted" either.
      const usable = hits.filter((hit) => (docs.get(hit.ref)?.text.trim() ?? "") !== "");
      const candidates = usable
        .slice(0, limit)
        .map((hit) => toCandidate(docs.get(hit.ref) as Doc, hit.score, docs, options.baseUrl));
      return { candidates, omitted: usable.length - candidates.length };
    },
  });
}

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
    return { index: lunr.Index.load(serialized), docs, separator };
  }
  if (!mkdocs) throw new Error(`${String(options.file)} is neither mkdocs' search_index.json nor a lunr index`);
  // mkdocs without `prebuild_index`: build the index the way mkdocs' own search worker does.
  const index = withSeparator(separator, () =>
    lunr(function () {
      this.ref("ref");
      this.field("title", { boost: 10 });
      this.field("text");
      for (const doc of docs.values()) this.add(doc);
    }),
  );
  return { index, docs, separator };
}

async function documentsOf(options: LunrIndexOptions): Promise<unknown[]> {
  if (options.documents === undefined) {
    throw new Error("a bare lunr index holds no text: pass `documents` (the documents it was built from)");
  }
  if (Array.isArray(options.documents)) return options.documents;
  const json = await readJson(options.documents, "the documents");
  if (!Array.isArray(json)) throw new Error(`${String(options.documents)} must hold a JSON array of documents`);
  return json;
}

async function readJson(file: string | URL, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new Error(`cannot read ${what} at ${String(file)}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} at ${String(file)} is not JSON: ${(error as Error).message}`);
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
