/**
 * The symbols plugin: where a name is defined, what it looks like, and what belongs
 * to it — from an index of every definition under the root, kept fresh as files change.
 */
import { createRequire } from "node:module";
import { parseAnchors } from "ocp-plugin-ripgrep";
import { type ContextQuery, definePlugin, type Logger, type Plugin, type SearchOutput, UserError } from "ocp-provider";
import { RootReader } from "ocp-provider/fs";
import { Indexer, type PassStats } from "./index/indexer.js";
import { type ResolvedOptions, resolveOptions, type SymbolsOptions } from "./options.js";
import { planFrames, rankProse, type SourceReader } from "./search/answer.js";
import { buildCandidates } from "./search/candidates.js";
import { findSymbols, type Ranked } from "./search/find.js";
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

/** The text a query is searched by: `query_text` when it has any, else `goal`. */
export function searchText(query: Pick<ContextQuery, "goal" | "query_text">): string {
  return query.query_text !== undefined && query.query_text.trim() !== "" ? query.query_text : query.goal;
}

/** One line on stderr for a finished pass. */
export function describePass(stats: PassStats): string {
  const seconds = (stats.ms / 1000).toFixed(1);
  return (
    `index ready: ${stats.files} files, ${stats.symbols} symbols in ${seconds} s ` +
    `(${stats.parsed} parsed, ${stats.unchanged} unchanged, ${stats.removed} removed, ${stats.skipped} skipped)`
  );
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
  let startedEmpty = true;
  let buildFailure: string | undefined;
  // Derived from the index, kept between queries: field words by file, the reference graph.
  const fields = new ProseFields();
  const graphs = new GraphCache();

  async function search(query: ContextQuery, log: Logger, signal: AbortSignal): Promise<SearchOutput> {
    const index = indexer;
    if (index === undefined) throw new UserError("the symbol index is not open");
    const text = searchText(query);
    const terms = queryTerms(text);
    const prose = proseTerms(text);
    const anchors = parseAnchors(query.anchors, [resolved.configuredRoot, resolved.root]);
    // A small tree finishes its first build in moments: wait that long for a complete answer. (A cache
    // that was already filled answers at once; the pass over it only catches up on changes.)
    if (index.building !== undefined && firstBuild !== undefined && startedEmpty && resolved.firstBuildWaitMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise((resume) => {
        timer = setTimeout(resume, resolved.firstBuildWaitMs);
      });
      await Promise.race([firstBuild, waited]);
      clearTimeout(timer);
    }
    const building = index.building;
    if (building !== undefined) {
      const progress = `${building.done} of ${building.total || "?"} files`;
      log.info(
        startedEmpty
          ? `the index is still being built (${progress}); answering from the ${index.table.symbolCount} symbols indexed so far`
          : `still checking the tree for changes since the cache was written (${progress}); answering from the cache`,
      );
    } else {
      await index.refresh([...anchors.files]);
    }
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
      let ranked: readonly Ranked[] = [];
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
        matched = answer.files;
        stale = answer.stale;
      }
      if (ranked.length === 0) {
        const found = findSymbols(table, terms, anchors, limit);
        ranked = found.top;
        matched = found.total;
      }
      const planned = planFrames(ranked, table, read, {
        maxTokens: query.max_tokens,
        maxFrames: query.max_frames,
        maxContentLines: resolved.maxContentLines,
      });
      const built = buildCandidates(planned, table, { ...resolved, root: resolved.root, sources, graphs });
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
      return { candidates: built.candidates, omitted: Math.max(0, matched - ranked.length) };
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
      startedEmpty = index.table.fileCount === 0;
      log.info(
        `index ${index.table.fileCount > 0 ? "loaded" : "created"}: ${index.table.fileCount} files, ` +
          `${index.table.symbolCount} symbols; checking the tree for changes in the background`,
      );
      firstBuild = index.build().then(
        (stats) => log.info(describePass(stats)),
        (error: Error) => {
          buildFailure = error.message;
          if (indexer !== undefined) log.error(`index build failed: ${error.message}`);
        },
      );
    },
    search: (query, ctx) => search(query, ctx.log, ctx.signal),
    async close() {
      const index = indexer;
      indexer = undefined;
      await index?.close();
    },
  });
}
