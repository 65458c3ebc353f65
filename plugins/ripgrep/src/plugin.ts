/**
 * The ripgrep plugin: the code snippets most relevant to a goal, found with real
 * ripgrep, ranked, and cited by file and line range.
 */
import { createRequire } from "node:module";
import { type ContextQuery, definePlugin, type Plugin, type SearchContext, type SearchOutput } from "ocp-provider";
import { RootReader } from "ocp-provider/fs";
import { type Anchors, parseAnchors } from "./anchors.js";
import { RgJsonCollector } from "./collect.js";
import { confirmSnippets } from "./confirm.js";
import { type LineSlab, LineSlabPool } from "./line-table.js";
import { type ResolvedOptions, type RipgrepOptions, resolveOptions } from "./options.js";
import { searchArgs } from "./rg-args.js";
import { findRipgrep } from "./rg-binary.js";
import { runRipgrep } from "./rg-run.js";
import { RgJsonStream } from "./rg-stream.js";
import { type ReleaseSlot, SearchSlots } from "./search-slots.js";
import { buildSnippets } from "./snippets.js";
import { queryTerms, type Term } from "./terms.js";
import { TermStats } from "./weights.js";
import { budgetWindowLines } from "./windows.js";

/** This package's version. */
export const PACKAGE_VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;

/**
 * The largest line slab kept for the next search (rows and text): the bench's semver search
 * over node_modules grows one to ~2.4 MB; one that needed more gives its slab back to the GC.
 */
const MAX_POOLED_SLAB_BYTES = 32 * 1024 * 1024;

/** Files up to this size are read whole for their snippets' larger views; larger ones offer none. */
const VIEW_FILE_MAX_BYTES = 512 * 1024;
/** The span holding a snippet and another window of its file is a view when it has at most this many lines. */
const FOLD_LINES = 60;
/** The whole file is a view of its best snippet when it has at most this many lines. */
const WHOLE_FILE_LINES = 600;
/**
 * No view is longer than this many UTF-16 units per token of the budget: code runs 3–5
 * units a token, so a longer view could never ship, and the packer need not count it.
 */
const VIEW_UNITS_PER_TOKEN = 8;

/** Time kept back from the framework's deadline for ranking and packing after rg stops. */
const RANKING_RESERVE_MS = 250;

/** The text a query is searched by: `query_text` when it has any, else `goal`. */
export function searchText(query: Pick<ContextQuery, "goal" | "query_text">): string {
  return query.query_text !== undefined && query.query_text.trim() !== "" ? query.query_text : query.goal;
}

/** The rg command line the plugin runs for a query text: for benchmarks and debugging. */
export function describeSearch(options: RipgrepOptions, text: string): { cwd: string; args: string[] } {
  const resolved = resolveOptions(options);
  return { cwd: resolved.root, args: searchArgs(queryTerms(text), resolved) };
}

/** What a query becomes before it waits for a search slot: small, whatever the query's size. */
interface SearchPlan {
  readonly terms: readonly Term[];
  readonly anchors: Anchors;
  readonly maxCandidates: number;
  /** The query's budget: windows are sized to it (budgetWindowLines), and views too. */
  readonly maxTokens: number;
  /** The query's max_frames: the packer's field, the snippets that get larger views. */
  readonly maxFrames: number;
}

/**
 * Runs one planned search once `slot` is granted. The slot is held while rg runs
 * (runRipgrep settles only once rg has exited) and given back before ranking, so at
 * most `maxConcurrentSearches` rg processes are ever alive.
 */
async function search(
  options: ResolvedOptions,
  reader: RootReader,
  binary: () => Promise<string>,
  slabs: LineSlabPool,
  slot: Promise<ReleaseSlot>,
  plan: SearchPlan,
  ctx: SearchContext,
): Promise<SearchOutput> {
  const queued = performance.now();
  const release = await slot;
  const waited = Math.round(performance.now() - queued);
  // The lines of this search live in the slab until its snippets are built; then it serves the next search.
  const slab = slabs.acquire();
  try {
    return await searchWith(options, reader, binary, slab, release, waited, plan, ctx);
  } finally {
    slabs.release(slab);
  }
}

/** {@link search} once its slot is granted: rg, then ranking; `release` gives the slot back when rg is gone. */
async function searchWith(
  options: ResolvedOptions,
  reader: RootReader,
  binary: () => Promise<string>,
  slab: LineSlab,
  release: ReleaseSlot,
  waited: number,
  plan: SearchPlan,
  ctx: SearchContext,
): Promise<SearchOutput> {
  const { terms, anchors } = plan;
  // Term statistics over every file rg reports; the same numbers choose the files kept under the match cap.
  const stats = new TermStats(terms);
  const collector = new RgJsonCollector({
    maxLineBytes: options.maxLineBytes,
    maxMatches: options.maxMatches,
    score: (file) => stats.observe(file),
    slab,
  });
  const stream = new RgJsonStream(collector);
  const started = performance.now();
  let run: Awaited<ReturnType<typeof runRipgrep>>;
  try {
    // The framework's deadline covers the wait too, with room for a whole search after the longest wait.
    const timeoutMs = Math.max(1, Math.min(options.timeoutMs, ctx.deadline - Date.now() - RANKING_RESERVE_MS));
    run = await runRipgrep({
      rgPath: await binary(),
      args: searchArgs(terms, options),
      cwd: options.root,
      signal: ctx.signal,
      timeoutMs,
      onStdout: (chunk) => stream.write(chunk),
    });
  } finally {
    release();
  }
  const elapsed = Math.round(performance.now() - started);
  if (run.exitCode === 2) {
    // rg exits 2 for any error, also an unreadable file among thousands it did search.
    if (collector.files.length === 0 && run.stderr !== "") throw new Error(`ripgrep failed: ${run.stderr}`);
    if (run.stderr !== "") ctx.log.debug(`ripgrep reported: ${run.stderr.split("\n")[0]}`);
  }
  if (run.ended === "timeout") {
    ctx.log.warn(`search stopped after ${elapsed} ms (timeout); ranking the ${collector.files.length} files read`);
  }
  if (collector.dropped > 0) ctx.log.debug(`${collector.dropped} weaker file(s) dropped at the match cap (maxMatches)`);
  if (collector.malformed > 0) ctx.log.warn(`${collector.malformed} line(s) of rg output were not understood`);
  if (collector.binary > 0) ctx.log.debug(`${collector.binary} file(s) skipped as binary after rg reported matches`);
  if (anchors.outside > 0) ctx.log.debug(`${anchors.outside} anchor(s) outside the root ignored`);
  const snippets = buildSnippets(
    collector.files,
    terms,
    anchors,
    {
      root: options.root,
      contextLines: options.contextLines,
      maxSnippetLines: budgetWindowLines(plan.maxTokens, options.maxSnippetLines),
      perFileMaxSnippets: options.perFileMaxSnippets,
      maxCandidates: plan.maxCandidates,
    },
    stats,
  );
  // What ships is the root's own file, whatever rg opened: see confirm.ts.
  const { candidates } = confirmSnippets(snippets, reader, options.maxLineBytes, ctx.log, {
    deep: plan.maxFrames,
    maxFileBytes: VIEW_FILE_MAX_BYTES,
    foldLines: FOLD_LINES,
    wholeFileLines: WHOLE_FILE_LINES,
    maxUnits: VIEW_UNITS_PER_TOKEN * plan.maxTokens,
  });
  const { omitted } = snippets;
  ctx.log.debug(
    `${terms.length} terms, ${collector.matches} matching lines in ${collector.files.length} files, ` +
      `${candidates.length} snippets, ${elapsed} ms in rg after ${waited} ms waiting for a slot`,
  );
  // A search cut short left matches unseen: at least one more, so the result says truncated.
  // Files dropped at the match cap had matches too: each counts as omitted.
  return { candidates, omitted: omitted + collector.dropped + (run.ended === "exit" ? 0 : 1) };
}

/**
 * The ripgrep plugin: snippets of kind `snippet` for a query's `query_text` (else
 * its `goal`), from files under `root` only. Options are checked now; the rg binary
 * is found in `setup()`, after the handshake.
 */
export function ripgrep(options: RipgrepOptions): Plugin {
  const resolved = resolveOptions(options);
  const reader = new RootReader(resolved.root);
  let rgPath: Promise<string> | undefined;
  const binary = () => {
    rgPath ??= findRipgrep({ rgPath: resolved.rgPath }).then((found) => found.path);
    return rgPath;
  };
  const slabs = new LineSlabPool({ keep: resolved.maxConcurrentSearches, maxBytes: MAX_POOLED_SLAB_BYTES });
  const slots = new SearchSlots({
    concurrency: resolved.maxConcurrentSearches,
    maxQueued: resolved.maxQueuedSearches,
    maxWaitMs: resolved.queueTimeoutMs,
    label: `plugin '${resolved.name}'`,
  });
  return definePlugin({
    name: resolved.name,
    version: PACKAGE_VERSION,
    kinds: ["snippet"],
    core: "^0.1",
    scores: "unit",
    // The plugin refuses a query that waited queueTimeoutMs, stops rg itself at timeoutMs and
    // ranks what it has; the framework's bound covers both and is only the backstop.
    timeoutMs: resolved.queueTimeoutMs + resolved.timeoutMs + 2 * RANKING_RESERVE_MS + 1000,
    async setup() {
      await binary();
    },
    search(query, ctx) {
      const terms = queryTerms(searchText(query));
      if (terms.length === 0) {
        ctx.log.debug("nothing to search for: the query holds only stop-words");
        return [];
      }
      const plan: SearchPlan = {
        terms,
        anchors: parseAnchors(query.anchors, [resolved.configuredRoot, resolved.root]),
        // Beyond a few times max_frames nothing more would ship; their count still reaches the host as omitted.
        maxCandidates: Math.min(1000, Math.max(20, query.max_frames * 4)),
        maxTokens: query.max_tokens,
        maxFrames: query.max_frames,
      };
      // Taken before anything is awaited, so queries get slots in the order they arrived.
      // ctx.signal is made on first read: a query refused or served at once never needs one here.
      return search(
        resolved,
        reader,
        binary,
        slabs,
        slots.acquire(() => ctx.signal),
        plan,
        ctx,
      );
    },
  });
}
