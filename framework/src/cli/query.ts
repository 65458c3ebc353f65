/**
 * `ocp query`: ask a provider one question and show what came back — a module loaded
 * in-process, a command spawned as a host spawns it (`ocp query "goal" -- CMD ARGS…`),
 * or a provider listening for HTTP (`ocp query --http URL "goal"`). The goal comes
 * before `--`, so nothing of the command's own line is taken for it. The command and
 * URL are read as `ocp inspect` reads its targets (the transport table's parsers), and
 * spoken to through the host client (`ocp-provider/host`): the same audit of every
 * answer against its budget, and the same output, terminal or `--json`, as in-process.
 *
 * Naming the command or the URL is the consent to send it the goal. A provider that
 * declares `data_flow.egress` (what it is sent may leave this machine) is asked only
 * with `--allow-egress`, as `ocp mcp` serves one only with it.
 */
import type { ProviderConnection } from "../host/connection.js";
import type { ConsentGate } from "../host/consent.js";
import type { Provider } from "../provider/provider.js";
import { TRANSPORTS } from "../transports/table.js";
import type { ProviderTarget } from "../transports/targets.js";
import { type ContextQuery, type ContextQueryResult, FRAME_KINDS, type FrameKind } from "../wire/schemas.js";
import { asOfProblem } from "./as-of.js";
import { useColor } from "./color.js";
import { type CommandArgs, type OptionSpecs, parseCommandArgs, UsageError } from "./command.js";
import { loadProvider } from "./load-provider.js";
import { renderFrames } from "./render.js";

/** Every option of `ocp query`: the query's fields, the output, and how a provider not in-process is reached. */
export const QUERY_OPTIONS = {
  "max-tokens": { type: "string" },
  "max-frames": { type: "string" },
  kinds: { type: "string" },
  "query-text": { type: "string" },
  anchors: { type: "string" },
  "as-of": { type: "string" },
  json: { type: "boolean" },
  full: { type: "boolean" },
  http: { type: "string" },
  token: { type: "string" },
  timeout: { type: "string" },
  "allow-egress": { type: "boolean" },
} as const satisfies OptionSpecs;

/** The options that only make sense for a provider reached over a transport. */
const REMOTE_ONLY = ["token", "timeout", "allow-egress"] as const;

/** Where the provider is: a module to load in-process, or a target to reach as a host. */
type Source = { module: string } | { target: ProviderTarget; allowEgress: boolean; timeoutMs: number };

/** A read command line of `ocp query`. */
interface QueryLine {
  source: Source;
  query: ContextQuery;
  json: boolean;
  full: boolean;
}

function count(args: CommandArgs, name: string, fallback: number): number {
  const value = args.string(name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(parsed) || parsed > 4_294_967_295) {
    throw new UsageError(`--${name} must be a whole number ≥ 0, not '${value}'`);
  }
  return parsed;
}

/** The list of an option like `--kinds a,b`, empty entries dropped. */
const listOf = (value: string | undefined) => (value ?? "").split(",").filter((item) => item !== "");

/** Reads `ocp query`'s arguments (after the word `query`); a mistake is a {@link UsageError}. */
export function readQueryLine(argv: readonly string[]): QueryLine {
  const dashes = argv.indexOf("--");
  const own = dashes === -1 ? argv : argv.slice(0, dashes);
  const command = dashes === -1 ? undefined : argv.slice(dashes + 1);
  const args = parseCommandArgs(own, QUERY_OPTIONS, { positionals: Number.POSITIVE_INFINITY });
  const source = readSource(args, command);
  const goal = args.positionals.at(-1) as string;
  const kinds = listOf(args.string("kinds"));
  for (const kind of kinds) {
    if (!(FRAME_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(`unknown kind '${kind}' (expected ${FRAME_KINDS.join(", ")})`);
    }
  }
  const asOf = args.string("as-of");
  const asOfWrong = asOf === undefined ? undefined : asOfProblem(asOf);
  if (asOfWrong !== undefined) throw new UsageError(`--as-of '${asOf}': ${asOfWrong}`);
  const query: ContextQuery = {
    goal,
    query_text: args.string("query-text"),
    kinds: kinds as FrameKind[],
    anchors: listOf(args.string("anchors")),
    max_tokens: count(args, "max-tokens", 1024),
    max_frames: count(args, "max-frames", 8),
    as_of: asOf,
  };
  return { source, query, json: args.flag("json"), full: args.flag("full") };
}

/** Which form the line is — module, command after `--`, or `--http URL` — and its target. */
function readSource(args: CommandArgs, command: readonly string[] | undefined): Source {
  const goals = args.positionals;
  const http = args.string("http");
  if (command === undefined && http === undefined) {
    const remote = REMOTE_ONLY.find((name) => args.has(name));
    if (remote !== undefined) throw new UsageError(`--${remote} is for a provider after -- or at --http`);
    if (goals.length !== 2) throw new UsageError('takes a module and a goal: ocp query <module> "<goal>"');
    return { module: goals[0] as string };
  }
  if (command !== undefined && http !== undefined) throw new UsageError("give a command after -- or --http, not both");
  if (command !== undefined && command.length === 0) throw new UsageError("put the provider's command after --");
  const where = http !== undefined ? "--http <url>" : "-- <command>";
  if (goals.length === 0) throw new UsageError(`say the goal before ${where}: ocp query "<goal>" ${where}`);
  if (goals.length > 1) {
    throw new UsageError(`one goal, in quotes, before ${where} (got ${goals.length} words: ${goals.join(" ")})`);
  }
  const timeout = args.string("timeout");
  const timeoutMs = timeout === undefined ? 30_000 : Number(timeout);
  if (!/^\d+$/.test(timeout ?? "1") || !Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
    throw new UsageError(`--timeout must be a positive whole number of ms, not '${timeout}'`);
  }
  // The targets are read as `ocp inspect` reads them: one parser per transport, in the table.
  const targetArgs = {
    rest: command ?? [],
    positionals: http !== undefined ? [http] : [],
    has: (name: string) => args.has(name),
    string: (name: string) => args.string(name),
  };
  const target =
    http !== undefined ? TRANSPORTS.http.inspect.target(targetArgs) : TRANSPORTS.stdio.inspect.target(targetArgs);
  if (target.transport === "stdio" && args.has("token")) throw new UsageError("--token goes with --http");
  return { target, allowEgress: args.flag("allow-egress"), timeoutMs };
}

/** Runs `ocp query`: asks, prints the answer, and leaves the provider as a host does. */
export async function queryCommand(argv: readonly string[]): Promise<void> {
  const line = readQueryLine(argv);
  const result =
    "module" in line.source
      ? await askInProcess(await loadProvider(line.source.module), line.query)
      : await askAsHost(line.source, line.query);
  if (line.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    renderFrames(result, {
      maxTokens: line.query.max_tokens,
      color: useColor(process.stdout),
      goal: [line.query.goal, line.query.query_text].filter((text) => text !== undefined).join(" "),
      full: line.full,
    }),
  );
}

async function askInProcess(provider: Provider, query: ContextQuery): Promise<ContextQueryResult> {
  try {
    return await provider.query(query);
  } finally {
    await provider.close();
  }
}

/** Connects as a host, asks once (consent-gated, budget-audited), and shuts the provider down. */
async function askAsHost(
  source: Extract<Source, { target: unknown }>,
  query: ContextQuery,
): Promise<ContextQueryResult> {
  const { connectHttp, connectStdio, HOST_ERROR_CODES, HostError } = await import("../host/index.js");
  // Naming it is the consent to send it the goal; sending it on off this machine needs the flag.
  const consent: ConsentGate = { isGranted: (subject) => source.allowEgress || subject.dataFlow?.egress === false };
  // The host's loud reports (stdout noise), as this command's; a dropped answer is this command's own failure line.
  const report = (message: string) => {
    if (!message.startsWith("BUDGET VIOLATION")) process.stderr.write(`ocp query: ${message}\n`);
  };
  const options = { consent, report, handshakeTimeoutMs: source.timeoutMs, queryTimeoutMs: source.timeoutMs };
  const { target } = source;
  const connection: ProviderConnection =
    target.transport === "stdio"
      ? await connectStdio(target.command, target.args, options)
      : await connectHttp(target.url, { ...options, token: target.token });
  try {
    if (!consent.isGranted(connection.consentSubject)) {
      throw new HostError(
        HOST_ERROR_CODES.CONSENT_REQUIRED,
        `provider '${connection.info.name}' declares egress: what it is sent may leave this machine. ` +
          "Nothing was sent; ask it only with consent: --allow-egress",
      );
    }
    return await connection.query(query);
  } finally {
    await connection.shutdown();
    // What it logged, as an in-process provider's log would show: on stderr, before the answer.
    const said = connection.stderr().trim();
    if (said !== "") process.stderr.write(`${printableLog(said)}\n`);
  }
}

/**
 * A provider's stderr fit for a terminal: it is another program's output, and a control
 * sequence in it must not reach the terminal as one. Newlines and tabs stay.
 */
function printableLog(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing control characters is the point
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "\ufffd");
}
