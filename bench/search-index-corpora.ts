/**
 * Real indexes for the search-index adapters, built from two corpora: this repository's
 * docs (README.md and docs/, split at headings by the docs example's own splitter), and
 * the templates' sample pages (the Acme handbook in templates/search-index/*\/data).
 * Each corpus becomes an mkdocs `search_index.json` (lunr), an SQLite FTS5 file and a
 * real HTTP endpoint on loopback (the template's sample endpoint), so the relevance
 * test and benchmark judge every adapter on the same documents.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { markdownSections } from "../examples/docs-provider.js";
import { startSampleEndpoint } from "../templates/search-index/http/test/sample-endpoint.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));

/** One document of a corpus, in the sample data's shape: what every index is built from. */
export interface CorpusDoc {
  title: string;
  body: string;
  url: string;
}

/** Where this repository's docs are "published" in these indexes; gold `docs/x.md#Heading` entries match its paths. */
export const DOCS_BASE = "https://ocp.test/";

/** README.md and docs/**\/*.md, in a stable order. */
function markdownFiles(): string[] {
  const docs = join(REPO, "docs");
  return [
    join(REPO, "README.md"),
    ...readdirSync(docs, { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".md"))
      .map((name) => join(docs, name))
      .sort(),
  ];
}

const pathOf = (file: string) => relative(REPO, file).split(sep).join("/");

/** An anchor as mkdocs makes one: lower case, words joined by hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .trim()
    .replace(/\s+/g, "-");
}

/** This repository's docs, one document per section: title = heading, url = page#anchor. */
export function docsBySection(): CorpusDoc[] {
  return markdownFiles().flatMap((file) =>
    markdownSections(file, readFileSync(file, "utf8")).map((section) => ({
      title: section.heading,
      body: section.text,
      url: `${DOCS_BASE}${pathOf(file)}#${slug(section.heading)}`,
    })),
  );
}

/** This repository's docs, one document per page: title = the page's first heading. */
export function docsByPage(): CorpusDoc[] {
  return markdownFiles().map((file) => {
    const text = readFileSync(file, "utf8");
    return { title: /^#\s+(.*)$/m.exec(text)?.[1] ?? pathOf(file), body: text, url: `${DOCS_BASE}${pathOf(file)}` };
  });
}

/** The sample pages the sqlite and http templates ship (the lunr template ships the same as mkdocs JSON). */
export function samplePages(): CorpusDoc[] {
  const file = new URL("../templates/search-index/sqlite/data/sample-docs.json", import.meta.url);
  return JSON.parse(readFileSync(file, "utf8")) as CorpusDoc[];
}

/** The lunr template's own sample index: mkdocs' search_index.json of the same pages. */
export const SAMPLE_LUNR_INDEX = new URL("../templates/search-index/lunr/data/search_index.json", import.meta.url);
/** The base URL the lunr template serves its sample under. */
export const SAMPLE_BASE = "https://docs.example.com/";

/**
 * Writes `docs` as mkdocs writes `search_index.json` without `prebuild_index` (locations
 * relative to `base`), and returns the file: the lunr adapter builds the index as mkdocs' search does.
 */
export function writeMkdocsIndex(docs: readonly CorpusDoc[], base: string, file: string): string {
  const entries = docs.map((doc) => ({ location: doc.url.slice(base.length), title: doc.title, text: doc.body }));
  writeFileSync(file, JSON.stringify({ config: { lang: ["en"], separator: "[\\s\\-]+" }, docs: entries }));
  return file;
}

/** Writes `docs` into an FTS5 table `pages(title, body, url UNINDEXED)` as the sqlite template's sample script does. */
export function writeFts5(docs: readonly CorpusDoc[], file: string): string {
  const db = new Database(file);
  try {
    db.exec("CREATE VIRTUAL TABLE pages USING fts5(title, body, url UNINDEXED, tokenize = 'porter')");
    const insert = db.prepare("INSERT INTO pages (title, body, url) VALUES (?, ?, ?)");
    db.transaction(() => {
      for (const doc of docs) insert.run(doc.title, doc.body, doc.url);
    })();
  } finally {
    db.close();
  }
  return file;
}

/** The http template's sample endpoint, serving `docs`: a real server on loopback. */
export function startEndpoint(docs: readonly CorpusDoc[]): ReturnType<typeof startSampleEndpoint> {
  return startSampleEndpoint(0, docs);
}

/** Subjects no corpus here covers; the last few stand in for any a corpus turns out to mention. */
const SUBJECTS = [
  "a pizza recipe for a party",
  "the weather on mars",
  "hiking trails near Denver",
  "training a puppy to sit",
  "the lyrics of a Christmas carol",
  "calories in a banana",
  "who won the 1998 football world cup",
  "knitting a wool scarf",
  "cheap flights to Lisbon in May",
  "flu symptoms in toddlers",
  "repotting a cactus",
  "the plot of Hamlet",
  "the euro to yen exchange rate",
  "growing tomatoes on a balcony",
  "the height of Mount Everest",
  "a vegan chocolate cake",
  "cherry blossom season in Kyoto",
  "fixing a flat bicycle tyre",
  "board games for children",
  "what cats like to eat",
  // Stand-ins, in order.
  "tuning an acoustic guitar",
  "planting tulip bulbs in autumn",
  "the best sushi in Osaka",
  "ironing a linen shirt",
  "the migration of monarch butterflies",
];

/** Little words a subject's phrase is read without. */
const LITTLE = new Set("a an and for in of on the to what who".split(" "));

/** A text's words, lower-cased, little words left out: "a pizza recipe for a party" → pizza recipe party. */
const contentWords = (text: string) =>
  (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !LITTLE.has(word));

/**
 * The subjects a corpus mentions: two of a subject's words side by side in one of its
 * documents (docs/eval.md once showed `{"goal": "pizza recipe", ...}` as an example).
 * Such a subject is not off-topic there: the benchmark reports and replaces it, like a
 * stale gold entry; the relevance test requires that the corpora here mention none.
 */
export function subjectsMentioned(docs: readonly CorpusDoc[]): string[] {
  const pairs = new Set<string>();
  for (const doc of docs) {
    const words = contentWords(`${doc.title}\n${doc.body}`);
    for (let i = 1; i < words.length; i++) pairs.add(`${words[i - 1]} ${words[i]}`);
  }
  return SUBJECTS.filter((subject) => {
    const words = contentWords(subject);
    return words.some((word, i) => i > 0 && pairs.has(`${words[i - 1]} ${word}`));
  });
}

/**
 * Goals about nothing the corpus covers, generated from subjects and ways of asking:
 * an adapter must answer every one of them with no frames at all. Subjects the corpus
 * mentions ({@link subjectsMentioned}) are replaced by stand-ins.
 */
export function offTopicGoals(count = 20, docs: readonly CorpusDoc[] = []): string[] {
  const mentioned = new Set(subjectsMentioned(docs));
  const askings = ["{}", "what about {}?", "tell me about {}", "how do I find {}", "I need help with {}"];
  // Each subject keeps its way of asking, whichever others are replaced.
  const goals = SUBJECTS.map((subject, i) => (askings[(i * 7) % askings.length] as string).replace("{}", subject))
    .filter((_, i) => !mentioned.has(SUBJECTS[i] as string))
    .slice(0, count);
  if (goals.length < count) throw new Error(`only ${goals.length} off-topic subjects left for ${count} goals`);
  return goals;
}
