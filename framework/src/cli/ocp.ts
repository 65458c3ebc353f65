/**
 * The `ocp` command: `ocp serve` runs a provider module for a host, `ocp query`
 * asks it one question in-process and shows what came back, `ocp eval` measures
 * whether a provider's frames are the right ones.
 */
import { parseArgs } from "node:util";
import { describeError, ERROR_CODES, OcpError } from "../provider/errors.js";
import { parseListenAddress } from "../transport/listen.js";
import { serveProvider } from "../transport/serve.js";
import { type ContextQuery, FRAME_KINDS, type FrameKind } from "../wire/schemas.js";
import { loadProvider } from "./load-provider.js";
import { renderFrames } from "./render.js";

const USAGE = `ocp — Open Context Protocol (ocp/1.0-draft) provider tools

Usage:
  ocp serve <module> [--http [host:]port] [--token T]
      Serve the provider that <module> exports by default: over stdio (NDJSON), or
      over HTTP with --http (default host 127.0.0.1). --token (or OCP_HTTP_TOKEN)
      requires "Authorization: Bearer T".
  ocp query <module> "<goal>" [--max-tokens N] [--max-frames N] [--kinds k,..]
            [--query-text T] [--anchors a,..] [--as-of T] [--json]
      Run one query in-process and print the frames (or the result as JSON).
  ocp inspect stdio [--query TEXT] [--json] [--tokenizer T] -- <command> [args...]
  ocp inspect http <url> [--token T] [--query TEXT] [--json] [--tokenizer T]
      Run the conformance suite against a provider; exit 0 iff it is conformant.
      "ocp inspect --help" says more.
  ocp eval --repo PATH [--budget B,..] [--cases N|FILE] [--json] -- <command with {root}>
      Score a provider's frames on goals mined from a git history, beside BM25.
      "ocp eval --help" says more.
  ocp add plugin <ripgrep|symbols|facts> [--file src/provider.ts]
  ocp generate plugin <name>
      Codemods from create-ocp-provider (install it): wire a reference plugin into
      defineProvider's plugins, or scaffold a new plugin with its test.

<module> is a .js or .ts file whose default export is defineProvider({ ... }).
`;

function usageError(message: string): OcpError {
  return new OcpError(ERROR_CODES.USAGE, `${message}\n\n${USAGE}`);
}

/** Runs a parseArgs call, turning its complaints (unknown option, missing value) into usage errors. */
function parsed<R>(parse: () => R): R {
  try {
    return parse();
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) throw usageError((error as Error).message);
    throw error;
  }
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 4_294_967_295) {
    throw usageError(`--${name} must be a whole number ≥ 0, not '${value}'`);
  }
  return parsed;
}

async function serveCommand(args: string[]): Promise<void> {
  const { values, positionals } = parsed(() =>
    parseArgs({
      args,
      allowPositionals: true,
      options: { http: { type: "string" }, token: { type: "string" } },
    }),
  );
  const [module] = positionals;
  if (module === undefined || positionals.length > 1) throw usageError("ocp serve takes exactly one module");
  let http: { host: string; port: number } | undefined;
  if (values.http !== undefined) {
    http = parseListenAddress(values.http);
    if (http === undefined) throw usageError(`--http expects [host:]port, not '${values.http}'`);
  }
  // Over stdio the module loads after stdout is guarded: whatever it prints must not reach the host.
  await serveProvider(() => loadProvider(module), { http, token: values.token });
}

async function queryCommand(args: string[]): Promise<void> {
  const { values, positionals } = parsed(() =>
    parseArgs({
      args,
      allowPositionals: true,
      options: {
        "max-tokens": { type: "string" },
        "max-frames": { type: "string" },
        kinds: { type: "string" },
        "query-text": { type: "string" },
        anchors: { type: "string" },
        "as-of": { type: "string" },
        json: { type: "boolean", default: false },
      },
    }),
  );
  const [module, goal] = positionals;
  if (module === undefined || goal === undefined || positionals.length > 2) {
    throw usageError('ocp query takes a module and a goal: ocp query <module> "<goal>"');
  }
  const kinds = (values.kinds ?? "").split(",").filter((kind) => kind !== "");
  for (const kind of kinds) {
    if (!(FRAME_KINDS as readonly string[]).includes(kind)) {
      throw usageError(`unknown kind '${kind}' (expected ${FRAME_KINDS.join(", ")})`);
    }
  }
  const query: ContextQuery = {
    goal,
    query_text: values["query-text"],
    kinds: kinds as FrameKind[],
    anchors: (values.anchors ?? "").split(",").filter((anchor) => anchor !== ""),
    max_tokens: positiveInt("max-tokens", values["max-tokens"], 1024),
    max_frames: positiveInt("max-frames", values["max-frames"], 8),
    as_of: values["as-of"],
  };
  const provider = await loadProvider(module);
  try {
    const result = await provider.query(query);
    if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else
      process.stdout.write(renderFrames(result, { maxTokens: query.max_tokens, color: process.stdout.isTTY === true }));
  } finally {
    await provider.close();
  }
}

/**
 * `ocp add …` / `ocp generate …` run create-ocp-provider's codemods. They live there
 * (ts-morph, node-plop), so the core depends on none of it; it must be installed.
 */
async function forwardToCreate(command: string, rest: string[]): Promise<number> {
  const name = "create-ocp-provider";
  let create: { main(argv: string[]): Promise<number> };
  try {
    create = (await import(name)) as typeof create;
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_MODULE_NOT_FOUND" || !String(error).includes(`'${name}'`)) {
      throw error;
    }
    throw new OcpError(
      ERROR_CODES.MODULE_LOAD,
      `'ocp ${command}' needs create-ocp-provider: npm install -D create-ocp-provider (or run npx create-ocp-provider ${command} …)`,
    );
  }
  return await create.main([command, ...rest]);
}

/** Runs the `ocp` command line; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "serve":
        await serveCommand(rest);
        return 0;
      case "query":
        await queryCommand(rest);
        return 0;
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
      case undefined:
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw usageError(`unknown command '${command}'`);
    }
  } catch (error) {
    process.stderr.write(`ocp: ${error instanceof OcpError ? error.message : describeError(error)}\n`);
    return error instanceof OcpError && error.code === ERROR_CODES.USAGE ? 2 : 1;
  }
}
