/**
 * `ocp-symbols`: serve the symbol index to a host over stdio (what a host spawns),
 * streamable HTTP or MCP, or build the index once and exit (`--index`, for CI
 * caches). The serving options, help, version and exit codes are
 * `runProviderCommand`'s; this file says what is the index's own.
 */
import { createLogger } from "ocp-provider";
import { type CommandArgs, UsageError } from "ocp-provider/cli";
import {
  type ProviderCommandSpec,
  parseProviderCommand,
  runProviderCommand,
  SERVE_OPTIONS_HELP,
  type ServeOptions,
} from "ocp-provider/serve";
import { DEFAULTS, defaultWorkers, resolveOptions, type SymbolsOptions } from "./options.js";

const USAGE = `ocp-symbols — a code symbol index for an OCP host (ocp/1.0-draft)

Usage:
  ocp-symbols [--root DIR] [--http [host:]port] [--token T] [--mcp] [options]
  ocp-symbols --index [--root DIR] [options]

  Serves over stdio (NDJSON) by default: this is what a host spawns. The handshake is
  answered at once; the index is built (or brought up to date) in the background, and a
  query during the first build waits for it within its time limit, then answers from what
  is indexed, marked truncated. Run --index first on a large tree. A build stopped early
  keeps what it parsed: the next run goes on from there.
  --mcp serves MCP clients instead (one get_context tool; needs ocp-provider-mcp).

Options:
  --root DIR             directory to index; nothing outside it is read (default: $OCP_ROOT, else the
                         working directory, as a symbols project's provider reads it)
${SERVE_OPTIONS_HELP}
  --index                build or update the index, print what it did, and exit
  --cache-dir DIR        keep the index there (default: DIR/.ocp-cache, else ~/.cache/ocp-symbols)
  --hidden               index hidden files and directories too (never .git)
  --max-filesize BYTES   skip larger files (default ${DEFAULTS.maxFileSizeBytes})
  --workers N            worker threads for big builds besides the main thread (default ${defaultWorkers()} here)
  --no-watch             stat-check files before each query instead of watching the tree
  --no-progress          no progress lines on stderr while building
  -h, --help             show this help
  --version              show the version
`;

/** The index's own options; the serving ones are the runner's. */
const OPTIONS = {
  root: { type: "string" },
  index: { type: "boolean" },
  "cache-dir": { type: "string" },
  hidden: { type: "boolean" },
  "max-filesize": { type: "string" },
  workers: { type: "string" },
  watch: { type: "boolean" },
  progress: { type: "boolean" },
} as const;

/** The plugin options the command line asks for. */
function pluginOptions(args: CommandArgs): SymbolsOptions {
  return {
    // As a symbols project's provider reads it: `OCP_ROOT=… npm run index` builds what `npm run query` asks.
    root: args.string("root") ?? (process.env.OCP_ROOT || process.cwd()),
    cacheDir: args.string("cache-dir"),
    hidden: args.flag("hidden"),
    maxFileSizeBytes: args.whole("max-filesize"),
    workers: args.whole("workers"),
    watch: args.boolean("watch"),
    progress: args.boolean("progress"),
  };
}

/** `--index` builds and exits: serving options make no sense with it. */
function checkIndexMode(args: CommandArgs): void {
  if (!args.flag("index")) return;
  if (args.has("http")) throw new UsageError("--index builds and exits: no --http");
  if (args.flag("mcp")) throw new UsageError("--index builds and exits: no --mcp");
}

/** Exit codes of a build stopped by a signal: 128 + its number, as a shell reports it. */
const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * `--index`: one pass over the tree, then exit. Interrupted (Ctrl-C, SIGTERM), it stops
 * parsing, commits what it parsed and says so: the next run goes on from there.
 */
async function indexOnce(options: SymbolsOptions): Promise<number> {
  const { describePass, openIndex } = await import("./plugin.js");
  const log = createLogger({ name: "ocp-symbols" });
  const index = openIndex(resolveOptions({ ...options, watch: false }), log);
  let stoppedBy: string | undefined;
  const stop = (signal: NodeJS.Signals) => {
    stoppedBy ??= signal;
    void index.close();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const stats = await index.build();
    log.info(describePass(stats));
    return stats.complete ? 0 : (SIGNAL_EXIT[stoppedBy ?? ""] ?? 1);
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await index.close();
  }
}

/** `ocp-symbols` as the runner knows it (exported for the test of its help against its options). */
export const COMMAND: ProviderCommandSpec = {
  name: "ocp-symbols",
  // Lazily: the plugin module loads the parsers, which `--help` does not need.
  version: async () => (await import("./plugin.js")).PACKAGE_VERSION,
  usage: USAGE,
  synopsis:
    "ocp-symbols [--root DIR] [--http [host:]port] [--token T] [options] | ocp-symbols --index [--root DIR] [options]",
  options: OPTIONS,
  allowNegative: true,
  check(args) {
    checkIndexMode(args);
    resolveOptions(pluginOptions(args));
  },
  instead: (args) => (args.flag("index") ? indexOnce(pluginOptions(args)) : undefined),
  async toProvider(args) {
    const { symbolsProvider } = await import("./provider.js");
    return symbolsProvider(pluginOptions(args));
  },
};

/** What the command line asks for (for tests). */
export interface CommandLine extends ServeOptions {
  /** `--index`: build and exit. */
  index: boolean;
  /** The plugin's options. */
  options: SymbolsOptions;
}

/** Reads the command line into plugin options and a mode, with the checks the runner makes first. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const { args, serve } = parseProviderCommand(COMMAND, argv);
  checkIndexMode(args);
  return { ...serve, index: args.flag("index"), options: pluginOptions(args) };
}

/**
 * Runs `ocp-symbols`. Resolves to an exit code, or to `"serving"` once an HTTP server
 * is listening (stdio serving ends the process itself).
 */
export function main(argv: readonly string[]): Promise<number | "serving"> {
  return runProviderCommand(COMMAND, argv);
}
