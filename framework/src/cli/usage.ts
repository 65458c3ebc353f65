/**
 * The `ocp` command's help: one entry per subcommand (its synopsis, for usage
 * errors, and its `--help` text), the overview that `ocp --help` prints, and
 * `ocp --version`. A new subcommand adds its entry here.
 */
import { ERROR_CODES, OcpError } from "../provider/errors.js";
import { CORE_VERSION } from "../provider/plugin.js";
import { TOKENIZERS } from "../tokens/registry.js";
import { FRAME_KINDS } from "../wire/schemas.js";
import { PROTOCOL_VERSION } from "../wire/version.js";
import { usageErrorLine } from "./args.js";
import { PREVIEW_LINES } from "./render.js";

/** A subcommand's help. */
export interface CommandHelp {
  /** Its usage lines without "Usage:", as the overview lists them (a usage error joins them with " | "). */
  synopsis: readonly string[];
  /** What it does, in one whole sentence: the overview's line under its synopsis, and the help's first line. */
  summary: string;
  /** The rest of `ocp <command> --help`: more of what it does, and its options. */
  details: string;
}

/** The frame kinds, as the wire schema lists them (a help line that lists kinds lists these). */
const KINDS = FRAME_KINDS.join(", ");

/** Help for each subcommand of `ocp`, in the order the overview lists them. */
export const COMMAND_HELP: Record<string, CommandHelp> = {
  serve: {
    synopsis: ["ocp serve <module> [--http [host:]port] [--token T] [--allow-origin O ...]"],
    summary: "Serve the provider that <module> exports to a host, over stdio or HTTP.",
    details: `Over stdio (NDJSON: what a host spawns) by default; over streamable HTTP with --http
(default host 127.0.0.1). On a terminal, a line on stderr says it is waiting for a host.

Options:
  --http [host:]port   serve HTTP instead of stdio
  --token T            with --http: require "Authorization: Bearer T" (default: $OCP_HTTP_TOKEN)
  --allow-origin O     with --http: also answer web pages from origin O (https://app.example;
                       repeatable). Requests with any other Origin header get 403`,
  },
  mcp: {
    synopsis: [
      "ocp mcp <module> [--http [host:]port] [--token T] [--max-sessions N] [--allow-egress] [--tool-name NAME] [--tokenizer NAME]",
    ],
    summary: "Serve the provider to MCP clients as one tool (get_context).",
    details: `Over stdio, or over streamable HTTP at /mcp with --http. Needs the package
ocp-provider-mcp. See docs/mcp.md.

Options:
  --http [host:]port   serve streamable HTTP instead of stdio (default host 127.0.0.1)
  --token T            with --http: require "Authorization: Bearer T" (default: $OCP_HTTP_TOKEN)
  --max-sessions N     with --http: most client sessions open at once (default 100); when all are
                       in use, a new client gets 503 unless one has been idle for 5 minutes
  --allow-egress       consent to serve a provider that declares egress (data leaves the machine)
  --tool-name NAME     the tool's name (default get_context)
  --tokenizer NAME     count max_tokens in the client's model's tokenizer (default: the provider's
                       own): ${TOKENIZERS.join(", ")}`,
  },
  query: {
    synopsis: [
      'ocp query <module> "<goal>" [options]',
      'ocp query [options] "<goal>" -- <command> [args...]',
      'ocp query --http <url> [--token T] [options] "<goal>"',
    ],
    summary: "Ask a provider one question and show the frames that came back.",
    details: `The provider is a module loaded in-process, a command spawned as a host spawns it (the
goal comes before --, so nothing after it is taken for the goal), or a provider listening
for HTTP. Per frame: its rank, kind, score, cost against the budget, title, where it comes
from (path:line) and citation, and the first ${PREVIEW_LINES} lines of its content (goal terms
highlighted on a terminal). Every answer is checked against its budget, as a host does.

Options:
  --max-tokens N       the budget (default 1024)
  --max-frames N       at most N frames (default 8)
  --kinds k,..         only these kinds (${KINDS})
  --query-text T       the query_text field (default: none)
  --anchors a,..       anchors: paths or identifiers the answer should be near
  --as-of T            valid time: RFC 3339 (2024-05-01T09:30:00Z) or a date (2024-05-01)
  --full               show every line of each frame's content
  --json               print the ContextQueryResult as JSON, nothing else
A provider after -- or at --http:
  --http URL           the provider listening for HTTP at URL
  --token T            with --http: send "Authorization: Bearer T" (default: $OCP_HTTP_TOKEN)
  --timeout MS         how long its handshake and the query may each take (default 30000)
  --allow-egress       ask it even though it declares egress (what it is sent may leave
                       this machine); naming the command or URL is consent for anything else

Colour on a terminal only; NO_COLOR=1 turns it off, FORCE_COLOR=1 on.`,
  },
  bench: {
    synopsis: ["ocp bench <module> [--goals FILE] [--goal TEXT] [--budget N] [--tokenizers LIST] [--json]"],
    summary: "Benchmark the provider's token accounting in-process.",
    details: `Per-query time split into search, exact token counting, packing and frame building; the
token count cache's hit rate; tokens shipped against the budget; and how far bytes/4,
words×1.3 and the other encoding are from the exact count on its frames — and how often
packing by them would break the budget.

Options:
  --goals FILE         goals, one a line (# comments); default: drawn from its own frames
  --goal TEXT          a goal (repeatable); with no --goals, also where drawing starts
  --budget N           each query's max_tokens (default 1024)
  --max-frames N       each query's max_frames (default 8)
  --rounds N           times each goal is asked (default 5; the first round finds the cache cold)
  --tokenizers LIST    also the frames' cost in each of these tokenizers (comma-separated, e.g.
                       o200k,gemma3,llama3,qwen3; "all" = every installed one), each estimator's
                       error against each, and how often a budget honest in one overruns another's
  --json               print the report as JSON, nothing else`,
  },
  inspect: {
    synopsis: ["ocp inspect stdio [options] -- <command> [args...]", "ocp inspect http <url> [options]"],
    summary: "Run the conformance suite against a provider; exit 0 iff it is conformant.",
    details: "",
  },
  eval: {
    synopsis: ["ocp eval --repo PATH [--budget B,..] [--cases N|FILE] [--json] -- <command with {root}>"],
    summary: "Score a provider's frames on goals mined from a git history, beside BM25.",
    details: "",
  },
  add: {
    synopsis: ["ocp add plugin <name> [--file src/provider.ts]"],
    summary: "Wire a reference plugin into defineProvider's plugins.",
    // The names are the reference plugins' own declarations, which create-ocp-provider reads:
    // the core knows no plugin. With it installed, "ocp add --help" is its help, listing them.
    details: `A codemod of create-ocp-provider, which must be installed (npm install -D
create-ocp-provider); its "add --help" lists the plugins.`,
  },
  generate: {
    synopsis: ["ocp generate plugin <name>"],
    summary: "Scaffold a new plugin with its test, wired into the provider.",
    details: `A codemod of create-ocp-provider, which must be installed (npm install -D
create-ocp-provider).`,
  },
};

/** The commands whose full help is their own (`ocp inspect --help`, `ocp eval --help`), not the table's. */
export const OWN_HELP: readonly string[] = ["inspect", "eval", "add", "generate"];

/** `ocp --help`: every subcommand's synopsis and, under it, the sentence that says what it does. */
export function overview(): string {
  const lines = [`ocp — Open Context Protocol (${PROTOCOL_VERSION}) provider tools`, "", "Usage:"];
  for (const help of Object.values(COMMAND_HELP)) {
    lines.push(...help.synopsis.map((line) => `  ${line}`), `      ${help.summary}`);
  }
  lines.push(
    "",
    "<module> is a .ts, .mts, .js or .mjs file whose default export is defineProvider({ ... }).",
    '"ocp <command> --help" says more; "ocp --version" prints the version.',
    "",
  );
  return lines.join("\n");
}

/** `ocp <command> --help` from the table. */
export function commandUsage(command: string): string {
  const help = COMMAND_HELP[command];
  if (help === undefined) return overview();
  const usage = help.synopsis.map((line, index) => `${index === 0 ? "Usage: " : "       "}${line}`).join("\n");
  return `${usage}\n\n${help.summary}\n${help.details === "" ? "" : `${help.details}\n`}`;
}

/** A subcommand's usage as a usage error names it: its synopsis lines on one line. */
export function synopsisLine(command: string): string | undefined {
  return COMMAND_HELP[command]?.synopsis.join(" | ");
}

/** `ocp --version`: the package version, as the plugin bins print theirs. */
export function versionText(): string {
  return `${CORE_VERSION}\n`;
}

/** A usage error of `ocp <command>`: main prints it as one line with the command's synopsis, and exits 2. */
export class CommandUsageError extends OcpError {
  constructor(
    /** The subcommand, or undefined for `ocp` itself. */
    readonly command: string | undefined,
    message: string,
  ) {
    super(ERROR_CODES.USAGE, message);
  }

  /** The line to print on stderr. */
  line(): string {
    const program = this.command === undefined ? "ocp" : `ocp ${this.command}`;
    const synopsis =
      (this.command === undefined ? undefined : synopsisLine(this.command)) ??
      `ocp <${Object.keys(COMMAND_HELP).join("|")}> ...`;
    return usageErrorLine(program, this.message, synopsis);
  }
}
