/**
 * `ocp-ripgrep`: serve the ripgrep provider to a host, over stdio (what a host
 * spawns) or streamable HTTP.
 */
import { parseArgs } from "node:util";
import { parseListenAddress } from "ocp-provider";
import { DEFAULTS, resolveOptions } from "./options.js";
import { PACKAGE_VERSION } from "./plugin.js";
import type { RipgrepProviderOptions } from "./provider.js";
import { findRipgrep } from "./rg-binary.js";

const USAGE = `ocp-ripgrep — code snippets for an OCP host (ocp/1.0-draft), found with ripgrep

Usage:
  ocp-ripgrep [--root DIR] [--http [host:]port] [--token T] [options]

  Serves over stdio (NDJSON) by default: this is what a host spawns.

Options:
  --root DIR             directory to search; nothing outside it is read (default: working directory)
  --http [host:]port     serve streamable HTTP instead (host default 127.0.0.1)
  --token T              with --http: require "Authorization: Bearer T" (default: $OCP_HTTP_TOKEN)
  --hidden               search hidden files and directories too (never .git)
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

class UsageError extends Error {}

function whole(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed)) {
    throw new UsageError(`--${name} must be a whole number, not '${value}'`);
  }
  return parsed;
}

/** Parses `[host:]port` (`8080`, `0.0.0.0:8080`, `[::1]:8080`) as `--http` takes it. */
export function parseListen(value: string): { host: string; port: number } {
  const listen = parseListenAddress(value);
  if (listen === undefined) throw new UsageError(`--http expects [host:]port, not '${value}'`);
  return listen;
}

/** Reads the command line into provider options and a transport choice. */
export function parseCommandLine(argv: readonly string[]): {
  help: boolean;
  version: boolean;
  http?: { host: string; port: number };
  token?: string;
  options: RipgrepProviderOptions;
} {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      allowPositionals: false,
      options: {
        root: { type: "string" },
        http: { type: "string" },
        token: { type: "string" },
        hidden: { type: "boolean" },
        "max-filesize": { type: "string" },
        context: { type: "string" },
        timeout: { type: "string" },
        "max-searches": { type: "string" },
        "max-queued": { type: "string" },
        "queue-timeout": { type: "string" },
        rg: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const text = (key: string) => values[key] as string | undefined;
  if (text("token") !== undefined && text("http") === undefined) throw new UsageError("--token needs --http");
  return {
    help: values.help === true,
    version: values.version === true,
    http: text("http") !== undefined ? parseListen(text("http") as string) : undefined,
    token: text("token") ?? process.env.OCP_HTTP_TOKEN,
    options: {
      root: text("root") ?? process.cwd(),
      hidden: values.hidden === true,
      maxFileSizeBytes: whole("max-filesize", text("max-filesize")),
      contextLines: whole("context", text("context")),
      timeoutMs: whole("timeout", text("timeout")),
      maxConcurrentSearches: whole("max-searches", text("max-searches")),
      maxQueuedSearches: whole("max-queued", text("max-queued")),
      queueTimeoutMs: whole("queue-timeout", text("queue-timeout")),
      rgPath: text("rg"),
    },
  };
}

/**
 * Runs `ocp-ripgrep`. Resolves to an exit code, or to `"serving"` once an HTTP server
 * is listening (stdio serving ends the process itself).
 */
export async function main(argv: readonly string[]): Promise<number | "serving"> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
    if (parsed.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (parsed.version) {
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return 0;
    }
    // Every option checked now, so a bad value is a usage error rather than a failed start.
    resolveOptions(parsed.options);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`ocp-ripgrep: ${message}\n\n${USAGE}`);
    return 2;
  }
  try {
    // Fail now, with the reason, rather than serve a provider whose only plugin cannot run.
    const rg = await findRipgrep({ rgPath: parsed.options.rgPath });
    const { serveProvider } = await import("ocp-provider/serve");
    const { ripgrepProvider } = await import("./provider.js");
    await serveProvider(() => ripgrepProvider({ ...parsed.options, rgPath: rg.path }), {
      http: parsed.http,
      token: parsed.token,
    });
    return "serving";
  } catch (error) {
    process.stderr.write(`ocp-ripgrep: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
