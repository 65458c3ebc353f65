/**
 * The options of the symbols plugin, their defaults, and the checks that make a bad
 * option fail when the plugin is defined rather than at its first query.
 */
import { realpathSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { ERROR_CODES, OcpError } from "ocp-provider";

/** The configuration of {@link symbols}: one object, every field but `root` optional. */
export interface SymbolsOptions {
  /** The directory indexed. Nothing outside it is read. */
  root: string;
  /** The plugin's name (frame ids start with it). Default `symbols`. */
  name?: string;
  /** Where the index is kept. Default `<root>/.ocp-cache` (or the user cache directory if the root is read-only); never reached through a link under the root. */
  cacheDir?: string;
  /** Index hidden files and directories too (never `.git`). Default false. */
  hidden?: boolean;
  /** Skip files larger than this. Default 1 MiB, as the ripgrep plugin. */
  maxFileSizeBytes?: number;
  /** Worker threads for big builds, besides the main thread; 0 parses in the main thread only. Default: cores − 1, up to 4; none on two cores or fewer. */
  workers?: number;
  /** Watch the tree for changes (else stat-check every indexed file before each query). Default true. */
  watch?: boolean;
  /** Show build progress on stderr. Default true (off when `OCP_LOG` is `silent`, `error` or `warn`). */
  progress?: boolean;
  /** Most lines in a definition's own frame (its head: doc comment and declaration). Default 60. */
  maxContentLines?: number;
  /** Most lines in a larger view of a definition (the whole file is offered only when at most this long). Default 1000. */
  maxViewLines?: number;
  /** Most bytes in a definition's own frame (its first line always ships). Default 8192. */
  maxContentBytes?: number;
  /** Lines longer than this (minified code) never ship. Default 1000 bytes. */
  maxLineBytes?: number;
  /** Most `references` relations per frame. Default 8. */
  maxReferences?: number;
  /** Bound on one search, including re-indexing what changed. Default 5000 ms. */
  timeoutMs?: number;
  /**
   * How long a query during the first build (an empty cache, or one whose first build was
   * cut short) waits for it before answering from what is indexed, marked truncated.
   * Default: as long as `timeoutMs` allows, less a fifth of it kept for answering (4 s of 5).
   */
  firstBuildWaitMs?: number;
}

/** Every option settled, and the root resolved. */
export interface ResolvedOptions extends Required<Omit<SymbolsOptions, "cacheDir">> {
  /** The root with symlinks resolved: the base of every path and URI. */
  readonly root: string;
  /** The root as configured (absolute), so an absolute anchor under either spelling is recognised. */
  readonly configuredRoot: string;
  readonly cacheDir: string | undefined;
}

/** The defaults of {@link SymbolsOptions}. */
export const DEFAULTS = {
  name: "symbols",
  hidden: false,
  maxFileSizeBytes: 1024 * 1024,
  watch: true,
  maxContentLines: 60,
  maxViewLines: 1000,
  maxContentBytes: 8192,
  maxLineBytes: 1000,
  maxReferences: 8,
  timeoutMs: 5000,
} as const;

/**
 * The default number of worker threads: one per core beside the main thread's (which
 * parses too), at most 4 — and none on two cores or fewer, where a worker's own copy
 * of the compiler (~0.4 s to load) and the hand-over of its results cost more than
 * the parallel parsing wins (measured: `npm run bench -- symbols` times the other worker
 * setting beside the default; docs/benchmarks.md).
 */
export function defaultWorkers(): number {
  const cores = availableParallelism();
  return cores <= 2 ? 0 : Math.min(4, cores - 1);
}

function quietLog(): boolean {
  return ["silent", "error", "warn"].includes(process.env.OCP_LOG ?? "");
}

/** Fills defaults and checks every option; throws `OCP_ERR_PLUGIN_INVALID` on the first bad one. */
export function resolveOptions(options: SymbolsOptions): ResolvedOptions {
  if (typeof options !== "object" || options === null) {
    throw new OcpError(ERROR_CODES.PLUGIN_INVALID, "plugin 'symbols': expected an options object with a root");
  }
  const name = options.name ?? DEFAULTS.name;
  const fail = (message: string) => new OcpError(ERROR_CODES.PLUGIN_INVALID, `plugin '${name}': ${message}`);
  const count = (key: keyof SymbolsOptions, fallback: number, min: number): number => {
    const value = options[key] ?? fallback;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
      throw fail(`${key} must be a whole number ≥ ${min}, not ${JSON.stringify(value)}`);
    }
    return value;
  };
  const flag = (key: keyof SymbolsOptions, fallback: boolean): boolean => {
    const value = options[key] ?? fallback;
    if (typeof value !== "boolean") throw fail(`${key} must be true or false`);
    return value;
  };
  if (options.cacheDir !== undefined && (typeof options.cacheDir !== "string" || options.cacheDir.trim() === "")) {
    throw fail("cacheDir must name a directory");
  }
  if (typeof options.root !== "string" || options.root.trim() === "") throw fail("root must name a directory");
  const configuredRoot = resolve(options.root);
  let root: string;
  try {
    root = realpathSync(configuredRoot);
  } catch {
    throw fail(`root '${configuredRoot}' does not exist`);
  }
  if (!statSync(root).isDirectory()) throw fail(`root '${configuredRoot}' is not a directory`);
  const timeoutMs = count("timeoutMs", DEFAULTS.timeoutMs, 1);
  return {
    name,
    hidden: flag("hidden", DEFAULTS.hidden),
    maxFileSizeBytes: count("maxFileSizeBytes", DEFAULTS.maxFileSizeBytes, 1),
    workers: count("workers", defaultWorkers(), 0),
    watch: flag("watch", DEFAULTS.watch),
    progress: flag("progress", !quietLog()),
    maxContentLines: count("maxContentLines", DEFAULTS.maxContentLines, 1),
    maxViewLines: count("maxViewLines", DEFAULTS.maxViewLines, 1),
    maxContentBytes: count("maxContentBytes", DEFAULTS.maxContentBytes, 1),
    maxLineBytes: count("maxLineBytes", DEFAULTS.maxLineBytes, 1),
    maxReferences: count("maxReferences", DEFAULTS.maxReferences, 0),
    timeoutMs,
    // By default as long as the time limit allows: search() caps every wait at its deadline, less a reserve.
    firstBuildWaitMs: count("firstBuildWaitMs", timeoutMs, 0),
    cacheDir: options.cacheDir !== undefined ? resolve(options.cacheDir) : undefined,
    root,
    configuredRoot,
  };
}
