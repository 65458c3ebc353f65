/**
 * Keeps the index in step with the tree.
 *
 * - **Build** (at setup, in the background): list the files the ripgrep plugin would
 *   search, drop the ones gone, and (re)extract those whose size or mtime changed —
 *   and whose bytes then hash differently — in the main thread, yielding every few
 *   milliseconds (and in worker threads too where there are cores to spare), writing
 *   to SQLite and the name table in batches, so queries see every batch as it lands.
 *   Each batch is a committed transaction, written at least every {@link COMMIT_MS}:
 *   a process that ends mid-build (a one-shot query, EOF, a signal, even SIGKILL)
 *   keeps what it parsed, and the next build goes on from there. A build that
 *   finishes marks the cache complete; until then it is a first build.
 * - **Freshness** (before each query): a directory watcher marks changed files; they,
 *   the anchored files and any file whose bytes no longer match its hash are
 *   re-indexed before the query is answered. A new or removed file triggers a fresh
 *   listing. Without a watcher (unsupported, out of watches, or `watch: false`) every
 *   indexed file and directory is stat-checked instead.
 * - **Racy mtimes**: a file whose mtime was within {@link RACY_MS} of the moment it was
 *   read may have changed again within the same timestamp; its hash is re-checked next
 *   time rather than trusting size and mtime (git's "racy clean" rule).
 *
 * All work runs one piece at a time (a promise chain), so the store is never written
 * by two tasks at once.
 */
import { type Stats, statSync } from "node:fs";
import { join } from "node:path";
import { listFiles } from "ocp-plugin-ripgrep";
import type { Logger } from "ocp-provider";
import { LANGUAGES, languageOf } from "../model.js";
import { NameTable } from "../search/name-table.js";
import { RACY_MS, racy, unchanged } from "../store/freshness.js";
import type { FileRow, FileWrite, SymbolStore } from "../store/store.js";
import { createProgress, type Progress } from "./progress.js";
import { type ExtractJob, type ExtractOutcome, readAndExtract } from "./read-extract.js";
import { DirectoryWatcher, directoriesOf } from "./watcher.js";
import type { ExtractionPool } from "./worker-pool.js";

/** Below this many files to extract, the main thread does it; above, the worker pool. */
const POOL_THRESHOLD = 48;
/** Files written per SQLite transaction during a build. */
const BATCH_FILES = 64;
/** A batch is committed once its first file waited this long (ms), however few files it holds. */
const COMMIT_MS = 500;
/** The main thread parses for at most this long (ms) before letting queries and worker results in. */
const YIELD_MS = 8;

/** What the indexer needs to know. */
export interface IndexerOptions {
  /** The real root directory. */
  readonly root: string;
  readonly store: SymbolStore;
  readonly hidden: boolean;
  readonly maxFileSizeBytes: number;
  /** Worker threads for big batches; 0 extracts in the main thread. */
  readonly workers: number;
  /** Watch directories for changes; else stat-check before each query. */
  readonly watch: boolean;
  /** Show build progress on stderr. */
  readonly progress: boolean;
  readonly log: Logger;
  /**
   * For tests: every file a build parses takes at least this long (ms), in the main
   * thread (no workers), so a test can watch a first build in progress whatever the
   * machine's speed. Default 0.
   */
  readonly buildDelayMs?: number;
}

/** What one pass over the tree did. */
export interface PassStats {
  readonly files: number;
  readonly symbols: number;
  /** Files parsed. */
  readonly parsed: number;
  /** Files whose size or mtime changed but whose bytes did not. */
  readonly unchanged: number;
  readonly removed: number;
  /** Files skipped (binary, not UTF-8, unparseable, or refused by the root-confined reader). */
  readonly skipped: number;
  readonly ms: number;
  /**
   * False when the pass was stopped (the indexer closed) before it finished: what it
   * parsed is saved, and the next pass goes on from there.
   */
  readonly complete: boolean;
  /** Files the pass listed (0 when it stopped before the listing was done). */
  readonly listed: number;
}

interface Work {
  readonly path: string;
  readonly stat: Stats;
  readonly row: FileRow | undefined;
}

function stat(path: string): Stats | undefined {
  try {
    const found = statSync(path);
    return found.isFile() ? found : undefined;
  } catch {
    return undefined;
  }
}

/** The index of one root: its store, its name table, and what keeps them fresh. */
export class Indexer {
  /** Every symbol, in memory, for queries. */
  readonly table = new NameTable();
  private chain: Promise<unknown> = Promise.resolve();
  private readonly abort = new AbortController();
  private readonly dirty = new Set<string>();
  private relist = false;
  /** `pending` until the first listing says what to watch; `stat` when watching is off or failed. */
  private mode: "pending" | "watching" | "stat";
  private watcher: DirectoryWatcher | undefined;
  private readonly dirMtimes = new Map<string, number>();
  private pool: ExtractionPool | undefined;
  private buildState: { done: number; total: number } | undefined;
  private closed = false;
  /** While a pass runs: commits the files it parsed and has not written yet. */
  private commitParsed: (() => void) | undefined;

  constructor(private readonly options: IndexerOptions) {
    this.mode = options.watch ? "pending" : "stat";
    for (const { file, symbols, bag } of options.store.filesWithNames()) this.table.setFile(file, symbols, bag);
  }

  /**
   * While a build runs: how many of its files are done, of `total` listed (0 until the
   * listing is done). Files found unchanged count as done at once.
   */
  get building(): { done: number; total: number } | undefined {
    return this.buildState;
  }

  /** A build over the whole tree finished at some point: the cache is not a first build cut short. */
  get complete(): boolean {
    return this.options.store.complete;
  }

  /** True when a watcher reports changes; false when queries stat-check instead. */
  get watching(): boolean {
    return this.mode === "watching";
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.chain.then(task, task);
    this.chain = run.catch(() => {});
    return run;
  }

  /** The full pass: list, compare, extract what changed, drop what is gone. Shows progress. */
  build(): Promise<PassStats> {
    this.buildState = { done: 0, total: 0 };
    return this.serial(async () => {
      try {
        return await this.pass(true);
      } finally {
        this.buildState = undefined;
      }
    });
  }

  /**
   * Brings the index up to date for a query: changed files the watcher reported (or,
   * without one, every file's stat), the anchored `paths`, and `forced` paths (files
   * whose bytes were found not to match) are re-indexed; a new file triggers a pass.
   */
  refresh(paths: readonly string[] = [], forced: readonly string[] = []): Promise<void> {
    return this.serial(async () => {
      if (this.closed) return;
      // A change notification is queued by the kernel before the writer's write returns, so it is
      // ready no later than the query that follows — but maybe handled after it in the same poll
      // phase. One turn of the event loop lets it land first.
      if (this.mode === "watching") await new Promise((resume) => setImmediate(resume));
      if (this.mode === "stat") this.statCheck();
      if (this.relist) {
        await this.pass(false);
        return;
      }
      const work: Work[] = [];
      const wanted = new Set([...this.dirty, ...paths]);
      this.dirty.clear();
      const gone: number[] = [];
      for (const path of new Set([...wanted, ...forced])) {
        const row = this.table.fileByPath(path);
        if (row === undefined) continue;
        const found = stat(join(this.options.root, path));
        if (found === undefined) gone.push(row.id);
        else if (forced.includes(path) || !unchanged(row, found)) work.push({ path, stat: found, row });
      }
      this.remove(gone);
      if (work.length > 0) await this.process(work, undefined);
    });
  }

  /** Without a watcher: stat every indexed file and watched directory, marking what changed. */
  private statCheck(): void {
    for (const file of this.table.files()) {
      const found = stat(join(this.options.root, file.path));
      if (found === undefined || !unchanged(file, found)) this.dirty.add(file.path);
    }
    for (const [dir, mtime] of this.dirMtimes) {
      const found = statOrUndefined(join(this.options.root, dir));
      if (found?.mtimeMs !== mtime) this.relist = true;
    }
  }

  private async pass(showProgress: boolean): Promise<PassStats> {
    const started = performance.now();
    this.relist = false;
    this.dirty.clear();
    try {
      return await this.passWork(started, showProgress);
    } finally {
      await this.closePool();
    }
  }

  private async passWork(started: number, showProgress: boolean): Promise<PassStats> {
    const { root, store } = this.options;
    let listed: string[];
    try {
      listed = (
        await listFiles({
          root,
          hidden: this.options.hidden,
          maxFileSizeBytes: this.options.maxFileSizeBytes,
          signal: this.abort.signal,
        })
      ).filter((path) => languageOf(path) !== undefined);
    } catch (error) {
      if (!this.closed) throw error;
      listed = [];
    }
    if (this.closed) {
      // Stopped before the listing was done: nothing was parsed, the cache is as it was.
      const { fileCount: files, symbolCount: symbols } = this.table;
      const ms = performance.now() - started;
      return { files, symbols, parsed: 0, unchanged: 0, removed: 0, skipped: 0, ms, complete: false, listed: 0 };
    }
    const present = new Set(listed);
    const gone = [...this.table.files()].filter((file) => !present.has(file.path)).map((file) => file.id);
    this.remove(gone);
    // Watch before extracting: a file edited while the build runs is then re-checked afterwards.
    this.watchDirectories(present);
    const work: Work[] = [];
    for (const path of listed) {
      const found = stat(join(root, path));
      const row = this.table.fileByPath(path);
      if (found !== undefined && (row === undefined || !unchanged(row, found))) work.push({ path, stat: found, row });
    }
    const outcome = await this.process(work, showProgress ? listed.length : undefined);
    const complete = !this.closed && outcome.handled === work.length;
    if (complete && !store.complete) store.markComplete();
    return {
      files: this.table.fileCount,
      symbols: this.table.symbolCount,
      parsed: outcome.parsed,
      unchanged: outcome.unchanged,
      skipped: outcome.skipped,
      removed: gone.length,
      ms: performance.now() - started,
      complete,
      listed: listed.length,
    };
  }

  private watchDirectories(paths: ReadonlySet<string>): void {
    const dirs = directoriesOf(paths);
    if (this.mode === "pending") {
      this.mode = "watching";
      this.watcher = new DirectoryWatcher(
        this.options.root,
        (path) => this.onChange(path),
        (error) => {
          this.mode = "stat";
          this.watcher = undefined;
          this.options.log.warn(`watching for changes failed (${error.message}); stat-checking before each query`);
          // Whatever happened since the last event is unknown: the next query lists the tree again.
          this.relist = true;
        },
      );
    }
    this.watcher?.sync(dirs);
    if (this.mode === "stat") {
      this.dirMtimes.clear();
      for (const dir of dirs) {
        const found = statOrUndefined(join(this.options.root, dir));
        if (found !== undefined) this.dirMtimes.set(dir, found.mtimeMs);
      }
    }
  }

  /** A watcher event: a known file is dirty; anything else that could matter calls for a fresh listing. */
  private onChange(path: string): void {
    if (this.table.fileByPath(path) !== undefined) {
      this.dirty.add(path);
      return;
    }
    const name = path.slice(path.lastIndexOf("/", path.length - 2) + 1);
    if (!this.options.hidden && name.startsWith(".")) return;
    if (
      path.endsWith("/") ||
      languageOf(path) !== undefined ||
      statOrUndefined(join(this.options.root, path))?.isDirectory()
    ) {
      this.relist = true;
    } else if (statOrUndefined(join(this.options.root, path)) === undefined) {
      // A removed directory or an unknown name: only a listing can tell.
      this.relist = true;
    }
  }

  private remove(ids: readonly number[]): void {
    if (ids.length === 0 || this.closed) return;
    this.options.store.deleteFiles(ids);
    for (const id of ids) this.table.removeFile(id);
  }

  /**
   * Extracts `work`, writing in batches. With workers, a big batch is shared between
   * the pool and the main thread, which parses too; either way the main thread yields
   * to the event loop every few milliseconds, so queries are answered while it works.
   */
  private async process(
    work: readonly Work[],
    progressTotal: number | undefined,
  ): Promise<Pick<PassStats, "parsed" | "unchanged" | "skipped"> & { handled: number }> {
    const { store, log } = this.options;
    const counts = { parsed: 0, unchanged: 0, skipped: 0, handled: 0 };
    if (work.length === 0) return counts;
    const delayMs = progressTotal !== undefined ? (this.options.buildDelayMs ?? 0) : 0;
    if (this.options.workers > 0 && work.length >= POOL_THRESHOLD && delayMs === 0) await this.startPool();
    const pool = this.pool;
    let progress: Progress | undefined;
    if (progressTotal !== undefined && this.buildState !== undefined) {
      this.buildState = { done: progressTotal - work.length, total: progressTotal };
      progress = createProgress(this.options.progress, progressTotal);
    }
    let batch: FileWrite[] = [];
    let batchStarted = 0;
    // Also once the indexer is closing: the store stays open until this pass ends, and what was parsed is kept.
    const flush = () => {
      if (batch.length === 0) return;
      for (const { file, symbols, bag } of store.writeFiles(batch)) this.table.setFile(file, symbols, bag);
      batch = [];
      if (this.buildState !== undefined) progress?.update(this.buildState.done, this.table.symbolCount);
    };
    this.commitParsed = flush;
    const handle = (item: Work, outcome: ExtractOutcome) => {
      // Once closing, an outcome may be a worker's job failed by the pool's shutdown: not a fact about the file.
      if (this.closed) return;
      counts.handled++;
      const indexedAtMs = Date.now();
      if (outcome.kind === "unreadable" || outcome.kind === "refused") {
        if (outcome.kind === "refused") {
          counts.skipped++;
          log.warn(`skipped ${item.path}: ${outcome.reason}`);
        }
        if (item.row !== undefined) this.remove([item.row.id]);
      } else if (outcome.kind === "unchanged" && item.row !== undefined) {
        counts.unchanged++;
        store.touchFile(item.row.id, item.stat, indexedAtMs);
        this.table.updateFile({ ...item.row, size: item.stat.size, mtimeMs: item.stat.mtimeMs, indexedAtMs });
      } else if (outcome.kind === "extracted") {
        const { extraction } = outcome;
        const language = languageOf(item.path) ?? "typescript";
        if (extraction.status !== "ok") {
          counts.skipped++;
          log.warn(`skipped ${item.path}: ${extraction.problem ?? extraction.status}`);
        } else counts.parsed++;
        const { size, mtimeMs } = item.stat;
        if (batch.length === 0) batchStarted = performance.now();
        batch.push({
          path: item.path,
          size,
          mtimeMs,
          language,
          method: LANGUAGES[language].method,
          indexedAtMs,
          extraction,
        });
        if (batch.length >= BATCH_FILES || performance.now() - batchStarted >= COMMIT_MS) flush();
      }
      if (this.buildState !== undefined) {
        this.buildState.done++;
        progress?.update(this.buildState.done, this.table.symbolCount);
      }
    };

    // Shared with workers, the biggest files go first: the last jobs are small, so no thread
    // is left parsing a 500 KB file while the others wait.
    const queue = pool !== undefined ? [...work].sort((a, b) => b.stat.size - a.stat.size) : work;
    let next = 0;
    const items = new Map<ExtractJob, Work>();
    const take = (): ExtractJob | undefined => {
      const item = next < queue.length && !this.closed ? queue[next++] : undefined;
      if (item === undefined) return undefined;
      const job = this.jobFor(item);
      items.set(job, item);
      return job;
    };
    try {
      const pooled = pool?.drain(take, (job, outcome) => {
        handle(items.get(job) as Work, outcome);
        items.delete(job);
      });
      let slice = performance.now();
      for (let job = take(); job !== undefined; job = take()) {
        if (delayMs > 0) await new Promise((resume) => setTimeout(resume, delayMs));
        handle(items.get(job) as Work, await readAndExtract(job));
        items.delete(job);
        if (performance.now() - slice > YIELD_MS) {
          await new Promise((resume) => setImmediate(resume));
          slice = performance.now();
        }
      }
      pool?.finish();
      await pooled;
    } finally {
      // Also when stopped early or failing: every file parsed so far is committed.
      this.commitParsed = undefined;
      flush();
      progress?.stop();
      // Workers hold a parser each: let them go once the big batch is done.
      await this.closePool();
    }
    return counts;
  }

  private async startPool(): Promise<void> {
    if (this.pool !== undefined) return;
    const { ExtractionPool } = await import("./worker-pool.js");
    this.pool ??= new ExtractionPool(this.options.workers);
  }

  private async closePool(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close();
  }

  private jobFor(item: Work): ExtractJob {
    const { root, maxFileSizeBytes } = this.options;
    return { root, path: item.path, maxBytes: maxFileSizeBytes, knownHash: item.row?.hash };
  }

  /**
   * Records that a racy file's bytes were just found to hash as indexed, at a moment
   * well past its mtime: from now on its size and mtime are proof enough.
   */
  settle(file: FileRow): void {
    const now = Date.now();
    if (this.closed || !racy(file) || now - file.mtimeMs < RACY_MS) return;
    const current = this.table.file(file.id);
    if (current === undefined || current.hash !== file.hash) return;
    this.options.store.touchFile(file.id, file, now);
    this.table.updateFile({ ...current, indexedAtMs: now });
  }

  /**
   * Stops building and watching, and closes the store. Safe to call twice. What a build
   * parsed is committed before the first await: a process that exits soon after (a
   * transport allows plugins a moment to close) still keeps it.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      this.commitParsed?.();
    } catch (error) {
      this.options.log.warn(`could not save the files parsed so far: ${(error as Error).message}`);
    }
    this.abort.abort(new Error("indexer closed"));
    this.watcher?.close();
    this.watcher = undefined;
    await this.pool?.close();
    await this.chain;
    this.options.store.close();
  }
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
