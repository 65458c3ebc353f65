/**
 * A provider over a folder of Markdown: each heading starts a section, and a
 * section scores by how many of the goal's words it contains (its heading counts
 * double). Files are read and split once; a watcher drops that index whenever
 * anything under the served paths changes, so answers never go stale. By default it serves this repository's README.md and docs/; set
 * OCP_DOCS to a comma-separated list of files and folders to serve others. Every file is read
 * through the root-confined reader (`ocp-provider/fs`): a symlink, or a file reached through a
 * linked directory that leaves its folder, is skipped with a warning, never served.
 *
 *   ocp serve examples/docs-provider.ts          # what a host spawns (stdio)
 *   ocp query examples/docs-provider.ts "how do plugins report errors?"
 */
import { type FSWatcher, realpathSync, watch } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Candidate, definePlugin, defineProvider, type Logger } from "ocp-provider";
import { isFileRefused, RootReader } from "ocp-provider/fs";

// Real paths throughout: files are read (and cited) by their folders' real paths.
const repo = realpathSync(fileURLToPath(new URL("..", import.meta.url)));
const roots = (process.env.OCP_DOCS ?? `${join(repo, "README.md")},${join(repo, "docs")}`)
  .split(",")
  .map((p) => resolve(p));
const STOP = new Set(
  "a an and are as at be by do does for from how i in is it of on or that the this to what when where which who why with".split(
    " ",
  ),
);

/** Lower-case words of two or more letters, minus stop-words. */
function words(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? []).filter((word) => !STOP.has(word)));
}

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

interface Section {
  file: string;
  heading: string;
  text: string;
  start: number;
  end: number;
}

/** A section ready to ship: where it came from, its text and its place in the index. */
interface Indexed extends Section {
  uri: string;
  /** Its lines, made once: candidates may share such parts, the framework copies what it ships. */
  range: { start: number; end: number };
}

/** Every section's provenance: read from a file, split at headings. */
const PROVENANCE: Candidate["provenance"] = [{ type: "file", method: "markdown-sections" }];

/**
 * The sections, and for each word the sections holding it with its weight there (1 in
 * the body, one more in the heading): a query reads only the postings of its own words.
 */
interface Index {
  sections: Indexed[];
  postings: Map<string, number[]>;
  /** Per-section hit counts of the query being scored: reused, since search() never yields mid-scoring. */
  hits: Uint16Array;
}

/** Reads, splits and word-indexes every file; what the search reads until a file changes. */
async function buildIndex(log: Logger): Promise<Index> {
  const found = (await Promise.all(roots.map(markdownFiles))).flat();
  const sectionsFound: Indexed[] = [];
  const postings = new Map<string, number[]>();
  for (const { reader, file: name } of found) {
    const source = await readMarkdown(reader, name, log);
    const file = join(reader.root, name);
    const uri = pathToFileURL(file).href;
    for (const section of sections(file, source)) {
      const at = sectionsFound.push({ ...section, uri, range: { start: section.start, end: section.end } }) - 1;
      const body = words(section.text);
      const heading = words(section.heading);
      for (const word of new Set([...body, ...heading])) {
        const weight = (body.has(word) ? 1 : 0) + (heading.has(word) ? 1 : 0);
        const list = postings.get(word);
        if (list === undefined) postings.set(word, [at, weight]);
        else list.push(at, weight);
      }
    }
  }
  return { sections: sectionsFound, postings, hits: new Uint16Array(sectionsFound.length) };
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
function sections(file: string, source: string): Section[] {
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

/** The sections holding the most of the wanted words, best first; the others are counted as omitted. */
function rank({ sections: all, postings, hits }: Index, wanted: string[], maxFrames: number) {
  for (const word of wanted) {
    const list = postings.get(word);
    if (list === undefined) continue;
    for (let i = 0; i < list.length; i += 2) {
      const at = list[i] as number;
      hits[at] = (hits[at] as number) + (list[i + 1] as number);
    }
  }
  // The best few are enough to fill any budget; the others are reported, not shipped.
  // One pass keeps them best-first, ties in index order (file order, then position).
  const keep = Math.max(8, 3 * maxFrames);
  const best: number[] = [];
  let matched = 0;
  for (let at = 0; at < all.length; at++) {
    const score = hits[at] as number;
    if (score === 0) continue;
    matched++;
    if (best.length === keep && score <= (hits[best[keep - 1] as number] as number)) continue;
    let slot = best.length === keep ? keep - 1 : best.length;
    while (slot > 0 && (hits[best[slot - 1] as number] as number) < score) {
      best[slot] = best[slot - 1] as number;
      slot--;
    }
    best[slot] = at;
  }
  const candidates: Candidate[] = best.map((at) => {
    const section = all[at] as Indexed;
    return {
      content: section.text,
      relevance: (hits[at] as number) / (2 * wanted.length),
      title: section.heading,
      uri: section.uri,
      range: section.range,
      provenance: PROVENANCE,
    };
  });
  hits.fill(0);
  return { candidates, omitted: matched - candidates.length };
}

const markdown = definePlugin({
  name: "markdown",
  kinds: ["doc"],
  setup() {
    for (const root of roots) {
      try {
        watchers.push(watch(root, { recursive: true, persistent: false }, forgetIndex));
      } catch {
        // A root that does not exist (yet) is simply not served.
      }
    }
  },
  search(query, { log }) {
    const wanted = [...words(`${query.goal} ${query.query_text ?? ""}`)];
    if (wanted.length === 0) return [];
    // Synchronous once the index is built: the framework then answers without a promise.
    if (index !== undefined) return rank(index, wanted, query.max_frames);
    return loadIndex(log).then((built) => rank(built, wanted, query.max_frames));
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
