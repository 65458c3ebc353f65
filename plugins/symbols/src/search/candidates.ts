/**
 * From ranked symbols to candidates: each file is read once, checked against the
 * hash the index holds (a file that changed is reported stale, never cited wrong),
 * and each symbol's frame is its doc comment, signature and body — the exact lines,
 * terminators kept, so the digest verifies against the file and the packer can cut
 * at any line — up to a cap. Relations name the file, the container, what the content
 * references (the answer's other frames first, then indexed symbols it names
 * unambiguously) and who references it (the answer's other frames first, then files
 * whose text uses its name).
 */
import { join, posix } from "node:path";
import { pathToFileURL } from "node:url";
import type { Candidate } from "ocp-provider";
import { RootReader } from "ocp-provider/fs";
import { identHash } from "../extract/bag.js";
import type { FileRow } from "../store/store.js";
import type { PlannedFrame } from "./answer.js";
import type { Ranked } from "./find.js";
import { GraphCache, type ReferenceGraph } from "./graph.js";
import type { NameEntry, NameTable } from "./name-table.js";
import { type Source, SourceCache } from "./sources.js";

export { lineStarts } from "./sources.js";

/** Limits on what one frame holds. */
export interface ContentLimits {
  /** Most lines in one frame: the doc, the signature and the start of the body. */
  readonly maxContentLines: number;
  /** Most bytes in one frame; the first line always ships whole. */
  readonly maxContentBytes: number;
  /** A longer line (minified code) ends the frame before it; a symbol starting on one is not shipped. */
  readonly maxLineBytes: number;
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

/**
 * The lines a symbol's frame holds: from its doc comment (or first line) to its end,
 * cut at `limits`. Undefined when its first line is over `maxLineBytes`.
 */
export function contentRange(
  starts: readonly number[],
  text: string,
  symbol: { startLine: number; endLine: number; docStartLine?: number },
  limits: Pick<ContentLimits, "maxContentLines" | "maxContentBytes" | "maxLineBytes">,
): { start: number; end: number } | undefined {
  const lineCount = starts.length - 1;
  const start = Math.max(1, Math.min(symbol.docStartLine ?? symbol.startLine, symbol.startLine));
  const last = Math.min(symbol.endLine, lineCount, start + limits.maxContentLines - 1);
  if (start > last) return undefined;
  let bytes = 0;
  let end = start - 1;
  for (let line = start; line <= last; line++) {
    const size = Buffer.byteLength(text.slice(starts[line - 1], starts[line]));
    if (size > limits.maxLineBytes) break;
    if (line > start && bytes + size > limits.maxContentBytes) break;
    bytes += size;
    end = line;
  }
  return end >= start ? { start, end } : undefined;
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

/** Builds the candidates for `ranked`, in order; stops early if a file turns out stale. */
export function buildCandidates(
  ranked: readonly (Ranked | PlannedFrame)[],
  table: NameTable,
  options: ContentLimits & { root: string; sources?: SourceCache; graphs?: GraphCache },
): BuiltCandidates {
  const candidates: Candidate[] = [];
  const stale: string[] = [];
  const sources = options.sources ?? new SourceCache(new RootReader(options.root), 0);
  const texts = new Map<number, Source | null>();
  let skipped = 0;
  const shipped: Shipped[] = [];
  const uriOf = (file: FileRow) => pathToFileURL(join(options.root, file.path)).href;
  const symbolUri = (entry: NameEntry, file: FileRow) => `${uriOf(file)}#L${entry.startLine}-${entry.endLine}`;

  for (const item of ranked) {
    const { entry, score } = item;
    const file = table.file(entry.fileId);
    if (file === undefined) continue;
    let source = texts.get(file.id);
    if (source === undefined) {
      source = sources.read(file.path, file);
      texts.set(file.id, source);
      if (source === null) stale.push(file.path);
    }
    if (source === null) continue;
    // A planned frame ships the lines its share allows (still within the limits); else doc comment to end.
    const lines = "lines" in item ? item.lines : undefined;
    const range = contentRange(
      source.starts,
      source.text,
      lines !== undefined ? { startLine: lines.start, endLine: lines.end } : entry,
      options,
    );
    if (range === undefined) {
      skipped++;
      continue;
    }
    const content = source.text.slice(source.starts[range.start - 1], source.starts[range.end]);
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
    const identifiers = [...new Set(content.slice(0, MAX_REFERENCE_SCAN).match(IDENTIFIER) ?? [])];
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
