/**
 * The `ocp` command: `ocp serve` runs a provider module for a host, `ocp mcp` serves
 * it to MCP clients, `ocp query` asks a provider (a module, a command, a URL) one
 * question and shows what came back, `ocp bench` benchmarks its token accounting, `ocp eval` measures whether its
 * frames are the right ones, `ocp inspect` checks it, `ocp add`/`generate` are codemods.
 * Each subcommand's help is in usage.ts.
 */
import { describeError, ERROR_CODES, OcpError, UserError } from "../provider/errors.js";
import { resolveTokenizer, TOKENIZERS } from "../tokens/registry.js";
import { TRANSPORTS } from "../transports/table.js";
import { wantsHelp } from "./args.js";
import { CommandArgs, debugStack, type OptionSpecs, parseCommandArgs, UsageError } from "./command.js";
import { loadProvider } from "./load-provider.js";
import { announcedOnTerminal, SERVE_OPTIONS, serveOptionsOf } from "./provider-command.js";
import { COMMAND_HELP, CommandUsageError, commandUsage, overview, versionText } from "./usage.js";

/** A usage error of `ocp <command>`, printed as one line with its synopsis. */
function usageError(command: string | undefined, message: string): CommandUsageError {
  return new CommandUsageError(command, message);
}

const { http, token, "allow-origin": allowOrigin, "allow-egress": allowEgress } = SERVE_OPTIONS;
/** The options of `ocp serve`: the provider bins' serving options, but MCP's (that is `ocp mcp`). */
export const SERVE_COMMAND_OPTIONS = { http, token, "allow-origin": allowOrigin } as const satisfies OptionSpecs;
/** The options of `ocp mcp`. */
export const MCP_COMMAND_OPTIONS = {
  http,
  token,
  "allow-egress": allowEgress,
  "tool-name": { type: "string" },
  "max-sessions": { type: "string" },
  tokenizer: { type: "string" },
} as const satisfies OptionSpecs;

/**
 * The module and serving options of `ocp serve`/`ocp mcp`, read and checked as every
 * provider bin reads them (provider-command.ts), its usage errors worded for `command`.
 */
function servingLine(command: "serve" | "mcp", args: string[], options: OptionSpecs) {
  try {
    const parsed = parseCommandArgs(args, options, { positionals: 2 });
    const [module] = parsed.positionals;
    if (module === undefined || parsed.positionals.length > 1) throw new UsageError("takes exactly one module");
    // `ocp mcp` is --mcp: its --allow-egress needs no flag more.
    const line = command === "mcp" ? new CommandArgs({ ...parsed.values, mcp: true }, parsed.positionals) : parsed;
    return { module, args: parsed, serve: serveOptionsOf(line) };
  } catch (error) {
    throw error instanceof UsageError ? usageError(command, error.message) : error;
  }
}

async function serveCommand(args: string[]): Promise<void> {
  const { module, serve } = servingLine("serve", args, SERVE_COMMAND_OPTIONS);
  // Loaded here: the HTTP server's modules are no cost to `ocp query` or `ocp --help`.
  const { serveProvider } = await import("../transports/serve-provider.js");
  // Over stdio the module loads after stdout is guarded: whatever it prints must not reach the host.
  await serveProvider(
    announcedOnTerminal(() => loadProvider(module), serve, `ocp query ${module} "<goal>"`),
    serve,
  );
}

/** `ocp mcp`: the bridge package is loaded only now, so the core never depends on it. */
async function mcpCommand(args: string[]): Promise<void> {
  const { module, args: line, serve } = servingLine("mcp", args, MCP_COMMAND_OPTIONS);
  const sessions = line.string("max-sessions");
  if (sessions !== undefined && serve.http === undefined) throw usageError("mcp", "--max-sessions needs --http");
  const maxSessions = sessions === undefined ? undefined : Number(sessions);
  if (
    maxSessions !== undefined &&
    (!/^\d+$/.test(sessions as string) || maxSessions < 1 || !Number.isSafeInteger(maxSessions))
  ) {
    throw usageError("mcp", `--max-sessions must be a whole number ≥ 1, not '${sessions}'`);
  }
  const named = line.string("tokenizer");
  const tokenizer = named === undefined ? undefined : resolveTokenizer(named);
  if (named !== undefined && tokenizer === undefined) {
    throw usageError("mcp", `unknown tokenizer '${named}' (expected one of ${TOKENIZERS.join(", ")})`);
  }
  // The transport table's front door: it names the bridge package and loads it now.
  await TRANSPORTS.mcp.serve(() => loadProvider(module), {
    ...serve,
    mcp: {
      allowEgress: serve.mcp?.allowEgress === true,
      toolName: line.string("tool-name"),
      maxSessions,
      ...(tokenizer !== undefined ? { tokenizer } : {}),
    },
  });
}

/** `ocp query`: its own module, its usage errors worded for `ocp query`. */
async function queryCommand(args: string[]): Promise<void> {
  const { queryCommand: run } = await import("./query.js");
  try {
    await run(args);
  } catch (error) {
    throw error instanceof UsageError ? usageError("query", error.message) : error;
  }
}

/**
 * `ocp add …` / `ocp generate …` run create-ocp-provider's codemods. They live there
 * (ts-morph, node-plop), so the core depends on none of it; it must be installed.
 */
async function forwardToCreate(command: string, rest: string[]): Promise<number> {
  const name = "create-ocp-provider";
  let create: { main(argv: string[], options?: { bin?: string }): Promise<number> };
  try {
    // Its command line alone, not the package's root: that loads the codemods (ts-morph), a
    // second of start-up that `ocp add --help` or a usage error never needs.
    create = (await import(`${name}/cli`)) as typeof create;
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_MODULE_NOT_FOUND" || !String(error).includes(`'${name}'`)) {
      throw error;
    }
    // Help needs no codemod: say what the command would do, and how to get it.
    if (wantsHelp(rest)) {
      process.stdout.write(commandUsage(command));
      return 0;
    }
    throw new OcpError(
      ERROR_CODES.MODULE_LOAD,
      `'ocp ${command}' needs create-ocp-provider: npm install -D create-ocp-provider (or run npx create-ocp-provider ${command} …)`,
    );
  }
  // Its help and errors then name the command typed: `ocp add …`, not create-ocp-provider.
  return await create.main([command, ...rest], { bin: "ocp" });
}

/** Runs the `ocp` command line; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    // `ocp serve x.ts --help` asks for help, whatever else is on the line.
    if ((command === "serve" || command === "mcp" || command === "query" || command === "bench") && wantsHelp(rest)) {
      process.stdout.write(commandUsage(command));
      return 0;
    }
    switch (command) {
      case "serve":
        await serveCommand(rest);
        return 0;
      case "mcp":
        await mcpCommand(rest);
        return 0;
      case "query":
        await queryCommand(rest);
        return 0;
      case "bench": {
        const { benchCommand } = await import("./bench.js");
        await benchCommand(rest);
        return 0;
      }
      case "add":
      case "generate":
        return await forwardToCreate(command, rest);
      case "eval": {
        const { evalMain } = await import("./eval.js");
        return await evalMain(rest);
      }
      case "inspect": {
        const { inspectMain } = await import("./inspect.js");
        return await inspectMain(rest, "ocp inspect");
      }
      case "--version":
        process.stdout.write(versionText());
        return 0;
      case "help":
        // `ocp help <command>` is `ocp <command> --help`, whoever writes that help.
        if (rest[0] !== undefined && Object.hasOwn(COMMAND_HELP, rest[0])) return await main([rest[0], "--help"]);
        process.stdout.write(overview());
        return 0;
      case undefined:
      case "--help":
      case "-h":
        process.stdout.write(overview());
        return command === undefined ? 2 : 0;
      default:
        throw usageError(undefined, `unknown command '${command}'`);
    }
  } catch (error) {
    if (error instanceof CommandUsageError) {
      process.stderr.write(error.line());
      return 2;
    }
    // Coded errors (ours, the MCP bridge's OCP_ERR_MCP_*) and a plugin's UserError are written for people.
    const coded =
      error instanceof OcpError ||
      error instanceof UserError ||
      /^OCP_ERR_/.test(String((error as { code?: unknown })?.code));
    const said = coded ? (error as Error).message : describeError(error);
    const named = ["query", "serve", "mcp", "bench"];
    const program = command !== undefined && named.includes(command) ? `ocp ${command}` : "ocp";
    process.stderr.write(`${debugStack(error)}${program}: ${said}\n`);
    return error instanceof OcpError && error.code === ERROR_CODES.USAGE ? 2 : 1;
  }
}
