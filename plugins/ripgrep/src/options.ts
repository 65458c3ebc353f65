/**
 * The options of the ripgrep plugin, their defaults, and the checks that make a bad
 * option fail when the plugin is defined rather than at its first query.
 */
import { realpathSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { ERROR_CODES, OcpError } from "ocp-provider";

/** The configuration of {@link ripgrep}: one object, every field but `root` optional. */
export interface RipgrepOptions {
  /** The directory searched. Nothing outside it is read or returned. */
  root: string;
  /** The plugin's name (frame ids start with it). Default `ripgrep`. */
  name?: string;
  /** Search hidden files and directories too (never `.git`). Default false. */
  hidden?: boolean;
  /**
   * Globs as rg's `--glob` takes them: `*.ts` or `src/**` includes (with any include,
   * only matching files are searched), `!*.test.ts` excludes; the last matching glob
   * wins. As in rg, an include glob also reaches files an ignore file skips; never
   * `.git`, and hidden files only with `hidden`. Default none.
   */
  globs?: readonly string[];
  /** Skip files larger than this. Default 1 MiB. */
  maxFileSizeBytes?: number;
  /** Lines of context on each side of a match. Default 3. */
  contextLines?: number;
  /** The most lines one snippet holds; merged windows stop growing there. Default 40. */
  maxSnippetLines?: number;
  /** The most snippets taken from one file. Default 3. */
  perFileMaxSnippets?: number;
  /**
   * The most matching lines kept (rg reads on; past it the weakest files are dropped).
   * Default 20000: a goal's common words pass 5000 in a tree of a few thousand files, and
   * the files kept at the cap are chosen before anyone knows which words are rare.
   */
  maxMatches?: number;
  /** Stop reading one file after this many matching lines. Default 100. */
  maxMatchesPerFile?: number;
  /** Lines longer than this (minified code, data) never ship; a snippet stops before one. Default 1000 bytes. */
  maxLineBytes?: number;
  /** Bound on one search; on expiry the files read so far are ranked and returned. Default 5000 ms. */
  timeoutMs?: number;
  /** The most rg processes this plugin runs at once; later queries wait. Default the CPU count, at most 8. */
  maxConcurrentSearches?: number;
  /** The most queries waiting for a search; past it a query is refused at once with `OCP_ERR_BUSY`. Default 128. */
  maxQueuedSearches?: number;
  /** The longest a query waits for a search to start; then it is refused with `OCP_ERR_BUSY`. Default `timeoutMs`. */
  queueTimeoutMs?: number;
  /** The rg binary; default the one in `@vscode/ripgrep`, else `rg` on PATH. */
  rgPath?: string;
}

/** Every option settled, and the root resolved. */
export interface ResolvedOptions extends Required<Omit<RipgrepOptions, "rgPath">> {
  /** The root with symlinks resolved: rg's working directory and the base of every URI. */
  readonly root: string;
  /** The root as configured (absolute), so an absolute anchor under either spelling is recognised. */
  readonly configuredRoot: string;
  readonly rgPath: string | undefined;
}

/** The defaults of {@link RipgrepOptions}. */
export const DEFAULTS = {
  name: "ripgrep",
  hidden: false,
  maxFileSizeBytes: 1024 * 1024,
  contextLines: 3,
  maxSnippetLines: 40,
  perFileMaxSnippets: 3,
  maxMatches: 20000,
  maxMatchesPerFile: 100,
  maxLineBytes: 1000,
  timeoutMs: 5000,
  // Each rg already runs a thread per CPU: more processes than CPUs only share them thinner.
  maxConcurrentSearches: Math.max(1, Math.min(8, availableParallelism())),
  // A burst a few seconds deep on a small repository; a deeper queue would only make
  // queries wait to be refused at queueTimeoutMs.
  maxQueuedSearches: 128,
} as const;

/** Resolves `root` to a real directory; throws an {@link OcpError} (`label: problem`) if it is not one. */
export function resolveRoot(root: unknown, label: string): { root: string; configuredRoot: string } {
  if (typeof root !== "string" || root.trim() === "") {
    throw new OcpError(ERROR_CODES.PLUGIN_INVALID, `${label}: root must name a directory`);
  }
  const configuredRoot = resolve(root);
  let real: string;
  try {
    real = realpathSync(configuredRoot);
  } catch {
    throw new OcpError(ERROR_CODES.PLUGIN_INVALID, `${label}: root '${configuredRoot}' does not exist`);
  }
  if (!statSync(real).isDirectory()) {
    throw new OcpError(ERROR_CODES.PLUGIN_INVALID, `${label}: root '${configuredRoot}' is not a directory`);
  }
  return { root: real, configuredRoot };
}

/** Fills defaults and checks every option; throws `OCP_ERR_PLUGIN_INVALID` on the first bad one. */
export function resolveOptions(options: RipgrepOptions): ResolvedOptions {
  if (typeof options !== "object" || options === null) {
    throw new OcpError(ERROR_CODES.PLUGIN_INVALID, "plugin 'ripgrep': expected an options object with a root");
  }
  const name = options.name ?? DEFAULTS.name;
  const fail = (message: string) => new OcpError(ERROR_CODES.PLUGIN_INVALID, `plugin '${name}': ${message}`);
  const count = (key: keyof typeof DEFAULTS | "queueTimeoutMs", min: number, fallback?: number): number => {
    const value = options[key as keyof RipgrepOptions] ?? (key === "queueTimeoutMs" ? fallback : DEFAULTS[key]);
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
      throw fail(`${key} must be a whole number ≥ ${min}, not ${JSON.stringify(value)}`);
    }
    return value;
  };
  const hidden = options.hidden ?? DEFAULTS.hidden;
  if (typeof hidden !== "boolean") throw fail("hidden must be true or false");
  if (options.rgPath !== undefined && (typeof options.rgPath !== "string" || options.rgPath === "")) {
    throw fail("rgPath must be a path to the rg binary");
  }
  const globs = options.globs ?? [];
  if (!Array.isArray(globs) || globs.some((glob) => typeof glob !== "string" || !/^[^\0\n\r]+$/.test(glob))) {
    throw fail(`globs must be a list of non-empty one-line strings, not ${JSON.stringify(options.globs)}`);
  }
  const timeoutMs = count("timeoutMs", 1);
  const resolved = {
    name,
    hidden,
    globs: [...globs],
    maxFileSizeBytes: count("maxFileSizeBytes", 1),
    contextLines: count("contextLines", 0),
    maxSnippetLines: count("maxSnippetLines", 1),
    perFileMaxSnippets: count("perFileMaxSnippets", 1),
    maxMatches: count("maxMatches", 1),
    maxMatchesPerFile: count("maxMatchesPerFile", 1),
    maxLineBytes: count("maxLineBytes", 1),
    timeoutMs,
    maxConcurrentSearches: count("maxConcurrentSearches", 1),
    maxQueuedSearches: count("maxQueuedSearches", 0),
    queueTimeoutMs: count("queueTimeoutMs", 1, timeoutMs),
    rgPath: options.rgPath,
  };
  return { ...resolved, ...resolveRoot(options.root, `plugin '${name}'`) };
}
