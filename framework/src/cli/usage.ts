/**
 * The `ocp` command's help: one entry per subcommand (its synopsis, for usage
 * errors, and its `--help` text), the overview that `ocp --help` prints, and
 * `ocp --version`. A new subcommand adds its entry here.
 */
import { ERROR_CODES, OcpError } from "../provider/errors.js";
import { CORE_VERSION } from "../provider/plugin.js";
import { PROTOCOL_VERSION } from "../wire/version.js";
import { usageErrorLine } from "./args.js";
import { PREVIEW_LINES } from "./render.js";

/** A subcommand's help. */
export interface CommandHelp {
  /** The usage line(s) without "Usage:", as the overview lists them. */
  synopsis: string;
  /** What it does, and its options: the rest of `ocp <command> --help`. */
  details: string;
}

/** Help for each subcommand of `ocp`, in the order the overview lists them. */
export const COMMAND_HELP: Record<string, CommandHelp> = {
  serve: {
    synopsis: "ocp serve <module> [--http [host:]port] [--token T] [--allow-origin O ...]",
    details: `Serve the provider that <module> exports by default: over stdio (NDJSON, what a
host spawns), or over streamable HTTP with --http (default host 127.0.0.1).

Options:
  --http [host:]port   serve HTTP instead of stdio
  --token T            with --http: require "Authorization: Bearer T" (default: $OCP_HTTP_TOKEN)
  --allow-origin O     with --http: also answer web pages from origin O (https://app.example;
                       repeatable). Requests with any other Origin header get 403`,
  },
  mcp: {
    synopsis:
      "ocp mcp <module> [--http [host:]port] [--token T] [--max-sessions N] [--allow-egress] [--tool-name NAME] [--tokenizer NAME]",
    details: `Serve the provider to MCP clients as one tool (get_context): over stdio, or over
streamable HTTP at /mcp with --http. Needs the package ocp-provider-mcp. See docs/mcp.md.

Options:
  --http [host:]port   serve streamable HTTP instead of stdio (default host 127.0.0.1)
  --token T            with --http: require "Authorization: Bearer T" (default: $OCP_HTTP_TOKEN)
  --max-sessions N     with --http: most client sessions open at once (default 100); when all are
                       in use, a new client gets 503 unless one has been idle for 5 minutes
  --allow-egress       consent to serve a provider that declares egress (data leaves the machine)
  --tool-name NAME     the tool's name (default get_context)
  --tokenizer NAME     count max_tokens in the client's model's tokenizer: o200k_base, cl100k_base,
                       canonical, llama3, gemma3, qwen3, deepseek_v3 (default: the provider's own)`,
  },
  query: {
    synopsis: 'ocp query <module> "<goal>" [options]',
    details: `Run one query in-process and print what came back: per frame its rank, kind, score,
cost against the budget, title, where it comes from (path:line) and citation, and the
first ${PREVIEW_LINES} lines of its content (goal terms highlighted on a terminal).

Options:
  --max-tokens N       the budget (default 1024)
  --max-frames N       at most N frames (default 8)
  --kinds k,..         only these kinds (doc, code, symbol, memory, web, tool)
  --query-text T       the query_text field (default: none)
  --anchors a,..       anchors: paths or identifiers the answer should be near
  --as-of T            valid time: RFC 3339 (2024-05-01T09:30:00Z) or a date (2024-05-01)
  --full               show every line of each frame's content
  --json               print the ContextQueryResult as JSON, nothing else

Colour on a terminal only; NO_COLOR=1 turns it off, FORCE_COLOR=1 on.`,
  },
  bench: {
    synopsis: "ocp bench <module> [--goals FILE] [--goal TEXT] [--budget N] [--tokenizers LIST] [--json]",
    details: `Benchmark the provider's token accounting in-process: per-query time split into search,
exact token counting, packing and frame building; the token count cache's hit rate; tokens
shipped against the budget; and how far bytes/4, words×1.3 and the other encoding are from
the exact count on its frames — and how often packing by them would break the budget.

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
    synopsis: "ocp inspect stdio [options] -- <command> [args...] | ocp inspect http <url> [options]",
    details: `Run the conformance suite against a provider; exit 0 iff it is conformant.
"ocp inspect --help" lists its options.`,
  },
  eval: {
    synopsis: "ocp eval --repo PATH [--budget B,..] [--cases N|FILE] [--json] -- <command with {root}>",
    details: `Score a provider's frames on goals mined from a git history, beside BM25.
"ocp eval --help" lists its options; see docs/eval.md.`,
  },
  add: {
    synopsis: "ocp add plugin <name> [--file src/provider.ts]",
    // The names are the reference plugins' own declarations, which create-ocp-provider reads:
    // the core knows no plugin. With it installed, "ocp add --help" is its help, listing them.
    details: `Wire a reference plugin into defineProvider's plugins (a codemod of create-ocp-provider,
which must be installed: npm install -D create-ocp-provider; its "add --help" lists the plugins).`,
  },
  generate: {
    synopsis: "ocp generate plugin <name>",
    details: `Scaffold a new plugin with its test, wired into the provider (a codemod of
create-ocp-provider, which must be installed: npm install -D create-ocp-provider).`,
  },
};

/** `ocp --help`: every subcommand's synopsis and the first line of what it does. */
export function overview(): string {
  const lines = [`ocp — Open Context Protocol (${PROTOCOL_VERSION}) provider tools`, "", "Usage:"];
  for (const help of Object.values(COMMAND_HELP)) {
    lines.push(`  ${help.synopsis}`, `      ${help.details.split("\n")[0]}`);
  }
  lines.push(
    "",
    "<module> is a .ts, .mts, .js or .mjs file whose default export is defineProvider({ ... }).",
    '"ocp <command> --help" says more; "ocp --version" prints the version.',
    "",
  );
  return lines.join("\n");
}

/** `ocp <command> --help`. */
export function commandUsage(command: string): string {
  const help = COMMAND_HELP[command];
  return help === undefined ? overview() : `Usage: ${help.synopsis}\n\n${help.details}\n`;
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
    const help = this.command === undefined ? undefined : COMMAND_HELP[this.command];
    const program = this.command === undefined ? "ocp" : `ocp ${this.command}`;
    const synopsis = help?.synopsis ?? `ocp <${Object.keys(COMMAND_HELP).join("|")}> ...`;
    return usageErrorLine(program, this.message, synopsis);
  }
}
