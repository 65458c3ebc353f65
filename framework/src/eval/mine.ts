/**
 * Mining evaluation cases from a git history: each qualifying commit becomes a case
 * whose goal is its message, whose gold is the source files it changed, and whose
 * tree is its parent (what the code looked like when someone set out to make the change).
 */
import { createHash } from "node:crypto";
import { hasUnsafeDisplayText } from "../provider/display-text.js";
import { ERROR_CODES, OcpError } from "../provider/errors.js";
import { BlobReader, git } from "./git.js";
import { commitHunks, type Hunk } from "./lines.js";
import {
  excludedContent,
  excludedPath,
  filteredMessage,
  GOLD_FILES,
  goalFromMessage,
  heldOut,
  MAX_CHANGED_FILES,
  MAX_GOLD_BYTES,
} from "./rules.js";

/** One evaluation case. */
export interface EvalCase {
  /** A short, stable name: the commit id's first 12 digits, or `case-N` for labelled cases. */
  readonly id: string;
  /** The goal sent to the provider. */
  readonly goal: string;
  /** Paths relative to the root (or URIs, for labelled cases) a frame should cite. */
  readonly gold: readonly string[];
  /** In the held-out third: not to be tuned against. */
  readonly heldOut: boolean;
  /** The commit the case comes from (mined cases). */
  readonly commit?: string;
  /** The tree it is asked over: the commit's parent (mined cases). */
  readonly parent?: string;
  /** The lines the commit changed in its gold files, at the parent's line numbers (mined cases). */
  readonly hunks?: readonly Hunk[];
}

/** How cases are chosen from the qualifying commits. */
export interface MineOptions {
  /** The revision whose history is mined. Default `HEAD`. */
  rev?: string;
  /** How many cases. */
  cases: number;
  /** Without a seed, the most recent qualifying commits; with one, a sample fixed by the seed. */
  seed?: string;
}

/** Counts of what the miner saw, for the report. */
export interface MineStats {
  /** Non-merge commits looked at. */
  scanned: number;
  /** Commits that qualified (before sampling). */
  qualifying: number;
  /** Commits skipped, by reason. */
  skipped: Record<string, number>;
}

interface LogEntry {
  commit: string;
  parents: string[];
  /** The message; undefined when the commit object is too large to read (see {@link MAX_COMMIT_BYTES}). */
  message: string | undefined;
  changes: { status: string; path: string }[];
}

const PAGE = 400;

/** The largest commit object whose message is read: a goal is cut at 1000 characters anyway. */
export const MAX_COMMIT_BYTES = 1024 * 1024;

const HEADER = /^\n?([0-9a-f]{40,64})((?: [0-9a-f]{40,64})*) ?$/;
const STATUS = /^\n?([ACDMRTUXB])\d*$/;

/**
 * Parses one page of `git log -z --name-status --format=%H %P`: each commit is its ids,
 * then a status and a path per changed file, every field ended by NUL. Nothing in it is
 * free text a commit message could forge (the messages are read apart, by object id),
 * and a path cannot hold a NUL.
 */
export function parseLog(text: string): { commit: string; parents: string[]; changes: LogEntry["changes"] }[] {
  const fields = text.split("\0");
  const entries: { commit: string; parents: string[]; changes: LogEntry["changes"] }[] = [];
  let at = 0;
  while (at < fields.length) {
    const field = fields[at++] as string;
    if (field === "" || field === "\n") continue;
    const head = HEADER.exec(field);
    if (head === null)
      throw new OcpError(ERROR_CODES.EVAL, `git log wrote an unexpected field: ${JSON.stringify(field.slice(0, 80))}`);
    const entry = {
      commit: head[1] as string,
      parents: (head[2] ?? "").split(" ").filter(Boolean),
      changes: [] as LogEntry["changes"],
    };
    // With --no-renames every status names exactly one path.
    for (let status = STATUS.exec(fields[at] ?? ""); status !== null; status = STATUS.exec(fields[at] ?? "")) {
      entry.changes.push({ status: status[1] as string, path: fields[at + 1] ?? "" });
      at += 2;
    }
    entries.push(entry);
  }
  return entries;
}

/** A commit object's message: what follows its headers, decoded as its `encoding` header says (UTF-8 by default). */
export function commitMessage(raw: Buffer): string {
  const split = raw.indexOf("\n\n");
  const headers = split < 0 ? raw.toString("utf8") : raw.subarray(0, split).toString("utf8");
  const body = split < 0 ? Buffer.alloc(0) : raw.subarray(split + 2);
  const encoding = /^encoding (\S+)$/m.exec(headers)?.[1];
  if (encoding !== undefined) {
    try {
      return new TextDecoder(encoding).decode(body);
    } catch {
      // An encoding Node does not know: read it as UTF-8, as git log would leave it.
    }
  }
  return body.toString("utf8");
}

async function logPage(repo: string, rev: string, skip: number, blobs: BlobReader): Promise<LogEntry[]> {
  const text = await git(repo, [
    "log",
    "-z",
    "--no-merges",
    "--no-renames",
    "--name-status",
    "--format=%H %P",
    `--skip=${skip}`,
    `-n${PAGE}`,
    rev,
    "--",
  ]);
  const entries = parseLog(text);
  // Each message is read from its commit object, whose length git states: no message can run into the next.
  const objects = await Promise.all(entries.map((entry) => blobs.read(entry.commit, MAX_COMMIT_BYTES)));
  return entries.map((entry, index) => {
    const object = objects[index];
    const message = object?.content === undefined ? undefined : commitMessage(object.content).trim();
    return { ...entry, message };
  });
}

/**
 * Why a commit makes no case, or its gold paths. `blobs` reads the parent's files to
 * reject binary, huge, generated or minified gold (a file over the size limit by its
 * size alone, unread).
 */
async function judge(entry: LogEntry, blobs: BlobReader): Promise<{ skip: string } | { gold: string[] }> {
  const [parent] = entry.parents;
  if (parent === undefined) return { skip: "no parent (root commit, or the edge of a shallow clone)" };
  if (entry.message === undefined) return { skip: `message: the commit object is over ${MAX_COMMIT_BYTES} bytes` };
  const message = filteredMessage(entry.message);
  if (message !== undefined) return { skip: `message: ${message.replace(/^subject matches .*/, "filtered subject")}` };
  if (entry.changes.length > MAX_CHANGED_FILES) return { skip: `changes more than ${MAX_CHANGED_FILES} files` };
  const gold: string[] = [];
  for (const { status, path } of entry.changes) {
    // A path that would print as something else (a newline, ESC, a bidi override) makes no case.
    if (hasUnsafeDisplayText(path)) return { skip: "a path with control characters" };
    if (excludedPath(path) !== undefined) continue;
    // The provider sees the parent: a source file the commit adds is not there to be found.
    if (status !== "M" && status !== "D") return { skip: "adds or retypes a source file" };
    gold.push(path);
  }
  if (gold.length < GOLD_FILES.min) return { skip: "changes no source file" };
  if (gold.length > GOLD_FILES.max) return { skip: `changes more than ${GOLD_FILES.max} source files` };
  for (const path of gold) {
    const blob = await blobs.read(`${parent}:${path}`, MAX_GOLD_BYTES);
    if (blob === undefined || blob.type !== "blob") return { skip: "a gold file is not a file in the parent" };
    if (blob.content === undefined) return { skip: "a gold file is larger than 1 MiB" };
    const why = excludedContent(blob.content);
    if (why !== undefined) return { skip: `a gold file is ${why}` };
  }
  return { gold: gold.sort() };
}

const sampleKey = (seed: string, commit: string) => createHash("sha256").update(`${seed}:${commit}`).digest("hex");

/**
 * Mines `options.cases` cases from `repo`'s history, newest first. Deterministic: the
 * same repository, revision, count and seed give the same cases.
 */
export async function mineCases(repo: string, options: MineOptions): Promise<{ cases: EvalCase[]; stats: MineStats }> {
  const rev = options.rev ?? "HEAD";
  const stats: MineStats = { scanned: 0, qualifying: 0, skipped: {} };
  const found: { entry: LogEntry; gold: string[]; order: number }[] = [];
  const blobs = new BlobReader(repo);
  try {
    for (let skip = 0; ; skip += PAGE) {
      const page = await logPage(repo, rev, skip, blobs);
      for (const entry of page) {
        stats.scanned++;
        const verdict = await judge(entry, blobs);
        if ("skip" in verdict) {
          stats.skipped[verdict.skip] = (stats.skipped[verdict.skip] ?? 0) + 1;
          continue;
        }
        stats.qualifying++;
        found.push({ entry, gold: verdict.gold, order: found.length });
        if (options.seed === undefined && found.length >= options.cases) break;
      }
      if (page.length < PAGE || (options.seed === undefined && found.length >= options.cases)) break;
    }
  } finally {
    await blobs.close();
  }
  let chosen = found;
  if (options.seed !== undefined) {
    const seed = options.seed;
    chosen = [...found]
      .sort((a, b) => (sampleKey(seed, a.entry.commit) < sampleKey(seed, b.entry.commit) ? -1 : 1))
      .slice(0, options.cases)
      .sort((a, b) => a.order - b.order);
  }
  const cases: EvalCase[] = [];
  for (const { entry, gold } of chosen) {
    const parent = entry.parents[0] as string;
    cases.push({
      id: entry.commit.slice(0, 12),
      goal: goalFromMessage(entry.message as string),
      gold,
      heldOut: heldOut(entry.commit),
      commit: entry.commit,
      parent,
      hunks: await commitHunks(repo, parent, entry.commit, gold),
    });
  }
  return { cases, stats };
}
