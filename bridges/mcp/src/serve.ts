/**
 * Serving: `serveMcp()` for code that embeds the bridge, `runMcp()` for commands
 * (`ocp mcp`, `--mcp`) — signals, stderr lines, and the process ends with the session.
 */
import type { Provider } from "ocp-provider";
import type { McpBridgeModule, McpRunOptions } from "ocp-provider/serve";
import { guardStdout } from "ocp-provider/stdio";
import { createMcpBridge, type McpBridge, type McpBridgeOptions } from "./bridge.js";
import type { McpHttpOptions } from "./http.js";
import { type McpStdioOptions, McpStdioTransport } from "./stdio.js";

/** Options of {@link serveMcp}: the bridge's, and HTTP's when serving over HTTP. */
export interface ServeMcpOptions extends McpBridgeOptions {
  /** Serve streamable HTTP with these options (`{}` for the defaults); over stdio when absent. */
  http?: McpHttpOptions;
  /** Over stdio: the line and in-flight bounds (see {@link McpStdioTransport}). */
  stdio?: Pick<McpStdioOptions, "maxLineBytes" | "maxInFlight">;
}

/** A bridge being served. */
export interface McpServing {
  /** The bridge. */
  readonly bridge: McpBridge;
  /** The MCP endpoint, over HTTP. */
  readonly url?: string;
  /** Resolves when serving has ended: the stdio client went away, or {@link McpServing.close} was called. */
  readonly closed: Promise<void>;
  /** Stops serving and closes the provider (bounded). */
  close(): Promise<void>;
}

/** Closes the provider, but never waits on its plugins for long. */
async function closeProvider(provider: Provider): Promise<void> {
  await Promise.race([provider.close(), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
}

/**
 * Serves `provider` to MCP clients: over stdio (this process's stdin and stdout; stdout
 * is guarded first, so nothing but MCP messages reaches it), or over streamable HTTP
 * with `http`. Starts the provider once; every session and call shares it. Throws a
 * `McpBridgeError` when the bridge refuses the provider (egress without `allowEgress`).
 */
export async function serveMcp(
  provider: Provider | (() => Provider | Promise<Provider>),
  options: ServeMcpOptions = {},
): Promise<McpServing> {
  const write = options.http === undefined ? guardStdout() : undefined;
  const resolved = typeof provider === "function" ? await provider() : provider;
  const bridge = createMcpBridge(resolved, options);
  let ended: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    ended = resolve;
  });

  if (options.http !== undefined) {
    // Loaded only now: serving over stdio never loads the HTTP stack.
    const { serveMcpHttp } = await import("./http.js");
    const server = await serveMcpHttp(bridge, options.http);
    void resolved.start();
    let closing: Promise<void> | undefined;
    return {
      bridge,
      url: server.url,
      closed,
      close() {
        closing ??= server
          .close()
          .then(() => closeProvider(resolved))
          .then(ended);
        return closing;
      },
    };
  }

  // The transport writes with the real writer, not the guard.
  const stdout = process.stdout;
  const output = {
    write: (chunk: string) => (write as (chunk: string) => boolean)(chunk),
    once: (event: "drain", listener: () => void) => stdout.once(event, listener),
  };
  const server = bridge.createServer();
  const transport = new McpStdioTransport(process.stdin, output, {
    ...options.stdio,
    warn: (message) => resolved.log.warn(message),
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= server
      .close()
      .catch(() => {})
      .then(() => closeProvider(resolved))
      .then(ended);
    return closing;
  };
  // The SDK does not watch for the end of stdin: the client going away ends the session here.
  process.stdin.once("end", () => void close());
  process.stdin.once("close", () => void close());
  await server.connect(transport);
  void resolved.start();
  return { bridge, closed, close };
}

/**
 * What `ocp mcp` and `--mcp` run: serves until the client (stdio) or SIGTERM/SIGINT ends
 * it, then exits 0. Says on stderr what it serves, and that a provider with egress was
 * bridged by consent. Resolves once serving.
 */
export const runMcp: McpBridgeModule["runMcp"] = async (load, options: McpRunOptions) => {
  const serving = await serveMcp(load, {
    allowEgress: options.allowEgress,
    toolName: options.toolName,
    tokenizer: options.tokenizer,
    http:
      options.http !== undefined
        ? { ...options.http, token: options.token, maxSessions: options.maxSessions }
        : undefined,
  });
  const { provider, toolName } = serving.bridge;
  const who = `${provider.info.name} ${provider.info.version}`;
  if (provider.info.data_flow.egress) {
    process.stderr.write(
      `${who}: this provider declares egress (queries leave this machine); bridged to MCP because egress was allowed\n`,
    );
  }
  if (options.http !== undefined && options.token === undefined && !LOOPBACK.test(options.http.host)) {
    process.stderr.write(
      `${who}: warning: serving ${options.http.host} without --token: anyone who reaches it can query\n`,
    );
  }
  process.stderr.write(
    serving.url !== undefined
      ? `${who} MCP (tool ${toolName}) listening on ${serving.url}\n`
      : `${who} MCP (tool ${toolName}) serving on stdio\n`,
  );
  const stop = () => {
    setTimeout(() => process.exit(0), 1500).unref();
    void serving.close().then(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  void serving.closed.then(() => process.exit(0));
};

const LOOPBACK = /^(localhost|::1|127\.\d+\.\d+\.\d+)$/;
