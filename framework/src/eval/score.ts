/**
 * Scoring what shipped: which gold entries each frame cites, and the metrics of one
 * answer (file recall, hit, MRR, nDCG). Pure functions over shipped lists, so the
 * arithmetic is tested on hand-built answers.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContextFrame } from "../wire/schemas.js";

/** One place a frame points to: a path under the root, a foreign URI, a line range. */
export interface FrameRef {
  /** Relative to the root, `/`-separated, when the reference is a file under it. */
  readonly path?: string;
  /** The URI as written (without its fragment), when it is not a file under the root. */
  readonly uri?: string;
  /** The URI's fragment, without `#`. */
  readonly fragment?: string;
  /** Lines [start, end], 1-based, inclusive, when known. */
  readonly lines?: readonly [number, number];
}

/** A gold entry, parsed: a path (optionally `#Lstart-end` or `#fragment`) or a foreign URI. */
export interface Gold {
  /** The entry as written. */
  readonly text: string;
  readonly path?: string;
  readonly uri?: string;
  readonly fragment?: string;
  readonly lines?: readonly [number, number];
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** `L12-40`, `L7`, `12-40` → [12, 40]. */
export function parseLines(text: string | undefined): [number, number] | undefined {
  const match = /^L?(\d+)(?:-L?(\d+))?$/.exec(text ?? "");
  if (match === null) return undefined;
  const start = Number(match[1]);
  const end = match[2] === undefined ? start : Number(match[2]);
  return end >= start ? [start, end] : undefined;
}

function splitFragment(text: string): [string, string | undefined] {
  const hash = text.indexOf("#");
  return hash < 0 ? [text, undefined] : [text.slice(0, hash), text.slice(hash + 1)];
}

/** A path inside `roots` as a relative, `/`-separated path; undefined when it lies outside. */
function underRoot(path: string, roots: readonly string[]): string | undefined {
  for (const root of roots) {
    const rel = relative(root, path);
    if (rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel)) return rel.split(sep).join("/");
  }
  return undefined;
}

/** Reads a URI or path into a reference relative to `roots` (the root as configured and as resolved). */
export function readRef(text: string, roots: readonly string[], range?: string): FrameRef | undefined {
  const [base, fragment] = splitFragment(text);
  const lines = parseLines(range) ?? parseLines(fragment);
  if (/^file:/i.test(base)) {
    let path: string;
    try {
      path = fileURLToPath(base);
    } catch {
      return undefined;
    }
    const rel = underRoot(path, roots);
    return rel === undefined ? { uri: base, fragment, lines } : { path: rel, fragment, lines };
  }
  if (SCHEME.test(base)) return { uri: base, fragment, lines };
  if (base === "") return undefined;
  const rel = isAbsolute(base) ? underRoot(base, roots) : normalize(base).split(sep).join("/");
  if (rel === undefined || rel.startsWith("../")) return undefined;
  return { path: rel, fragment, lines };
}

/**
 * Every place `frame` cites: its `uri`, each provenance entry's `uri` (with its range),
 * and — only when none of those names a file under the root — its `citation_label` read
 * as a relative path (`src/a.ts L3-9`), if that file exists.
 */
export function frameRefs(frame: ContextFrame, roots: readonly string[]): FrameRef[] {
  const refs: FrameRef[] = [];
  if (frame.uri !== undefined) {
    const ref = readRef(frame.uri, roots, frame.provenance[0]?.range);
    if (ref !== undefined) refs.push(ref);
  }
  for (const entry of frame.provenance) {
    if (entry.uri === undefined) continue;
    const ref = readRef(entry.uri, roots, entry.range);
    if (ref !== undefined) refs.push(ref);
  }
  if (!refs.some((ref) => ref.path !== undefined) && frame.citation_label !== undefined && roots[0] !== undefined) {
    const match = /^(.*?)(?:\s+L(\d+(?:-\d+)?)|:(\d+(?:-\d+)?))?$/.exec(frame.citation_label.trim());
    const label = match?.[1] ?? "";
    const ref = SCHEME.test(label) ? undefined : readRef(label, roots, match?.[2] ?? match?.[3]);
    const root = roots[0];
    if (ref?.path !== undefined && existsSync(join(root, ref.path)) && statSync(join(root, ref.path)).isFile()) {
      refs.push(ref);
    }
  }
  return refs;
}

/** Parses a gold entry: `src/a.ts`, `docs/x.md#L10-40`, `docs/x.md#section`, `file:///…`, `lunr://doc/3`. */
export function parseGold(text: string, roots: readonly string[]): Gold {
  const ref = readRef(text, roots);
  return { text, ...ref };
}

/** True when `ref` cites `gold`: same file (and overlapping lines or the same fragment, if the gold names one), or the same URI. */
export function cites(ref: FrameRef, gold: Gold): boolean {
  if (gold.path !== undefined) {
    if (ref.path !== gold.path) return false;
    if (gold.lines !== undefined) {
      return ref.lines !== undefined && ref.lines[0] <= gold.lines[1] && gold.lines[0] <= ref.lines[1];
    }
    return gold.fragment === undefined || gold.fragment === "" || ref.fragment === gold.fragment;
  }
  if (gold.uri !== undefined) {
    if (ref.uri !== gold.uri) return false;
    return gold.fragment === undefined || ref.fragment === gold.fragment;
  }
  return false;
}

/** The metrics of one answer. */
export interface Metrics {
  /** Gold entries cited by some shipped frame / gold entries. */
  readonly recall: number;
  /** 1 if any gold entry is cited, else 0. */
  readonly hit: number;
  /** 1 / rank of the first frame citing a gold entry (frames in shipped order), 0 if none does. */
  readonly mrr: number;
  /** Normalized DCG with gain 1 for each frame that cites a gold entry not cited before it. */
  readonly ndcg: number;
}

/**
 * Scores an answer: `cited[i]` is the set of gold indices frame `i` cites, in shipped
 * order. `maxFrames` bounds the ideal ranking nDCG is normalized by.
 */
export function scoreAnswer(cited: readonly ReadonlySet<number>[], goldCount: number, maxFrames: number): Metrics {
  if (goldCount === 0) return { recall: 0, hit: 0, mrr: 0, ndcg: 0 };
  const seen = new Set<number>();
  let firstRank = 0;
  let dcg = 0;
  cited.forEach((set, index) => {
    let fresh = false;
    for (const gold of set) {
      if (!seen.has(gold)) {
        seen.add(gold);
        fresh = true;
      }
    }
    if (set.size > 0 && firstRank === 0) firstRank = index + 1;
    if (fresh) dcg += 1 / Math.log2(index + 2);
  });
  let idcg = 0;
  for (let index = 0; index < Math.min(goldCount, Math.max(1, maxFrames)); index++) idcg += 1 / Math.log2(index + 2);
  return {
    recall: seen.size / goldCount,
    hit: seen.size > 0 ? 1 : 0,
    mrr: firstRank === 0 ? 0 : 1 / firstRank,
    ndcg: dcg / idcg,
  };
}

/** For each shipped frame (its references), the gold indices it cites. */
export function citedGold(frames: readonly (readonly FrameRef[])[], gold: readonly Gold[]): Set<number>[] {
  return frames.map((refs) => {
    const set = new Set<number>();
    gold.forEach((entry, index) => {
      if (refs.some((ref) => cites(ref, entry))) set.add(index);
    });
    return set;
  });
}
