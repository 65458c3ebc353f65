/**
 * `ocp inspect` (and its alias `ocp-inspect`): run the conformance suite against a
 * provider and say whether it is conformant. Exit 0 iff it is; 1 if not; 2 on a
 * usage error. `--json` writes the report and nothing else to stdout.
 *
 * `--query TEXT` first asks the provider that one question and shows its frames
 * and stderr; the same text then drives the suite's probe queries. Typing it is
 * the consent to send it: the inspector talks to the provider you name, directly.
 */
import { parseArgs } from "node:util";
import { runConformance } from "../conformance/run.js";
import { type Sample, sampleQuery } from "../conformance/sample.js";
import type { ConformanceTarget } from "../conformance/types.js";
import { describeError } from "../provider/errors.js";
import { CORE_VERSION } from "../provider/plugin.js";
import { TOKENIZERS, type TokenizerName } from "../tokens/counter.js";
import { argsErrorMessage, usageErrorLine, wantsHelp, wantsVersion } from "./args.js";
import { useColor } from "./color.js";
import { startProgress } from "./inspect-progress.js";
import { renderReport, renderSample } from "./inspect-render.js";

/** Which command line is speaking, for usage text and messages. */
export type InspectProgram = "ocp inspect" | "ocp-inspect";

function usage(program: InspectProgram): string {
  return `${program} — prove an Open Context Protocol (ocp/1.0-draft) provider conformant

Usage:
  ${program} stdio [options] -- <command> [args...]
      Spawn the provider (several times: some checks need a fresh process) and check it over stdio.
  ${program} http <url> [options] [--token T]
      Check a provider already listening for streamable HTTP. --token (or OCP_HTTP_TOKEN)
      is sent as "Authorization: Bearer T".

Options:
  --query TEXT       first show the frames the provider returns for TEXT, and its stderr;
                     TEXT then drives the probe queries (default: a few generic goals)
  --json             write only the JSON report to stdout
  --tokenizer T      re-count costs with ${TOKENIZERS.join(", ")} (default o200k_base)
  --timeout MS       how long one query may take (default 30000)
  -h, --help         show this help
  --version          show the version

Exit status: 0 conformant, 1 not conformant (or the check could not run), 2 usage error.
`;
}

class UsageError extends Error {}

interface Parsed {
  target: ConformanceTarget;
  query: string | undefined;
  json: boolean;
  tokenizer: TokenizerName;
  timeoutMs: number;
}

function parse(argv: readonly string[]): Parsed {
  const dashes = argv.indexOf("--");
  const own = dashes === -1 ? [...argv] : argv.slice(0, dashes);
  const command = dashes === -1 ? [] : argv.slice(dashes + 1);
  let parsed: ReturnType<typeof parseOwn>;
  try {
    parsed = parseOwn(own);
  } catch (error) {
    throw new UsageError(argsErrorMessage(error) ?? (error as Error).message);
  }
  const { values, positionals } = parsed;
  const [transport, url, ...extra] = positionals;
  const tokenizer = (values.tokenizer ?? "o200k_base") as TokenizerName;
  if (!TOKENIZERS.includes(tokenizer)) {
    throw new UsageError(`unknown tokenizer '${values.tokenizer}' (expected ${TOKENIZERS.join(", ")})`);
  }
  const timeoutMs = Number(values.timeout ?? 30_000);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new UsageError(`--timeout must be a positive whole number of ms, not '${values.timeout}'`);
  if (values.query !== undefined && values.query.trim() === "") throw new UsageError("--query needs some text");
  const common = { query: values.query, json: values.json === true, tokenizer, timeoutMs };
  if (transport === "stdio") {
    if (url !== undefined)
      throw new UsageError(`put the provider's command after --: ... stdio -- ${[url, ...extra].join(" ")}`);
    const [program, ...args] = command;
    if (program === undefined) throw new UsageError("stdio needs the provider's command after --");
    if (values.token !== undefined) throw new UsageError("--token is for http targets");
    return { ...common, target: { transport: "stdio", command: program, args } };
  }
  if (transport === "http") {
    if (url === undefined || extra.length > 0 || command.length > 0) throw new UsageError("http takes exactly one URL");
    try {
      if (!/^https?:$/.test(new URL(url).protocol)) throw new Error("not http(s)");
    } catch {
      throw new UsageError(`'${url}' is not an http:// or https:// URL`);
    }
    const token = values.token ?? process.env.OCP_HTTP_TOKEN;
    return { ...common, target: { transport: "http", url, ...(token !== undefined ? { token } : {}) } };
  }
  throw new UsageError(
    transport === undefined ? "say which transport: stdio or http" : `unknown transport '${transport}' (stdio or http)`,
  );
}

function parseOwn(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      query: { type: "string" },
      json: { type: "boolean" },
      tokenizer: { type: "string" },
      timeout: { type: "string" },
      token: { type: "string" },
    },
  });
}

/** Runs the inspector; resolves to the exit code. */
export async function inspectMain(argv: readonly string[], program: InspectProgram = "ocp-inspect"): Promise<number> {
  if (argv.length === 0 || argv[0] === "help" || wantsHelp(argv)) {
    process.stdout.write(usage(program));
    return argv.length === 0 ? 2 : 0;
  }
  if (wantsVersion(argv)) {
    process.stdout.write(`${CORE_VERSION}\n`);
    return 0;
  }
  let options: Parsed;
  try {
    options = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const synopsis = `${program} stdio [options] -- <command> [args...] | ${program} http <url> [options]`;
    process.stderr.write(usageErrorLine(program, error.message, synopsis));
    return 2;
  }
  const color = useColor(process.stdout);
  try {
    let sample: Sample | undefined;
    if (options.query !== undefined) {
      sample = await sampleQuery(options.target, { goal: options.query, queryTimeoutMs: options.timeoutMs });
      if (!options.json) process.stdout.write(`${renderSample(sample, color)}\n`);
    }
    // On a terminal, a status line names the checks still waiting (a hung provider holds some up).
    const progress =
      !options.json && process.stderr.isTTY ? startProgress(process.stderr, options.target.transport) : undefined;
    const report = await runConformance(options.target, {
      tokenizer: options.tokenizer,
      queryTimeoutMs: options.timeoutMs,
      ...(options.query !== undefined ? { goals: [options.query] } : {}),
      ...(progress !== undefined ? { onCheck: progress.done } : {}),
    }).finally(() => progress?.stop());
    if (options.json) process.stdout.write(`${JSON.stringify(sample ? { ...report, sample } : report, null, 2)}\n`);
    else process.stdout.write(renderReport(report, color));
    return report.conformant ? 0 : 1;
  } catch (error) {
    process.stderr.write(`${program}: ${describeError(error)}\n`);
    return 1;
  }
}
