/**
 * `ocp-ripgrep`: serve the ripgrep provider to a host, over stdio (what a host
 * spawns), streamable HTTP or MCP. The serving options, help, version and exit
 * codes are `runProviderCommand`'s; this file says what is ripgrep's own.
 */
import type { CommandArgs } from "ocp-provider/cli";
import {
  type ProviderCommandSpec,
  parseProviderCommand,
  runProviderCommand,
  SERVE_OPTIONS_HELP,
  type ServeOptions,
} from "ocp-provider/serve";
import { DEFAULTS, resolveOptions } from "./options.js";
import { PACKAGE_VERSION } from "./plugin.js";
import type { RipgrepProviderOptions } from "./provider.js";
import { findRipgrep } from "./rg-binary.js";

const USAGE = `ocp-ripgrep — code snippets for an OCP host (ocp/1.0-draft), found with ripgrep

Usage:
  ocp-ripgrep [--root DIR] [--http [host:]port] [--token T] [--mcp] [options]

  Serves over stdio (NDJSON) by default: this is what a host spawns.
  --mcp serves MCP clients instead (one get_context tool; needs ocp-provider-mcp).

Options:
  --root DIR             directory to search; nothing outside it is read (default: working directory)
${SERVE_OPTIONS_HELP}
  --hidden               search hidden files and directories too (never .git)
  --glob GLOB            include (*.ts, src/**) or exclude (!*.test.ts) files, as rg's --glob; repeatable
  --max-filesize BYTES   skip larger files (default ${DEFAULTS.maxFileSizeBytes})
  --context N            lines of context around a match (default ${DEFAULTS.contextLines})
  --timeout MS           bound on one search (default ${DEFAULTS.timeoutMs})
  --max-searches N       rg processes run at once; later queries wait (default ${DEFAULTS.maxConcurrentSearches}: the CPUs, at most 8)
  --max-queued N         queries waiting at most; past it: OCP_ERR_BUSY at once (default ${DEFAULTS.maxQueuedSearches})
  --queue-timeout MS     longest wait for a search to start; then OCP_ERR_BUSY (default: --timeout)
  --rg PATH              the rg binary (default: @vscode/ripgrep's, else rg on PATH)
  -h, --help             show this help
  --version              show the version
`;

/** The provider's own options; the serving ones are the runner's. */
const OPTIONS = {
  root: { type: "string" },
  hidden: { type: "boolean" },
  glob: { type: "string", multiple: true },
  "max-filesize": { type: "string" },
  context: { type: "string" },
  timeout: { type: "string" },
  "max-searches": { type: "string" },
  "max-queued": { type: "string" },
  "queue-timeout": { type: "string" },
  rg: { type: "string" },
} as const;

/** The provider options the command line asks for. */
function providerOptions(args: CommandArgs): RipgrepProviderOptions {
  return {
    root: args.string("root") ?? process.cwd(),
    hidden: args.flag("hidden"),
    globs: args.list("glob"),
    maxFileSizeBytes: args.whole("max-filesize"),
    contextLines: args.whole("context"),
    timeoutMs: args.whole("timeout"),
    maxConcurrentSearches: args.whole("max-searches"),
    maxQueuedSearches: args.whole("max-queued"),
    queueTimeoutMs: args.whole("queue-timeout"),
    rgPath: args.string("rg"),
  };
}

/** `ocp-ripgrep` as the runner knows it (exported for the test of its help against its options). */
export const COMMAND: ProviderCommandSpec = {
  name: "ocp-ripgrep",
  version: PACKAGE_VERSION,
  usage: USAGE,
  synopsis: "ocp-ripgrep [--root DIR] [--http [host:]port] [--token T] [options]",
  options: OPTIONS,
  check: (args) => void resolveOptions(providerOptions(args)),
  async toProvider(args) {
    const options = providerOptions(args);
    // Fail now, with the reason, rather than serve a provider whose only plugin cannot run.
    const rg = await findRipgrep({ rgPath: options.rgPath });
    const { ripgrepProvider } = await import("./provider.js");
    return ripgrepProvider({ ...options, rgPath: rg.path });
  },
};

/** Reads the command line into provider options and how to serve them (for tests). */
export function parseCommandLine(argv: readonly string[]): ServeOptions & { options: RipgrepProviderOptions } {
  const { args, serve } = parseProviderCommand(COMMAND, argv);
  return { ...serve, options: providerOptions(args) };
}

/**
 * Runs `ocp-ripgrep`. Resolves to an exit code, or to `"serving"` once an HTTP server
 * is listening (stdio serving ends the process itself).
 */
export function main(argv: readonly string[]): Promise<number | "serving"> {
  return runProviderCommand(COMMAND, argv);
}
