/**
 * `ocp-symbols`: serve the symbol index to a host over stdio (what a host spawns)
 * or streamable HTTP, or build the index once and exit (`--index`, for CI caches).
 */
import { parseArgs } from "node:util";
import { createLogger, parseListenAddress } from "ocp-provider";
import { argsErrorMessage, usageErrorLine, wantsHelp } from "ocp-provider/cli";
import { DEFAULTS, defaultWorkers, resolveOptions, type SymbolsOptions } from "./options.js";

const USAGE = `ocp-symbols — a code symbol index for an OCP host (ocp/1.0-draft)

Usage:
  ocp-symbols [--root DIR] [--http [host:]port] [--token T] [--mcp] [options]
  ocp-symbols --index [--root DIR] [options]

  Serves over stdio (NDJSON) by default: this is what a host spawns. The handshake is
  answered at once; the index is built (or brought up to date) in the background.
  --mcp serves MCP clients instead (one get_context tool; needs ocp-provider-mcp).

Options:
  --root DIR             directory to index; nothing outside it is read (default: working directory)
  --http [host:]port     serve streamable HTTP instead (host default 127.0.0.1)
  --token T              with --http: require "Authorization: Bearer T" (default: $OCP_HTTP_TOKEN)
  --mcp                  serve MCP clients (stdio, or streamable HTTP at /mcp with --http)
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

/** The usage line a usage error names. */
const SYNOPSIS =
  "ocp-symbols [--root DIR] [--http [host:]port] [--token T] [options] | ocp-symbols --index [--root DIR] [options]";

class UsageError extends Error {}

function whole(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--${name} must be a whole number, not '${value}'`);
  }
  return Number(value);
}

/** Parses `[host:]port` (`8080`, `0.0.0.0:8080`, `[::1]:8080`). */
export function parseListen(value: string): { host: string; port: number } {
  const listen = parseListenAddress(value);
  if (listen === undefined) throw new UsageError(`--http expects [host:]port, not '${value}'`);
  return listen;
}

/** What the command line asks for. */
export interface CommandLine {
  help: boolean;
  version: boolean;
  index: boolean;
  http?: { host: string; port: number };
  token?: string;
  mcp: boolean;
  options: SymbolsOptions;
}

/** Reads the command line into plugin options and a mode. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      allowPositionals: false,
      allowNegative: true,
      options: {
        root: { type: "string" },
        http: { type: "string" },
        token: { type: "string" },
        mcp: { type: "boolean" },
        index: { type: "boolean" },
        "cache-dir": { type: "string" },
        hidden: { type: "boolean" },
        "max-filesize": { type: "string" },
        workers: { type: "string" },
        watch: { type: "boolean" },
        progress: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    }));
  } catch (error) {
    throw new UsageError(argsErrorMessage(error) ?? (error as Error).message);
  }
  const text = (key: string) => values[key] as string | undefined;
  if (text("token") !== undefined && text("http") === undefined) throw new UsageError("--token needs --http");
  if (values.index === true && text("http") !== undefined) throw new UsageError("--index builds and exits: no --http");
  if (values.index === true && values.mcp === true) throw new UsageError("--index builds and exits: no --mcp");
  return {
    help: values.help === true,
    version: values.version === true,
    index: values.index === true,
    http: text("http") !== undefined ? parseListen(text("http") as string) : undefined,
    token: text("token") ?? process.env.OCP_HTTP_TOKEN,
    mcp: values.mcp === true,
    options: {
      root: text("root") ?? process.cwd(),
      cacheDir: text("cache-dir"),
      hidden: values.hidden === true,
      maxFileSizeBytes: whole("max-filesize", text("max-filesize")),
      workers: whole("workers", text("workers")),
      watch: values.watch as boolean | undefined,
      progress: values.progress as boolean | undefined,
    },
  };
}

/** `--index`: one pass over the tree, then exit. */
async function indexOnce(options: SymbolsOptions): Promise<number> {
  const { describePass, openIndex } = await import("./plugin.js");
  const log = createLogger({ name: "ocp-symbols" });
  const index = openIndex(resolveOptions({ ...options, watch: false }), log);
  try {
    log.info(describePass(await index.build()));
    return 0;
  } finally {
    await index.close();
  }
}

/**
 * Runs `ocp-symbols`. Resolves to an exit code, or to `"serving"` once an HTTP server
 * is listening (stdio serving ends the process itself).
 */
export async function main(argv: readonly string[]): Promise<number | "serving"> {
  let parsed: CommandLine;
  // Help wins over any mistake elsewhere on the line.
  if (wantsHelp(argv)) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    parsed = parseCommandLine(argv);
    if (parsed.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (parsed.version) {
      const { PACKAGE_VERSION } = await import("./plugin.js");
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return 0;
    }
    resolveOptions(parsed.options);
  } catch (error) {
    process.stderr.write(usageErrorLine("ocp-symbols", (error as Error).message, SYNOPSIS));
    return 2;
  }
  try {
    if (parsed.index) return await indexOnce(parsed.options);
    const { serveProvider } = await import("ocp-provider/serve");
    const { symbolsProvider } = await import("./provider.js");
    await serveProvider(() => symbolsProvider(parsed.options), {
      http: parsed.http,
      token: parsed.token,
      mcp: parsed.mcp ? {} : undefined,
    });
    return "serving";
  } catch (error) {
    process.stderr.write(`ocp-symbols: ${(error as Error).message}\n`);
    return 1;
  }
}
