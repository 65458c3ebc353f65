/**
 * `ocp-provider/serve`: serve a provider the way every `ocp-*` command does. A
 * provider's bin is one {@link runProviderCommand} call: its name, version, options
 * and how they make the provider; `--http`, `--token`, `--allow-origin`, `--mcp`,
 * `--help`, `--version`, usage errors and exit codes are the runner's.
 */
export {
  type ProviderCommandSpec,
  parseProviderCommand,
  runProviderCommand,
  SERVE_OPTIONS,
  SERVE_OPTIONS_HELP,
  serveOptionsOf,
} from "../cli/provider-command.js";
export { MCP_BRIDGE_PACKAGE, type McpBridgeModule, type McpRunOptions } from "./mcp-bridge.js";
export { type ServeOptions, serveProvider } from "./serve-provider.js";
