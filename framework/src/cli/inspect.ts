/**
 * `ocp inspect` (and its alias `ocp-inspect`): run the conformance suite against a
 * provider and say whether it is conformant. Exit 0 iff it is; 1 if not, or not
 * verified (no query returned a frame, without `--allow-no-frames`); 2 on a usage
 * error. `--json` writes the report and nothing else to stdout.
 *
 * `--query TEXT` first asks the provider that one question and shows its frames
 * and stderr; the same text then drives the suite's probe queries. Typing it is
 * the consent to send it: the inspector talks to the provider you name, directly.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_GOALS } from "../conformance/checks/shared/probe-goals.js";
import { runConformance } from "../conformance/run.js";
import { type Sample, sampleQuery } from "../conformance/sample.js";
import type { ConformanceTarget } from "../conformance/types.js";
import { describeError } from "../provider/errors.js";
import { CORE_VERSION } from "../provider/plugin.js";
import { TOKENIZERS, type TokenizerName } from "../tokens/counter.js";
import { resolveTokenizer } from "../tokens/registry.js";
import { TRANSPORTS, WIRE_TRANSPORTS } from "../transports/table.js";
import { useColor } from "./color.js";
import { type CommandArgs, runCommand, UsageError } from "./command.js";
import { startProgress } from "./inspect-progress.js";
import { renderReport, renderSample } from "./inspect-render.js";

/** Which command line is speaking, for usage text and messages. */
export type InspectProgram = "ocp inspect" | "ocp-inspect";

/** `ocp inspect --help` (and `ocp-inspect --help`). */
export function inspectUsage(program: InspectProgram): string {
  return `${program} — prove an Open Context Protocol (ocp/1.0-draft) provider conformant

Usage:
${WIRE_TRANSPORTS.map((name) => `  ${program} ${TRANSPORTS[name].inspect.usage}\n`).join("")}
Options:
  --query TEXT       first show the frames the provider returns for TEXT, and its stderr;
                     TEXT then drives the probe queries (default: the "ocp.sampleGoal" of
                     package.json here, and a few generic goals)
  --allow-no-frames  conformant even if no query returns a frame (a provider with no data
                     yet); without it such a run is NOT VERIFIED, exit 1
  --json             write only the JSON report to stdout
  --tokenizer T      ask the provider to count in T (the tokenizer extension) and re-count
                     costs with it: ${TOKENIZERS.join(", ")} (default: re-count with
                     o200k_base, and ask for nothing)
  --timeout MS       how long one query may take (default 30000)
  -h, --help         show this help
  --version          show the version

Exit status: 0 conformant, 1 not conformant, not verified (no query returned frames) or
the check could not run, 2 usage error.
`;
}

interface Parsed {
  target: ConformanceTarget;
  query: string | undefined;
  allowNoFrames: boolean;
  json: boolean;
  tokenizer: TokenizerName;
  /** True when --tokenizer was given: the main session's handshake asks for it. */
  negotiate: boolean;
  timeoutMs: number;
}

/** The inspector's own options, then each transport's (such as http's `--token`). */
export const INSPECT_OPTIONS = Object.assign(
  {
    query: { type: "string" },
    "allow-no-frames": { type: "boolean" },
    json: { type: "boolean" },
    tokenizer: { type: "string" },
    timeout: { type: "string" },
  } as const,
  ...WIRE_TRANSPORTS.map((name) => TRANSPORTS[name].inspect.options),
);

function parse(args: CommandArgs): Parsed {
  const [transport] = args.positionals;
  const named = args.string("tokenizer");
  const tokenizer = named === undefined ? "o200k_base" : resolveTokenizer(named);
  if (tokenizer === undefined) {
    throw new UsageError(`unknown tokenizer '${named}' (expected ${TOKENIZERS.join(", ")})`);
  }
  const timeoutMs = Number(args.string("timeout") ?? 30_000);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new UsageError(`--timeout must be a positive whole number of ms, not '${args.string("timeout")}'`);
  const query = args.string("query");
  if (query !== undefined && query.trim() === "") throw new UsageError("--query needs some text");
  const common = {
    query,
    allowNoFrames: args.flag("allow-no-frames"),
    json: args.flag("json"),
    tokenizer,
    negotiate: named !== undefined,
    timeoutMs,
  };
  const wire = WIRE_TRANSPORTS.find((name) => name === transport);
  if (wire !== undefined) {
    const own = TRANSPORTS[wire].inspect;
    // An option another transport takes is a mistake here, not something to ignore.
    for (const other of WIRE_TRANSPORTS) {
      for (const option of Object.keys(TRANSPORTS[other].inspect.options)) {
        if (!(option in own.options) && args.has(option)) throw new UsageError(`--${option} is for ${other} targets`);
      }
    }
    const targetArgs = {
      positionals: args.positionals.slice(1),
      rest: args.rest,
      has: (name: string) => args.has(name),
      string: (name: string) => args.string(name),
    };
    return { ...common, target: own.target(targetArgs) };
  }
  const known = WIRE_TRANSPORTS.join(" or ");
  throw new UsageError(
    transport === undefined ? `say which transport: ${known}` : `unknown transport '${transport}' (${known})`,
  );
}

/** Runs the inspector; resolves to the exit code. */
export async function inspectMain(argv: readonly string[], program: InspectProgram = "ocp-inspect"): Promise<number> {
  const code = await runCommand(
    {
      name: program,
      version: CORE_VERSION,
      usage: inspectUsage(program),
      synopsis: WIRE_TRANSPORTS.map((name) => `${program} ${TRANSPORTS[name].inspect.synopsis}`).join(" | "),
      options: INSPECT_OPTIONS,
      positionals: Number.POSITIVE_INFINITY,
      passThrough: true,
      emptyUsage: "stdout",
      run: (args) => inspect(parse(args)),
      // The inspector says what went wrong with the provider in its own words (describeError).
      describeFailure: describeError,
    },
    argv[0] === "help" ? ["--help"] : argv,
  );
  return code === "serving" ? 0 : code;
}

/**
 * The project's own sample goal: `"ocp": { "sampleGoal": "…" }` in the package.json of
 * `dir`, where a CI runs `ocp inspect` — a goal its data answers, so the frame checks
 * have frames to judge. Undefined when there is none (or no readable package.json).
 */
export function declaredSampleGoal(dir: string): string | undefined {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  } catch {
    return undefined;
  }
  const goal = (manifest as { ocp?: { sampleGoal?: unknown } } | null)?.ocp?.sampleGoal;
  return typeof goal === "string" && goal.trim() !== "" ? goal.trim() : undefined;
}

/** Runs the suite as `options` say; resolves to the exit code (a failure to run throws). */
async function inspect(options: Parsed): Promise<number> {
  const color = useColor(process.stdout);
  let sample: Sample | undefined;
  if (options.query !== undefined) {
    sample = await sampleQuery(options.target, { goal: options.query, queryTimeoutMs: options.timeoutMs });
    if (!options.json) process.stdout.write(`${renderSample(sample, color)}\n`);
  }
  // On a terminal, a status line names the checks still waiting (a hung provider holds some up).
  const progress =
    !options.json && process.stderr.isTTY ? startProgress(process.stderr, options.target.transport) : undefined;
  const declared = options.query === undefined ? declaredSampleGoal(process.cwd()) : undefined;
  const goals =
    options.query !== undefined ? [options.query] : declared !== undefined ? [declared, ...DEFAULT_GOALS] : [];
  const report = await runConformance(options.target, {
    tokenizer: options.tokenizer,
    negotiate: options.negotiate,
    queryTimeoutMs: options.timeoutMs,
    allowNoFrames: options.allowNoFrames,
    ...(goals.length > 0 ? { goals } : {}),
    ...(progress !== undefined ? { onCheck: progress.done } : {}),
  }).finally(() => progress?.stop());
  if (options.json) process.stdout.write(`${JSON.stringify(sample ? { ...report, sample } : report, null, 2)}\n`);
  else process.stdout.write(renderReport(report, color));
  return report.conformant ? 0 : 1;
}
