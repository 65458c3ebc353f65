/**
 * Labelled relevance cases: JSONL lines `{ "goal": ..., "gold": [...], "split"?: ... }`,
 * the format `ocp eval --cases` reads, and how a shipped frame is judged against them.
 *
 * A gold entry is either a URI (`https://docs.example.com/deploys/#rolling-back`,
 * matched exactly, fragment included) or a section `path#Heading` (`docs/host.md#Consent`):
 * a frame from that file whose title is that heading. Headings are compared loosely —
 * case, backticks and parenthesised asides such as "(C1, C2, C4)" do not count — so a
 * gold entry survives small edits to the docs it points at.
 */
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Which part of the labelled set a case belongs to: tuned on, or kept out of sight. */
export type Split = "tune" | "held-out";

/** One labelled goal. */
export interface LabelledCase {
  readonly goal: string;
  readonly gold: readonly string[];
  readonly split: Split;
  /** 1-based line in the cases file, for messages. */
  readonly line: number;
}

/** Reads a JSONL cases file; a malformed line is an error naming it (the file is ours, not input). */
export function readCases(file: URL): LabelledCase[] {
  const cases: LabelledCase[] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((text, at) => {
      if (text.trim() === "") return;
      const line = at + 1;
      const parsed = JSON.parse(text) as { goal?: unknown; gold?: unknown; split?: unknown };
      if (typeof parsed.goal !== "string" || !Array.isArray(parsed.gold) || parsed.gold.length === 0) {
        throw new Error(`${fileURLToPath(file)}:${line}: a case needs a goal and a non-empty gold list`);
      }
      const split = parsed.split === "held-out" ? "held-out" : "tune";
      cases.push({ goal: parsed.goal, gold: parsed.gold.map(String), split, line });
    });
  return cases;
}

/** A heading as gold entries name it: lower case, no backticks, no parenthesised asides. */
export function normalizeHeading(heading: string): string {
  return heading
    .replaceAll("`", "")
    .replace(/\s*\([^)]*\)/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

/** What judging needs of a frame (a shipped frame, or a section of the corpus). */
export interface Judged {
  readonly uri?: string;
  readonly title: string;
}

/** The path of a frame's source as gold entries name it: relative to `root` for `file:` URIs, else the URL's path. */
function pathOf(uri: string, root: string): string {
  if (uri.startsWith("file:"))
    return relative(root, fileURLToPath(uri.replace(/#.*$/, "")))
      .split(sep)
      .join("/");
  try {
    return decodeURIComponent(new URL(uri).pathname).replace(/^\//, "");
  } catch {
    return uri.replace(/#.*$/, "");
  }
}

/** Whether a frame is (a part of) a gold entry. Titles such as "Page › Section" are judged by their last part. */
export function matchesGold(frame: Judged, gold: string, root: string): boolean {
  if (frame.uri === undefined) return false;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(gold)) return frame.uri === gold;
  const hash = gold.indexOf("#");
  const path = hash === -1 ? gold : gold.slice(0, hash);
  if (pathOf(frame.uri, root) !== path) return false;
  if (hash === -1) return true;
  const title = frame.title.split(" › ").at(-1) ?? frame.title;
  return normalizeHeading(title) === normalizeHeading(gold.slice(hash + 1));
}

/** The 1-based rank of the first frame that is gold, or undefined when none is. */
export function firstGoldRank(frames: readonly Judged[], gold: readonly string[], root: string): number | undefined {
  const at = frames.findIndex((frame) => gold.some((entry) => matchesGold(frame, entry, root)));
  return at === -1 ? undefined : at + 1;
}

/** Gold entries no section of the corpus answers to any more: reported, and their cases left out of the figures. */
export function staleGold(cases: readonly LabelledCase[], corpus: readonly Judged[], root: string): string[] {
  const stale = new Set<string>();
  for (const labelled of cases) {
    for (const gold of labelled.gold) {
      if (!corpus.some((section) => matchesGold(section, gold, root))) stale.add(gold);
    }
  }
  return [...stale].sort();
}

/** Hit rate and MRR of a set of cases. */
export interface Tally {
  cases: number;
  hits: number;
  reciprocalRanks: number;
}

/** An empty tally. */
export function tally(): Tally {
  return { cases: 0, hits: 0, reciprocalRanks: 0 };
}

/** Adds one case's outcome: the rank of its first gold frame, or undefined for a miss. */
export function count(into: Tally, rank: number | undefined): void {
  into.cases++;
  if (rank === undefined) return;
  into.hits++;
  into.reciprocalRanks += 1 / rank;
}

/** `87.5% (35/40)`. */
export function hitRate(of: Tally): string {
  return of.cases === 0 ? "–" : `${((100 * of.hits) / of.cases).toFixed(1)}% (${of.hits}/${of.cases})`;
}

/** Mean reciprocal rank, 3 decimals. */
export function mrr(of: Tally): string {
  return of.cases === 0 ? "–" : (of.reciprocalRanks / of.cases).toFixed(3);
}
