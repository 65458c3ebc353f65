/**
 * Serving a provider over stdio, HTTP or (through the MCP bridge) MCP, the way every
 * `ocp-*` command does; `ocp-provider/serve` exports it with the command runner.
 */
import { type LoadProvider, type ServeOptions, servedOver, TRANSPORTS } from "./table.js";

export type { ServeOptions };

/**
 * Serves the provider that `load` makes over the transport `options` ask for (the
 * table's row). Over stdio, stdout is guarded *before* `load` runs, so nothing loading
 * prints can reach the host, and the process ends with the session (this never
 * resolves). Over HTTP it resolves once listening, after writing
 * `<name> <version> listening on <url>` to stderr; SIGTERM drains and exits.
 * Transports load on demand: serving over stdio never loads the HTTP server. With
 * `mcp`, the MCP bridge serves instead (over stdio or HTTP, the same way).
 */
export async function serveProvider(load: LoadProvider, options: ServeOptions = {}): Promise<void> {
  await TRANSPORTS[servedOver(options)].serve(load, options);
}
