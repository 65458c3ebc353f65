/**
 * From ranked symbols to candidates: each file is read once, checked against the
 * hash the index holds (a file that changed is reported stale, never cited wrong),
 * and each symbol's frame is its head — doc comment and declaration — with larger
 * views of it (the whole definition, sections of its file, the file; views.ts) that
 * the packer ships instead where the ranking is sure. All are the exact lines,
 * terminators kept, so digests verify against the file. Relations name the file, the container, what the content
 * references (the answer's other frames first, then indexed symbols it names
 * unambiguously) and who references it (the answer's other frames first, then files
 * whose text uses its name).
 */
import { join, posix } from "node:path";
import { pathToFileURL } from "node:url";
import type { Candidate, Resolution } from "ocp-provider";
import { RootReader } from "ocp-provider/fs";
import { identHash } from "../extract/bag.js";
import type { FileRow } from "../store/store.js";
import type { Ranked } from "./find.js";
import { GraphCache, type ReferenceGraph } from "./graph.js";
import type { NameEntry, NameTable } from "./name-table.js";
import { type Source, SourceCache } from "./sources.js";
import { focusOf, ladderOf, Outline, type Span, spanOf, type View, type ViewLimits } from "./views.js";

export { lineStarts } from "./sources.js";

/** Limits on what frames hold. */
export interface ContentLimits extends ViewLimits {
  /** Most `references` relations per frame. */
  readonly maxReferences: number;
}

/** What {@link buildCandidates} made. */
export interface BuiltCandidates {
  readonly candidates: Candidate[];
  /** Files whose bytes no longer match the index (changed or deleted since): re-index, then ask again. */
  readonly stale: string[];
  /** Symbols left out because they start on an over-long line. */
  readonly skipped: number;
}

const IDENTIFIER = /[\p{L}_$][\p{L}\p{N}_$]{2,}/gu;
/** Beyond this many definitions of one name, a textual reference to it is not resolved. */
const MAX_HOMONYMS = 32;
/** References are looked for in this much of a frame's content. */
const MAX_REFERENCE_SCAN = 4096;

/** The one symbol `name` most plausibly means from `from`: unique in its file, else in its directory, else among exported ones. */
function resolveName(table: NameTable, name: string, from: NameEntry, fromPath: string): NameEntry | undefined {
  const own = from.qualifiedKey;
  const named = table.named(name);
  // A name defined in dozens of places (`options`, `value`) names nothing in particular.
  if (named.length === 0 || named.length > MAX_HOMONYMS) return undefined;
  const options = named.filter(
    (entry) =>
      entry !== from &&
      entry.kind !== "constructor" &&
      entry.containerKey !== own &&
      !entry.containerKey?.startsWith(`${own}.`),
  );
  if (options.length === 0) return undefined;
  const sameFile = options.filter((entry) => entry.fileId === from.fileId);
  if (sameFile.length === 1) return sameFile[0];
  if (sameFile.length > 1) return undefined;
  const dir = posix.dirname(fromPath);
  const sameDir = options.filter((entry) => posix.dirname(table.file(entry.fileId)?.path ?? "") === dir);
  if (sameDir.length === 1) return sameDir[0];
  const exported = options.filter((entry) => entry.exported);
  return sameDir.length === 0 && exported.length === 1 ? exported[0] : undefined;
}

/** The container of a member: in its file, else (a Go receiver, a Rust impl) in its directory. */
function containerOf(table: NameTable, entry: NameEntry, path: string): NameEntry | undefined {
  if (entry.container === undefined) return undefined;
  const inFile = table.entriesOf(entry.fileId).find((other) => other.qualifiedName === entry.container);
  if (inFile !== undefined) return inFile;
  const last = entry.container.split(/\.|::/).pop() ?? "";
  const dir = posix.dirname(path);
  return table
    .named(last)
    .find((other) => other.containerKey === undefined && posix.dirname(table.file(other.fileId)?.path ?? "") === dir);
}

/** A candidate on its way out: what its relations are made from. */
interface Shipped {
  readonly entry: NameEntry;
  readonly file: FileRow;
  readonly container: NameEntry | undefined;
  /** Distinct identifiers of its content, in order of first use. */
  readonly identifiers: readonly string[];
  readonly relations: NonNullable<Candidate["relations"]>;
}

const describe = (entry: NameEntry) => `${entry.qualifiedName} (${entry.kind})`;

/**
 * Fills the relations of the candidates: `references` for what each one's content names
 * — other candidates of the same answer first, then any symbol the name resolves to
 * (see resolveName) — and `referenced-by` for who names it: candidates of the same
 * answer first, then other files whose text uses the name (the reference graph's
 * links). Each kind at most `max` per candidate. Names of fewer than three characters,
 * or defined in more than {@link MAX_CALLER_DEFINERS} files, get no callers: they say
 * too little about which definition is meant.
 */
function addReferences(
  shipped: readonly Shipped[],
  table: NameTable,
  graph: ReferenceGraph,
  max: number,
  symbolUri: (entry: NameEntry, file: FileRow) => string,
  uriOf: (file: FileRow) => string,
): void {
  const byName = new Map<string, number[]>();
  shipped.forEach((item, i) => {
    const same = byName.get(item.entry.name);
    if (same === undefined) byName.set(item.entry.name, [i]);
    else same.push(i);
  });
  const callers = shipped.map(() => [] as number[]);
  for (let i = 0; i < shipped.length; i++) {
    const item = shipped[i] as Shipped;
    const targets = new Set<NameEntry>();
    const add = (target: NameEntry, targetFile: FileRow) => {
      if (targets.size >= max || targets.has(target) || target === item.entry || target === item.container) return;
      targets.add(target);
      item.relations.push({
        rel: "references",
        targetUri: symbolUri(target, targetFile),
        displayName: `${describe(target)} in ${targetFile.path}`,
      });
    };
    // What ships beside it first: the answer's own structure.
    for (const name of item.identifiers) {
      if (name === item.entry.name) continue;
      for (const j of byName.get(name) ?? []) {
        const other = shipped[j] as Shipped;
        if (j === i || other.entry === item.container) continue;
        if (targets.has(other.entry)) continue;
        if (targets.size < max) add(other.entry, other.file);
        if (!callers[j]?.includes(i)) callers[j]?.push(i);
      }
    }
    for (const name of item.identifiers) {
      if (targets.size >= max) break;
      if (name === item.entry.name) continue;
      const target = resolveName(table, name, item.entry, item.file.path);
      const targetFile = target !== undefined ? table.file(target.fileId) : undefined;
      if (target !== undefined && targetFile !== undefined) add(target, targetFile);
    }
  }
  for (let j = 0; j < shipped.length; j++) {
    const item = shipped[j] as Shipped;
    const files = new Set<number>([item.file.id]);
    let count = 0;
    for (const i of callers[j] ?? []) {
      if (count >= max) break;
      const caller = shipped[i] as Shipped;
      count++;
      files.add(caller.file.id);
      item.relations.push({
        rel: "referenced-by",
        targetUri: symbolUri(caller.entry, caller.file),
        displayName: `${describe(caller.entry)} in ${caller.file.path}`,
      });
    }
    const name = item.entry.name;
    if (count >= max || name.length < 3) continue;
    // The graph knows who uses each name it links by, in path order; the first few are enough.
    const named = graph.names.get(identHash(name));
    if (named === undefined || named.files.length > MAX_CALLER_DEFINERS) continue;
    for (const user of named.users) {
      if (count >= max) break;
      const fileId = graph.fileIds[user] as number;
      const file = table.file(fileId);
      if (file === undefined || files.has(fileId) || named.files.includes(user)) continue;
      count++;
      files.add(fileId);
      item.relations.push({ rel: "referenced-by", targetUri: uriOf(file), displayName: file.path });
    }
  }
}

/** A name defined in more files than this gets no `referenced-by` relations from other files. */
const MAX_CALLER_DEFINERS = 3;

/**
 * Outlines of files, kept while their definitions are (the name table replaces a file's
 * list when it is re-indexed): a large file's outline costs more than the rest of a query.
 */
const outlines = new WeakMap<readonly NameEntry[], Outline<NameEntry>>();

/** A ranked definition, with how much of the goal each line of its file holds (prose goals). */
export interface RankedDefinition extends Ranked {
  /** Running sums over the file's lines of the goal's weight they hold: line n's is `[n] - [n-1]`. */
  readonly goalWeights?: Float64Array;
}

/** How much lower a larger view scores than its region, at most: a view holding none of the goal's words scores this share less. */
const VIEW_DILUTION = 0.25;

/** A view's title: the definition first (what the region is about), then what else the view holds. */
function viewTitle(view: View<NameEntry>, entry: NameEntry): string {
  switch (view.kind) {
    case "definition":
      return describe(entry);
    case "container":
      return view.container !== undefined
        ? `${describe(entry)} in ${describe(view.container)}`
        : `${describe(entry)} and around it`;
    case "section":
    case "lines":
      return `${describe(entry)} and around it`;
    case "file":
      return `${describe(entry)} and its whole file`;
  }
}

/**
 * Builds the candidates for `ranked`, in order; stops early if a file turns out stale.
 * Each candidate is a definition's head with its larger views (views.ts): the packer
 * ships one of them, deeper the surer the ranking. With `onePerFile`, a file's later
 * definitions are left out: its first one's views hold them.
 */
export function buildCandidates(
  ranked: readonly RankedDefinition[],
  table: NameTable,
  options: ContentLimits & {
    root: string;
    onePerFile?: boolean;
    sources?: SourceCache;
    graphs?: GraphCache;
  },
): BuiltCandidates {
  const candidates: Candidate[] = [];
  const stale: string[] = [];
  const sources = options.sources ?? new SourceCache(new RootReader(options.root), 0);
  const texts = new Map<number, Source | null>();
  const cited = new Set<number>();
  let skipped = 0;
  const shipped: Shipped[] = [];
  const uriOf = (file: FileRow) => pathToFileURL(join(options.root, file.path)).href;
  const symbolUri = (entry: NameEntry, file: FileRow) => `${uriOf(file)}#L${entry.startLine}-${entry.endLine}`;

  for (const item of ranked) {
    const { score } = item;
    let entry = item.entry;
    const file = table.file(entry.fileId);
    if (file === undefined) continue;
    if (options.onePerFile === true && cited.has(file.id)) continue;
    let source = texts.get(file.id);
    if (source === undefined) {
      source = sources.read(file.path, file);
      texts.set(file.id, source);
      if (source === null) stale.push(file.path);
    }
    if (source === null) continue;
    const lineCount = source.starts.length - 1;
    const entries = table.entriesOf(file.id);
    let outline = outlines.get(entries);
    if (outline === undefined || outline.lineCount !== lineCount) {
      outline = new Outline(entries, lineCount);
      outlines.set(entries, outline);
    }
    const sums = item.goalWeights;
    const weight =
      sums !== undefined ? (span: Span) => (sums[span.end] as number) - (sums[span.start - 1] as number) : undefined;
    if (weight !== undefined) entry = focusOf(entry, outline, source, weight);
    const ladder = ladderOf(entry, outline, source, options, weight);
    if (ladder === undefined) {
      skipped++;
      continue;
    }
    cited.add(file.id);
    const slice = (span: Span) => source.text.slice(source.starts[span.start - 1], source.starts[span.end]);
    const range = ladder.own;
    const content = slice(range);
    const fileWeight = weight?.({ start: 1, end: lineCount }) ?? 0;
    const resolutions: Resolution[] = ladder.views.map((view, k) => ({
      content: slice(view),
      range: { start: view.start, end: view.end },
      // Honest per view: a larger view is the region's, diluted by the share of the file's goal words it misses.
      relevance:
        score *
        (fileWeight > 0 && weight !== undefined
          ? 1 - VIEW_DILUTION * (1 - weight(view) / fileWeight)
          : (1 - VIEW_DILUTION / 4) ** k),
      title: viewTitle(view, entry),
    }));
    const relations: NonNullable<Candidate["relations"]> = [
      { rel: "defined-in", targetUri: uriOf(file), displayName: file.path },
    ];
    const container = containerOf(table, entry, file.path);
    const containerFile = container !== undefined ? table.file(container.fileId) : undefined;
    if (container !== undefined && containerFile !== undefined) {
      relations.push({
        rel: "member-of",
        targetUri: symbolUri(container, containerFile),
        displayName: describe(container),
      });
    }
    // What the definition names, in all its lines (the head alone names little).
    const definition = spanOf(entry, lineCount);
    const scanned = source.text.slice(
      source.starts[definition.start - 1],
      Math.min(
        source.starts[definition.end] as number,
        (source.starts[definition.start - 1] as number) + MAX_REFERENCE_SCAN,
      ),
    );
    const identifiers = [...new Set(scanned.match(IDENTIFIER) ?? [])];
    shipped.push({ entry, file, container, identifiers, relations });
    candidates.push({
      id: `${file.path}#${entry.key}`,
      kind: "symbol",
      title: describe(entry),
      content,
      relevance: score,
      uri: uriOf(file),
      path: file.path,
      range,
      ...(ladder.pointerLine !== undefined ? { pointerLine: ladder.pointerLine } : {}),
      ...(resolutions.length > 0 ? { resolutions } : {}),
      provenance: [{ type: "file", method: file.method }],
      recordedAt: new Date(file.indexedAtMs),
      relations,
    });
  }
  if (shipped.length > 0) {
    const graph = (options.graphs ?? new GraphCache()).of(table);
    addReferences(shipped, table, graph, options.maxReferences, symbolUri, uriOf);
  }
  return { candidates, stale, skipped };
}
