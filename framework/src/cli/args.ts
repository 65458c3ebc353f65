/**
 * What every command line of this repository (`ocp`, `ocp-inspect`, the plugins'
 * bins, `create-ocp-provider`) shares: `--help`/`-h` anywhere before `--`, and a
 * usage error as one line that names the problem and the command's synopsis —
 * never Node's raw parseArgs text, whose advice quotes the option unbalanced.
 */

/** True when `--help` or `-h` appears among `args` before a `--` (after it, arguments belong to a child command). */
export function wantsHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}

/** True when `--version` appears among `args` before a `--`. */
export function wantsVersion(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).includes("--version");
}

/**
 * The one-line reason a `node:util` parseArgs call refused its arguments
 * (`unknown option '--bogus'`, `option '--max-tokens' needs a value`), or
 * undefined when `error` did not come from parseArgs.
 */
export function argsErrorMessage(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS")) return undefined;
  const message = String((error as Error).message);
  // The option (or argument) is the first quoted word: '--bogus', '--max-tokens <value>', 'extra'.
  const quoted = /'([^' ]+)/.exec(message)?.[1] ?? "";
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option '${quoted}'`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument '${quoted}'`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (message.includes("argument missing")) return `option '${quoted}' needs a value`;
      if (message.includes("does not take an argument")) return `option '${quoted}' takes no value`;
      // `--limit -1`: parseArgs will not take a value that looks like an option (three lines of advice).
      if (message.includes("argument is ambiguous")) {
        return `option '${quoted}' needs a value; one starting with a dash goes as ${quoted}=VALUE`;
      }
      return firstSentence(message);
    default:
      return firstSentence(message);
  }
}

/** The first sentence of a message, on one line: a usage error is one line whatever Node says. */
function firstSentence(message: string): string {
  return (message.split(/\.(?:\s|$)/)[0] ?? message).replace(/\s*\n\s*/g, " ");
}

/**
 * A usage error as printed on stderr: `program: message (usage: synopsis; program --help says more)`,
 * one line ending in a newline. `synopsis` is the command's usage line without the word "Usage".
 */
export function usageErrorLine(program: string, message: string, synopsis: string): string {
  return `${program}: ${message} (usage: ${synopsis}; ${program} --help says more)\n`;
}
