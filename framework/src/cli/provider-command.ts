/**
 * `runProviderCommand`: the bin of a provider (`ocp-ripgrep`, `ocp-symbols`,
 * `ocp-facts serve`) as one declaration — its name, version, options, and how they
 * make the provider. The serving options (`--http`, `--token`, `--allow-origin`,
 * `--mcp`, `--allow-egress`) and their checks are the same on every bin because they
 * are written here once. Serving loads on demand: `--help` loads no transport, and
 * only `--mcp` loads the MCP bridge (the core never depends on the MCP SDK).
 */
import type { Provider } from "../provider/provider.js";
import { parseListenAddress } from "../transports/http/listen.js";
import type { ServeOptions } from "../transports/serve-provider.js";
import { PROTOCOL_VERSION } from "../wire/version.js";
import {
  type CommandArgs,
  type CommandIo,
  type CommandSpec,
  type OptionSpecs,
  parseCommandArgs,
  runCommand,
  type Subcommand,
  UsageError,
} from "./command.js";

/** The options every provider bin takes to say how it is served. */
export const SERVE_OPTIONS = {
  http: { type: "string" },
  token: { type: "string" },
  "allow-origin": { type: "string", multiple: true },
  mcp: { type: "boolean" },
  "allow-egress": { type: "boolean" },
} as const satisfies OptionSpecs;

/** The help lines of {@link SERVE_OPTIONS}, aligned as the bins' own options are (column 25). */
export const SERVE_OPTIONS_HELP = `  --http [host:]port     serve streamable HTTP instead (host default 127.0.0.1)
  --token T              with --http: require "Authorization: Bearer T" (default: $OCP_HTTP_TOKEN)
  --allow-origin O       with --http: also answer web pages from origin O (https://app.example; repeatable)
  --mcp                  serve MCP clients (stdio, or streamable HTTP at /mcp with --http)
  --allow-egress         with --mcp: consent to serve a provider whose data leaves the machine`;

/** What {@link runProviderCommand} needs to know about a provider's bin. */
export interface ProviderCommandSpec {
  /** The bin's name: `ocp-ripgrep`. */
  name: string;
  /** `--version`'s answer, or how to find it (a lazy import keeps `--help` light). */
  version: string | (() => string | Promise<string>);
  /** The text `--help` prints ({@link SERVE_OPTIONS_HELP} lists the serving options). */
  usage: string;
  /** The usage line a usage error names; given the subcommand when there is one. */
  synopsis: string | ((command: string | undefined) => string);
  /** The provider's own options; with {@link commands}, shared by every subcommand. */
  options: OptionSpecs;
  /** Accept `--no-<flag>` for boolean options. */
  allowNegative?: boolean;
  /** Checks the line before anything starts; whatever it throws is a usage error (exit 2). */
  check?(args: CommandArgs): void;
  /** A mode that does not serve (`--index`): resolves to its exit code, or undefined to serve. */
  instead?(args: CommandArgs): Promise<number | undefined> | number | undefined;
  /** Makes the provider to serve; over stdio it runs with stdout already guarded. */
  toProvider(args: CommandArgs): Provider | Promise<Provider>;
  /** Words added to the "listening on" line over HTTP, such as where the data lives. */
  detail?(provider: Provider): string | undefined;
  /** Subcommands besides serving; with them, serving is the `serve` subcommand. */
  commands?: Readonly<Record<string, Subcommand>>;
  /** With {@link commands}: options only `serve` takes. */
  serveOptions?: OptionSpecs;
  /** `<name> <command> --help` (default: the whole usage). */
  commandUsage?(command: string): string;
  /** A failure's words after `<name>: ` (default: its message, and a coded error's code). */
  describeFailure?(error: unknown): string;
}

/**
 * The line a provider served over stdio writes to stderr when its stdin is a terminal:
 * a person ran it, and silence would look like a hang. A host's pipe never sees it.
 */
export function stdioBanner(provider: Provider, ask: string): string {
  const { name, version } = provider.info;
  return (
    `${name} ${version}: serving OCP (${PROTOCOL_VERSION}) over stdio, waiting for a host's NDJSON envelopes ` +
    `on stdin (Ctrl-D ends). To ask it one question: ${ask}\n`
  );
}

/**
 * Wraps `load` so that, serving over stdio with stdin a terminal (`terminal`, by default
 * the process's), the loaded provider says so on stderr ({@link stdioBanner}).
 */
export function announcedOnTerminal(
  load: () => Provider | Promise<Provider>,
  serve: ServeOptions,
  ask: string,
  terminal: () => boolean = () => process.stdin.isTTY === true,
): () => Promise<Provider> {
  return async () => {
    const provider = await load();
    if (serve.http === undefined && serve.mcp === undefined && terminal()) {
      process.stderr.write(stdioBanner(provider, ask));
    }
    return provider;
  };
}

/**
 * How `args` (parsed with {@link SERVE_OPTIONS}) asks to be served; a combination that
 * cannot work (`--token` without `--http`, a bad address or origin) is a {@link UsageError}.
 */
export function serveOptionsOf(args: CommandArgs): ServeOptions {
  const address = args.string("http");
  const http = address === undefined ? undefined : parseListenAddress(address);
  if (address !== undefined && http === undefined) {
    throw new UsageError(`--http expects [host:]port, not '${address}'`);
  }
  if (args.has("token") && http === undefined) throw new UsageError("--token needs --http");
  const origins = args.list("allow-origin") ?? [];
  if (origins.length > 0 && http === undefined) throw new UsageError("--allow-origin needs --http");
  if (origins.length > 0 && args.flag("mcp")) throw new UsageError("--allow-origin is for OCP over --http, not --mcp");
  for (const origin of origins) {
    if (!/^https?:\/\/[^/?#\s]+\/?$/.test(origin)) {
      throw new UsageError(`--allow-origin expects an origin like https://app.example, not '${origin}'`);
    }
  }
  if (args.flag("allow-egress") && !args.flag("mcp")) throw new UsageError("--allow-egress goes with --mcp");
  return {
    http,
    token: args.string("token"),
    ...(origins.length > 0 ? { allowedOrigins: origins } : {}),
    mcp: args.flag("mcp") ? { allowEgress: args.flag("allow-egress") } : undefined,
  };
}

/**
 * Reads a provider bin's command line (one without subcommands) as `runProviderCommand`
 * would, without serving: the parsed options and how they ask to be served. For tests
 * of a bin's options.
 */
export function parseProviderCommand(
  spec: Pick<ProviderCommandSpec, "options" | "allowNegative">,
  argv: readonly string[],
): { args: CommandArgs; serve: ServeOptions } {
  const args = parseCommandArgs(argv, { ...spec.options, ...SERVE_OPTIONS }, { allowNegative: spec.allowNegative });
  return { args, serve: serveOptionsOf(args) };
}

/**
 * Runs a provider's bin: `--help`, `--version`, the checks, then serves over stdio
 * (the default: what a host spawns), HTTP (`--http`) or MCP (`--mcp`). Resolves to an
 * exit code — 0, 1 failed, 2 usage error — or to `"serving"` once a server is
 * listening; over stdio the process ends with the session.
 */
export function runProviderCommand(
  spec: ProviderCommandSpec,
  argv: readonly string[] = process.argv.slice(2),
  io?: CommandIo,
): Promise<number | "serving"> {
  return runCommand(providerCommandSpec(spec), argv, io);
}

/**
 * The command {@link runProviderCommand} runs for `spec`: its options with the serving
 * ones added (to `serve`, with subcommands), its help and its synopsis. What a test
 * of a bin's help against its parser reads.
 */
export function providerCommandSpec(spec: ProviderCommandSpec): CommandSpec {
  const serve = (args: CommandArgs) => serveWith(spec, args);
  const command: CommandSpec = {
    name: spec.name,
    version: spec.version,
    usage: spec.usage,
    synopsis: spec.synopsis,
    allowNegative: spec.allowNegative,
    commandUsage: spec.commandUsage,
    describeFailure: spec.describeFailure,
  };
  if (spec.commands === undefined) {
    command.options = { ...spec.options, ...SERVE_OPTIONS };
    command.run = serve;
  } else {
    if (Object.hasOwn(spec.commands, "serve")) throw new Error(`${spec.name}: 'serve' is the runner's subcommand`);
    command.options = spec.options;
    command.commands = {
      ...spec.commands,
      serve: { options: { ...spec.serveOptions, ...SERVE_OPTIONS }, run: serve },
    };
  }
  return command;
}

async function serveWith(spec: ProviderCommandSpec, args: CommandArgs): Promise<number | "serving"> {
  const serving = serveOptionsOf(args);
  try {
    spec.check?.(args);
  } catch (error) {
    // Every option checked now, so a bad value is a usage error rather than a failed start.
    throw error instanceof UsageError ? error : new UsageError(error instanceof Error ? error.message : String(error));
  }
  const code = await spec.instead?.(args);
  if (code !== undefined) return code;
  // Loaded now: `--help` and a usage error load no transport.
  const { serveProvider } = await import("../transports/serve-provider.js");
  // Its own options stand for the ones given: a person reads this, not a program.
  const ask = `ocp query "<goal>" -- ${spec.name} [its options]`;
  await serveProvider(
    announcedOnTerminal(() => spec.toProvider(args), serving, ask),
    {
      ...serving,
      detail: spec.detail,
    },
  );
  return "serving";
}
