/**
 * Serving a provider over stdio, HTTP or (through the MCP bridge) MCP, the way every
 * `ocp-*` command does; `ocp-provider/serve` exports it with the command runner.
 */
import type { Provider } from "../provider/provider.js";
import { loadMcpBridge, type McpRunOptions } from "./mcp-bridge.js";

/** Options of {@link serveProvider}. */
export interface ServeOptions {
  /** Serve over streamable HTTP on this address; over stdio when absent. */
  http?: { host: string; port: number };
  /** Bearer token required over HTTP; default the `OCP_HTTP_TOKEN` environment variable. */
  token?: string;
  /** Over HTTP: web origins whose pages may call the provider (see `HttpOptions.allowedOrigins`). */
  allowedOrigins?: readonly string[];
  /** Words added to the "listening on" line, such as where the data lives. */
  detail?: (provider: Provider) => string | undefined;
  /**
   * Serve MCP clients instead of OCP hosts, through the bridge package `ocp-provider-mcp`
   * (loaded now; an error names it when it is not installed).
   */
  mcp?: Pick<McpRunOptions, "allowEgress" | "toolName">;
}

/**
 * Serves the provider that `load` makes. Over stdio, stdout is guarded *before* `load`
 * runs, so nothing loading prints can reach the host, and the process ends with the
 * session (this never resolves). Over HTTP it resolves once listening, after writing
 * `<name> <version> listening on <url>` to stderr; SIGTERM drains and exits.
 * Transports load on demand: serving over stdio never loads the HTTP server. With
 * `mcp`, the MCP bridge serves instead (over stdio or HTTP, the same way).
 */
export async function serveProvider(
  load: () => Provider | Promise<Provider>,
  options: ServeOptions = {},
): Promise<void> {
  if (options.mcp !== undefined) {
    const bridge = await loadMcpBridge();
    const token = options.http !== undefined ? (options.token ?? process.env.OCP_HTTP_TOKEN) : undefined;
    await bridge.runMcp(load, { ...options.mcp, http: options.http, token });
    return;
  }
  if (options.http === undefined) {
    const { guardStdout, runStdio } = await import("./stdio.js");
    guardStdout();
    await runStdio(await load());
    return;
  }
  const { runHttp } = await import("./http.js");
  const provider = await load();
  const server = await runHttp(provider, {
    ...options.http,
    token: options.token ?? process.env.OCP_HTTP_TOKEN,
    allowedOrigins: options.allowedOrigins,
  });
  const detail = options.detail?.(provider);
  const who = `${provider.info.name} ${provider.info.version}${detail ? ` (${detail})` : ""}`;
  process.stderr.write(`${who} listening on ${server.url}\n`);
}
