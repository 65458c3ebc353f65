/**
 * `ocp-provider/transports`: every way into a provider, one row each. A row says
 * where the transport lives — a folder beside this file holding its server half,
 * its client half and its conformance session and suite, or (a front door kept out
 * of the core) a package — and how `ocp serve` serves over it and `ocp inspect`
 * checks it. Everything a row names is loaded on use: reading the table loads no
 * server, client or SDK. `transports.test.ts` fails on a folder without a row or a
 * row without its folder.
 */
import type { TransportSuite } from "../conformance/suite.js";
import type { Provider } from "../provider/provider.js";
import { httpInspect } from "./http/inspect-target.js";
import { loadMcpBridge, MCP_BRIDGE_PACKAGE, type McpRunOptions } from "./mcp-bridge.js";
import { stdioInspect } from "./stdio/inspect-target.js";
import type { ConformanceTarget, HttpTarget, InspectTarget, StdioTarget } from "./targets.js";

/** Makes the provider to serve; called once, after the transport has guarded what it must. */
export type LoadProvider = () => Provider | Promise<Provider>;

/** How a command line asks for a provider to be served. */
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
  mcp?: Pick<McpRunOptions, "allowEgress" | "toolName" | "maxSessions" | "tokenizer">;
}

/** One transport, as the command line and the conformance suite see it. */
export interface Transport<Target extends ConformanceTarget = ConformanceTarget> {
  /** One line for usage text and docs. */
  readonly summary: string;
  /** A folder of this one (`transports/<folder>/`), or the package a front door lives in. */
  readonly home: { readonly folder: string } | { readonly package: string };
  /** Serves the provider `load` makes, as `ocp serve` does: resolves once serving (over stdio, never). */
  readonly serve: (load: LoadProvider, options: ServeOptions) => Promise<void>;
  /** Its conformance suite, for a transport of the OCP wire (`ocp inspect <name>`). */
  readonly conformance?: () => Promise<TransportSuite<Target>>;
  /** How `ocp inspect <name>` names a provider to check over it (with {@link conformance}). */
  readonly inspect?: InspectTarget<Target>;
}

/** The table. */
export const TRANSPORTS = {
  stdio: {
    summary: "NDJSON over stdin and stdout: the host spawns the provider",
    home: { folder: "stdio" },
    serve: async (load) => {
      const { guardStdout, runStdio } = await import("./stdio/server.js");
      // Before `load`: nothing loading prints may reach the host.
      guardStdout();
      await runStdio(await load());
    },
    conformance: async () => (await import("./stdio/conformance-suite.js")).stdioSuite,
    inspect: stdioInspect,
  } satisfies Transport<StdioTarget>,
  http: {
    summary: "streamable HTTP: one POST per envelope, to a provider already listening",
    home: { folder: "http" },
    serve: async (load, options) => {
      const { runHttp } = await import("./http/server.js");
      const provider = await load();
      const server = await runHttp(provider, {
        ...options.http,
        token: options.token ?? process.env.OCP_HTTP_TOKEN,
        allowedOrigins: options.allowedOrigins,
      });
      const detail = options.detail?.(provider);
      const who = `${provider.info.name} ${provider.info.version}${detail ? ` (${detail})` : ""}`;
      process.stderr.write(`${who} listening on ${server.url}\n`);
    },
    conformance: async () => (await import("./http/conformance-suite.js")).httpSuite,
    inspect: httpInspect,
  } satisfies Transport<HttpTarget>,
  // A front door, not a wire of OCP: MCP clients call a tool. Its package carries the
  // MCP SDK, which the core must never depend on, so the row only names it and loads it.
  mcp: {
    summary: "MCP: the provider as a get_context tool, through the bridge package",
    home: { package: MCP_BRIDGE_PACKAGE },
    serve: async (load, options) => {
      const bridge = await loadMcpBridge();
      const token = options.http !== undefined ? (options.token ?? process.env.OCP_HTTP_TOKEN) : undefined;
      await bridge.runMcp(load, { ...options.mcp, http: options.http, token });
    },
  } satisfies Transport,
} as const;

/** A transport's name. */
export type TransportName = keyof typeof TRANSPORTS;

/** The transports of the OCP wire: those with a conformance suite (`ocp inspect stdio|http`). */
export type WireTransport = {
  [Name in TransportName]: (typeof TRANSPORTS)[Name] extends { conformance: unknown } ? Name : never;
}[TransportName];

/** The names of {@link WireTransport}, in table order. */
export const WIRE_TRANSPORTS: readonly WireTransport[] = (Object.keys(TRANSPORTS) as TransportName[]).filter(
  (name): name is WireTransport => "conformance" in TRANSPORTS[name],
);

/** The transport that serves `options`: MCP if asked, else HTTP if an address is given, else stdio. */
export function servedOver(options: ServeOptions): TransportName {
  return options.mcp !== undefined ? "mcp" : options.http !== undefined ? "http" : "stdio";
}
