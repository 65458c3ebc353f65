/**
 * The symbols plugin: where a name is defined, what it looks like, and what belongs
 * to it — from an index of every definition under the root, kept fresh as files change.
 */
import { createRequire } from "node:module";
import { parseAnchors } from "ocp-plugin-ripgrep";
import {
  type ContextQuery,
  definePlugin,
  type Logger,
  type Plugin,
  type SearchContext,
  type SearchOutput,
  UserError,
} from "ocp-provider";
import { RootReader } from "ocp-provider/fs";
import { Indexer, type PassStats } from "./index/indexer.js";
import { type ResolvedOptions, resolveOptions, type SymbolsOptions } from "./options.js";
import { rankProse, type SourceReader } from "./search/answer.js";
import { buildCandidates, type RankedDefinition } from "./search/candidates.js";
import { findSymbols } from "./search/find.js";
import { GraphCache } from "./search/graph.js";
import { ProseFields, proseTerms } from "./search/prose.js";
import { SourceCache } from "./search/sources.js";
import { isLookup, queryTerms } from "./search/terms.js";
import { resolveDatabaseFile } from "./store/cache-dir.js";
import { SymbolStore } from "./store/store.js";

/** This package's version. */
export const PACKAGE_VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;

/** Text of cited files kept between queries (UTF-16 units). */
const SOURCE_CACHE_CHARS = 16 * 1024 * 1024;

/** The most candidates one query returns: beyond a few times `max_frames`, nothing more could ship. */
const MAX_CANDIDATES = 200;

/** The share of a search's time limit a query waiting for the first build keeps for ranking and answering. */
const ANSWER_RESERVE = 0.2;

/** For tests (see `IndexerOptions.buildDelayMs`): every file a build parses takes at least this long. */
const BUILD_DELAY_ENV = "OCP_SYMBOLS_TEST_BUILD_DELAY_MS";

/** The text a query is searched by: `query_text` when it has any, else `goal`. */
export function searchText(query: Pick<ContextQuery, "goal" | "query_text">): string {
  return query.query_text !== undefined && query.query_text.trim() !== "" ? query.query_text : query.goal;
}

/**
 * One line on stderr for a pass: `index ready` when it went over the whole tree, else
 * what a pass stopped early (the process ending) saved for the next one to go on from.
 */
export function describePass(stats: PassStats): string {
  const seconds = (stats.ms / 1000).toFixed(1);
  const counts = `${stats.parsed} parsed, ${stats.unchanged} unchanged, ${stats.removed} removed, ${stats.skipped} skipped`;
  if (stats.complete) return `index ready: ${stats.files} files, ${stats.symbols} symbols in ${seconds} s (${counts})`;
  return `${describeStop(stats.files, stats.listed, stats.symbols)} (${seconds} s: ${counts})`;
}

/** What a build stopped early (the process ending) left for the next run. */
function describeStop(files: number, listed: number, symbols: number): string {
  return (
    `index build stopped before it finished: ${files} of ${listed > 0 ? listed : "?"} files (${symbols} symbols) ` +
    "indexed and saved; the next run goes on from there"
  );
}

/** The test hook's delay, when set to a whole number of milliseconds. */
function buildDelayMs(): number {
  const value = Number(process.env[BUILD_DELAY_ENV] ?? 0);
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/** Opens the index for `options` (the cache file, the store, the name table), without building it. */
export function openIndex(options: ResolvedOptions, log: Logger): Indexer {
  const file = resolveDatabaseFile({
    root: options.root,
    configuredRoot: options.configuredRoot,
    cacheDir: options.cacheDir,
    log,
  });
  const store = SymbolStore.open({ file, root: options.root, log });
  return new Indexer({
    root: options.root,
    store,
    hidden: options.hidden,
    maxFileSizeBytes: options.maxFileSizeBytes,
    workers: options.workers,
    watch: options.watch,
    progress: options.progress,
    log,
    buildDelayMs: buildDelayMs(),
  });
}

/**
 * The symbols plugin over `root`: frames of kind `symbol` for the definitions a
 * query names, each with its doc comment, signature and body, and relations to its
 * file, its container and the symbols it references.
 */
export function symbols(options: SymbolsOptions): Plugin {
  const resolved = resolveOptions(options);
  let indexer: Indexer | undefined;
  // Cited files, kept between queries; a racy file found intact is settled so it is not hashed again.
  const sources = new SourceCache(new RootReader(resolved.root), SOURCE_CACHE_CHARS, (file) => indexer?.settle(file));
  let firstBuild: Promise<unknown> | undefined;
  let buildFailure: string | undefined;
  // The kind of the last state line said on stderr during the current pass: each kind once, not once a query.
  let noted: "building" | "checking" | "rechecking" | undefined;
  let pluginLog: Logger | undefined;
  // Derived from the index, kept between queries: field words by file, the reference graph.
  const fields = new ProseFields();
  const graphs = new GraphCache();

  /**
   * During the first build, waits for it as long as the search's time limit allows (less
   * a reserve for answering): a one-shot query or an agent's first call on a small or
   * middling tree then gets the whole answer. A cache a finished build filled answers at
   * once; the pass over it only catches up on changes.
   */
  async function waitForFirstBuild(index: Indexer, deadline: number, signal: AbortSignal): Promise<void> {
    if (index.building === undefined || index.complete || firstBuild === undefined) return;
    const reserve = resolved.timeoutMs * ANSWER_RESERVE;
    const waitMs = Math.min(resolved.firstBuildWaitMs, deadline - Date.now() - reserve);
    if (waitMs <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    let stop = () => {};
    const waited = new Promise<void>((resume) => {
      timer = setTimeout(resume, waitMs);
      stop = () => resume();
      signal.addEventListener("abort", stop, { once: true });
    });
    await Promise.race([firstBuild, waited]);
    clearTimeout(timer);
    signal.removeEventListener("abort", stop);
    signal.throwIfAborted();
  }

  /**
   * Why an answer given now may miss matches, when it may: the first build is not done
   * (what is not indexed yet cannot match), or a pass is re-checking files whose size or
   * mtime changed since the cache was saved (new, edited, or only touched). Said on stderr too.
   */
  function incompleteness(index: Indexer, log: Logger): string | undefined {
    const building = index.building;
    if (building === undefined) {
      noted = undefined;
      return undefined;
    }
    // Said on stderr when the state changes, not at every query: a bench or a batch of queries during one pass
    // would print the same line dozens of times. Each answer still says why it is partial, with counts.
    const note = (kind: NonNullable<typeof noted>, say: () => void) => {
      if (noted !== kind) say();
      noted = kind;
    };
    const { fileCount, symbolCount } = index.table;
    if (!index.complete) {
      const of =
        building.total > 0
          ? `${fileCount} of ${building.total} files indexed`
          : `${fileCount} files indexed, the tree still being listed`;
      note("building", () =>
        log.warn(
          `the index is still being built (${of}): answering from the ${symbolCount} symbols indexed so far, ` +
            "marked truncated, until it is done. `ocp-symbols --index` builds it ahead of time",
        ),
      );
      return `the symbol index is still being built (${of}), so matches in the other files are missing; ask again shortly`;
    }
    const left = building.total > 0 ? building.total - building.done : 0;
    if (left === 0) {
      note("checking", () =>
        log.info("still checking the tree for changes since the cache was written; answering from the cache"),
      );
      return undefined;
    }
    note("rechecking", () =>
      log.info(
        `re-checking ${left} files that may have changed since the cache was written; answering from the cache, ` +
          "marked truncated, until it is done",
      ),
    );
    return `the symbol index is re-checking ${left} files that may have changed since it was saved, so matches in them may be missing or out of date; ask again shortly`;
  }

  async function search(query: ContextQuery, ctx: SearchContext): Promise<SearchOutput> {
    const { log, signal } = ctx;
    const index = indexer;
    if (index === undefined) throw new UserError("the symbol index is not open");
    const text = searchText(query);
    const terms = queryTerms(text);
    const prose = proseTerms(text);
    const anchors = parseAnchors(query.anchors, [resolved.configuredRoot, resolved.root]);
    await waitForFirstBuild(index, ctx.deadline, signal);
    const incomplete = incompleteness(index, log);
    if (index.building === undefined) await index.refresh([...anchors.files]);
    if (buildFailure !== undefined && index.table.symbolCount === 0) {
      throw new UserError(`the symbol index could not be built: ${buildFailure}`);
    }
    const limit = query.max_frames === 0 ? 0 : Math.min(MAX_CANDIDATES, Math.max(16, query.max_frames * 2));
    for (let attempt = 0; ; attempt++) {
      signal.throwIfAborted();
      const table = index.table;
      const read: SourceReader = (fileId) => {
        const file = table.file(fileId);
        return file !== undefined ? sources.read(file.path, file) : null;
      };
      // A lookup ("parseConfig", "Config.retry") goes by the match tiers; prose by words and structure.
      let ranked: readonly RankedDefinition[] = [];
      let prosed = false;
      let stale: string[] = [];
      let matched = 0;
      if (!isLookup(terms) && prose.length > 0 && limit > 0) {
        const answer = rankProse({
          table,
          terms: prose,
          names: terms.names.map((name) => name.qualified?.text ?? name.name),
          anchors,
          fields,
          graphs,
          read,
          maxFrames: query.max_frames,
        });
        ranked = answer.frames.slice(0, limit);
        prosed = ranked.length > 0;
        matched = answer.files;
        stale = answer.stale;
      }
      if (ranked.length === 0) {
        const found = findSymbols(table, terms, anchors, limit);
        ranked = found.top;
        matched = found.total;
      }
      // A prose answer is one region per file (its views hold the file's other definitions); a lookup's are its symbols.
      const built = buildCandidates(ranked, table, {
        ...resolved,
        root: resolved.root,
        onePerFile: prosed,
        sources,
        graphs,
      });
      stale = [...new Set([...stale, ...built.stale])];
      // A file changed under the index: re-index it and rank again, once. (While building, the build gets to it.)
      if (stale.length > 0 && attempt === 0 && index.building === undefined) {
        log.debug(`re-indexing ${stale.length} file(s) that changed since they were indexed`);
        await index.refresh([], stale);
        continue;
      }
      log.debug(
        `${terms.names.length} terms, ${matched} matching symbols or files of ${index.table.symbolCount} symbols, ` +
          `${built.candidates.length} candidates`,
      );
      const omitted = Math.max(0, matched - ranked.length);
      return incomplete === undefined
        ? { candidates: built.candidates, omitted }
        : { candidates: built.candidates, omitted, incomplete };
    }
  }

  return definePlugin({
    name: resolved.name,
    version: PACKAGE_VERSION,
    core: "^0.1",
    kinds: ["symbol"],
    scores: "unit",
    graph: true,
    timeoutMs: resolved.timeoutMs,
    setup({ log }) {
      // Opening is quick (the cache is read, not built); the build runs after setup returns.
      const index = openIndex(resolved, log);
      indexer = index;
      pluginLog = log;
      const { fileCount, symbolCount } = index.table;
      log.info(
        fileCount === 0 && !index.complete
          ? "index created: building it in the background"
          : index.complete
            ? `index loaded: ${fileCount} files, ${symbolCount} symbols; checking the tree for changes in the background`
            : `index loaded: ${fileCount} files, ${symbolCount} symbols from a first build that did not finish; ` +
              "going on with it in the background",
      );
      firstBuild = index.build().then(
        // A first build stopped by close() is reported there, at once: the process may exit before this runs.
        (stats) => {
          if (stats.complete || indexer !== undefined) log.info(describePass(stats));
        },
        (error: Error) => {
          buildFailure = error.message;
          if (indexer !== undefined) log.error(`index build failed: ${error.message}`);
        },
      );
    },
    search,
    async close() {
      const index = indexer;
      indexer = undefined;
      if (index === undefined) return;
      const building = index.building;
      // Commits what the build parsed before its first await (see Indexer.close).
      const closing = index.close();
      if (building !== undefined && !index.complete) {
        pluginLog?.info(describeStop(index.table.fileCount, building.total, index.table.symbolCount));
      }
      await closing;
    },
  });
}
