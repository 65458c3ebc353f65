/**
 * The way to the MCP bridge. The bridge lives in its own package, `ocp-provider-mcp`,
 * with the MCP SDK and everything it pulls in; the core never depends on it, and
 * loads it only when a command is asked to serve over MCP (`ocp mcp`, `--mcp`).
 */
import { ERROR_CODES, OcpError } from "../provider/errors.js";
import type { Provider } from "../provider/provider.js";
import type { TokenizerName } from "../tokens/registry.js";

/** The package `ocp mcp` and `--mcp` load on demand. */
export const MCP_BRIDGE_PACKAGE = "ocp-provider-mcp";

/** What a command line can ask of the bridge. */
export interface McpRunOptions {
  /** Serve streamable HTTP on this address; over stdio when absent. */
  http?: { host: string; port: number };
  /** Bearer token required over HTTP. */
  token?: string;
  /** Bridge a provider that declares `egress: true` (consent given on the command line). */
  allowEgress?: boolean;
  /** The tool's name; default `get_context`. */
  toolName?: string;
  /** Over HTTP: most client sessions open at once (the bridge's default when absent). */
  maxSessions?: number;
  /** The tokenizer of the client's model: `max_tokens` and every cost are counted in it; default the provider's own. */
  tokenizer?: TokenizerName;
}

/** The part of the bridge package the core calls. */
export interface McpBridgeModule {
  /**
   * Serves the provider that `load` makes to MCP clients until the client (stdio) or a
   * signal (HTTP) ends it; resolves once serving. Over stdio, stdout is guarded before `load` runs.
   */
  runMcp(load: () => Provider | Promise<Provider>, options: McpRunOptions): Promise<void>;
}

/**
 * Imports the bridge package. If it is not installed, throws an {@link OcpError}
 * (`OCP_ERR_MODULE_LOAD`) that names the package to install; any other failure to
 * load it (a broken install) is rethrown as is. `importer` is for tests.
 */
export async function loadMcpBridge(
  importer: (specifier: string) => Promise<unknown> = (specifier) => import(specifier),
  specifier: string = MCP_BRIDGE_PACKAGE,
): Promise<McpBridgeModule> {
  let bridge: unknown;
  try {
    bridge = await importer(specifier);
  } catch (error) {
    const code = (error as { code?: string }).code;
    // Only the bridge itself missing is "not installed": a dependency of it missing is a broken install.
    if (code !== "ERR_MODULE_NOT_FOUND" || !String((error as Error).message).includes(`'${specifier}'`)) throw error;
    throw new OcpError(
      ERROR_CODES.MODULE_LOAD,
      `serving over MCP needs the package ${specifier}, which is not installed: npm install ${specifier}`,
    );
  }
  if (typeof (bridge as Partial<McpBridgeModule>).runMcp !== "function") {
    throw new OcpError(ERROR_CODES.MODULE_LOAD, `${specifier} does not export runMcp(): install a matching version`);
  }
  return bridge as McpBridgeModule;
}
