/**
 * From ranked symbols to candidates: each file is read once, checked against the
 * hash the index holds (a file that changed is reported stale, never cited wrong),
 * and each symbol's frame is its doc comment, signature and body — the exact lines,
 * terminators kept, so the digest verifies against the file and the packer can cut
 * at any line — up to a cap. Relations name the file, the container and, where the
 * content names other indexed symbols unambiguously, what it references.
 */
import { join, posix } from "node:path";
import { pathToFileURL } from "node:url";
import type { Candidate } from "ocp-provider";
import { RootReader } from "ocp-provider/fs";
import type { FileRow } from "../store/store.js";
import type { Ranked } from "./find.js";
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

/** Builds the candidates for `ranked`, in order; stops early if a file turns out stale. */
export function buildCandidates(
  ranked: readonly Ranked[],
  table: NameTable,
  options: ContentLimits & { root: string; sources?: SourceCache },
): BuiltCandidates {
  const candidates: Candidate[] = [];
  const stale: string[] = [];
  const sources = options.sources ?? new SourceCache(new RootReader(options.root), 0);
  const texts = new Map<number, Source | null>();
  let skipped = 0;
  const uriOf = (file: FileRow) => pathToFileURL(join(options.root, file.path)).href;
  const symbolUri = (entry: NameEntry, file: FileRow) => `${uriOf(file)}#L${entry.startLine}-${entry.endLine}`;
  const describe = (entry: NameEntry) => `${entry.qualifiedName} (${entry.kind})`;

  for (const { entry, score } of ranked) {
    const file = table.file(entry.fileId);
    if (file === undefined) continue;
    let source = texts.get(file.id);
    if (source === undefined) {
      source = sources.read(file.path, file);
      texts.set(file.id, source);
      if (source === null) stale.push(file.path);
    }
    if (source === null) continue;
    const range = contentRange(source.starts, source.text, entry, options);
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
    const seen = new Set([entry.name]);
    let references = 0;
    for (const [name] of content.slice(0, MAX_REFERENCE_SCAN).matchAll(IDENTIFIER)) {
      if (references >= options.maxReferences) break;
      if (seen.has(name)) continue;
      seen.add(name);
      const target = resolveName(table, name, entry, file.path);
      const targetFile = target !== undefined ? table.file(target.fileId) : undefined;
      if (target === undefined || targetFile === undefined || target === container) continue;
      references++;
      relations.push({
        rel: "references",
        targetUri: symbolUri(target, targetFile),
        displayName: `${describe(target)} in ${targetFile.path}`,
      });
    }
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
  return { candidates, stale, skipped };
}
