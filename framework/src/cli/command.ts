/**
 * The command runner every bin of this repository shares: `node:util` parseArgs
 * behind one reader of typed values ({@link CommandArgs}), one {@link UsageError},
 * and one set of exit codes — 0 done, 1 failed (the message says why, and names
 * its code), 2 a usage error (one line naming the mistake and the synopsis).
 * Subcommands (`ocp-facts assert …`) take the command's shared options on either
 * side of their name, as git and npm users expect. Light: it loads nothing of the core.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { CodedError, isCodedError } from "../coded-error.js";
import { argsErrorMessage, usageErrorLine, wantsHelp } from "./args.js";

/** Options as `node:util` parseArgs takes them: `{ root: { type: "string" }, hidden: { type: "boolean" } }`. */
export type OptionSpecs = NonNullable<ParseArgsConfig["options"]>;

/** A command-line mistake: the runner prints it as one line with the synopsis, and exits 2. */
export class UsageError extends CodedError<"OCP_ERR_USAGE"> {
  constructor(message: string) {
    super("OCP_ERR_USAGE", message);
    this.name = "UsageError";
  }
}

type Value = string | boolean | (string | boolean)[] | undefined;

/** What a command resolves to: an exit code (nothing is 0), or `"serving"` when a server now runs. */
// biome-ignore lint/suspicious/noConfusingVoidType: a command that just finishes returns nothing
export type CommandResult = number | "serving" | void;

/** The parsed command line, read option by option with the checks every command makes. */
export class CommandArgs {
  constructor(
    /** The options as parseArgs returned them. */
    readonly values: Readonly<Record<string, Value>>,
    /** The positional arguments. */
    readonly positionals: readonly string[],
    /** What came after `--`, untouched, when the command passes it on (a child's command line). */
    readonly rest: readonly string[] = [],
  ) {}

  /** True when the option was given at all. */
  has(name: string): boolean {
    return this.values[name] !== undefined;
  }

  /** A string option's value. */
  string(name: string): string | undefined {
    const value = this.values[name];
    return typeof value === "string" ? value : undefined;
  }

  /** A string option that must be given. */
  required(name: string): string {
    const value = this.string(name);
    if (value === undefined) throw new UsageError(`--${name} is required`);
    return value;
  }

  /** A boolean option: true only when given (and not negated with `--no-`). */
  flag(name: string): boolean {
    return this.values[name] === true;
  }

  /** A negatable boolean option (`--watch`, `--no-watch`): undefined when neither was given. */
  boolean(name: string): boolean | undefined {
    const value = this.values[name];
    return typeof value === "boolean" ? value : undefined;
  }

  /** A repeatable string option's values, undefined when not given. */
  list(name: string): string[] | undefined {
    const value = this.values[name];
    return Array.isArray(value) ? value.map(String) : undefined;
  }

  /** A whole-number option (at least `min`, default 0); a usage error names the option and the value. */
  whole(name: string, min = 0): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const number = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < min) {
      throw new UsageError(`--${name} must be a whole number${min > 0 ? ` ≥ ${min}` : ""}, not '${value}'`);
    }
    return number;
  }
}

/** How {@link parseCommandArgs} reads a line beyond its options. */
export interface ParseCommandOptions {
  /** Positional arguments allowed, at most (default 0; `Infinity` for any number). */
  positionals?: number;
  /** Accept `--no-<flag>` for boolean options. */
  allowNegative?: boolean;
}

/** Parses `args` against `options`; anything parseArgs refuses becomes a one-line {@link UsageError}. */
export function parseCommandArgs(
  args: readonly string[],
  options: OptionSpecs,
  { positionals = 0, allowNegative = false }: ParseCommandOptions = {},
): CommandArgs {
  let parsed: { values: Record<string, Value>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: positionals > 0, allowNegative, strict: true });
  } catch (error) {
    throw new UsageError(argsErrorMessage(error) ?? (error as Error).message);
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`unexpected argument '${parsed.positionals[positionals]}'`);
  }
  return new CommandArgs(parsed.values, parsed.positionals);
}

/** Where a command writes; process.stdout and process.stderr unless a test says otherwise. */
export interface CommandIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

/** A subcommand: its own options (besides the command's shared ones) and what it does. */
export interface Subcommand {
  /** Options only this subcommand takes. */
  options?: OptionSpecs;
  /** Positional arguments it takes, at most (default 0). */
  positionals?: number;
  /** Does it; resolves to an exit code (default 0), or `"serving"` when a server now runs. */
  run(args: CommandArgs): Promise<CommandResult> | CommandResult;
}

/** What {@link runCommand} needs to know about a command. */
export interface CommandSpec {
  /** The program's name, as usage errors and failures start: `ocp-facts`. */
  name: string;
  /** `--version`'s answer, or how to find it. */
  version: string | (() => string | Promise<string>);
  /** The text `--help` prints. */
  usage: string;
  /** The usage line a usage error names; given the subcommand when there is one. */
  synopsis: string | ((command: string | undefined) => string);
  /** Options the command takes, and with {@link commands}, each subcommand on either side of its name. */
  options?: OptionSpecs;
  /** Accept `--no-<flag>` for boolean options. */
  allowNegative?: boolean;
  /** Without subcommands: positional arguments allowed, at most (default 0). */
  positionals?: number;
  /** Without subcommands: leave what follows `--` unparsed, as {@link CommandArgs.rest}. */
  passThrough?: boolean;
  /** An empty line prints the usage there and exits 2 (with subcommands: on stderr, always). */
  emptyUsage?: "stdout" | "stderr";
  /** Without subcommands: what the command does with its parsed line. */
  run?(args: CommandArgs): Promise<CommandResult> | CommandResult;
  /** Subcommands by name: `<name> <command> [options]`. */
  commands?: Readonly<Record<string, Subcommand>>;
  /** `<name> <command> --help` (default: the whole usage). */
  commandUsage?(command: string): string;
  /** Words a failure adds after its message (default: a coded error's code, in brackets). */
  describeFailure?(error: unknown): string;
}

/**
 * With `OCP_LOG=debug`, the whole stack of `error` and of each error that caused it,
 * ending in a newline: printed before a failure's one line, which shows only the
 * message. Empty otherwise.
 */
export function debugStack(error: unknown): string {
  if (process.env.OCP_LOG !== "debug") return "";
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && depth < 8; depth++) {
    parts.push(current instanceof Error ? (current.stack ?? String(current)) : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return `${parts.join("\ncaused by: ")}\n`;
}

/** The default failure line's text: the message, and a coded error's code unless the message has it. */
export function failureText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!isCodedError(error) || error.code === "OCP_ERR_USER" || message.includes(error.code)) return message;
  return `${message} (${error.code})`;
}

/**
 * Runs a command line: `--help`/`-h` (before any `--`) wins over anything else on it;
 * `--version`; then the command. Resolves to its exit code, or to `"serving"` once a
 * server runs (its bin then leaves the process to the server).
 */
export async function runCommand(
  spec: CommandSpec,
  argv: readonly string[],
  io: CommandIo = process,
): Promise<number | "serving"> {
  let command: string | undefined;
  try {
    if (argv.length === 0 && (spec.emptyUsage !== undefined || spec.commands !== undefined)) {
      return written(spec.emptyUsage === "stdout" ? io.stdout : io.stderr, spec.usage, 2);
    }
    if (spec.commands === undefined) {
      if (wantsHelp(argv)) return written(io.stdout, spec.usage, 0);
      const dashes = spec.passThrough ? argv.indexOf("--") : -1;
      const own = dashes === -1 ? argv : argv.slice(0, dashes);
      const parsed = parseCommandArgs(own, withBuiltins(spec.options), {
        positionals: spec.positionals,
        allowNegative: spec.allowNegative,
      });
      if (parsed.flag("version")) return written(io.stdout, `${await versionOf(spec)}\n`, 0);
      const args = dashes === -1 ? parsed : new CommandArgs(parsed.values, parsed.positionals, argv.slice(dashes + 1));
      return (await spec.run?.(args)) ?? 0;
    }
    if (argv[0] === "--help" || argv[0] === "-h") return written(io.stdout, spec.usage, 0);
    if (argv[0] === "--version") return written(io.stdout, `${await versionOf(spec)}\n`, 0);
    const split = splitCommand(argv, spec.options ?? {});
    const rest = split.rest;
    const known = split.command !== undefined && Object.hasOwn(spec.commands, split.command);
    if (split.command === "help") {
      const about = rest[0] !== undefined && Object.hasOwn(spec.commands, rest[0]) ? rest[0] : undefined;
      return written(io.stdout, about === undefined ? spec.usage : commandUsage(spec, about), 0);
    }
    if (split.command === undefined) throw new UsageError(`which command? (${spec.name} --help lists them)`);
    if (!known) throw new UsageError(`unknown command '${split.command}'`);
    command = split.command;
    if (wantsHelp(rest)) return written(io.stdout, commandUsage(spec, command), 0);
    const sub = spec.commands[command] as Subcommand;
    const args = parseCommandArgs(
      rest,
      { ...spec.options, ...sub.options },
      { positionals: sub.positionals ?? 0, allowNegative: spec.allowNegative },
    );
    return (await sub.run(args)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      const program = command === undefined ? spec.name : `${spec.name} ${command}`;
      const synopsis = typeof spec.synopsis === "string" ? spec.synopsis : spec.synopsis(command);
      io.stderr.write(usageErrorLine(program, error.message, synopsis));
      return 2;
    }
    io.stderr.write(`${debugStack(error)}${spec.name}: ${(spec.describeFailure ?? failureText)(error)}\n`);
    return 1;
  }
}

function written(stream: CommandIo["stdout"], text: string, code: number): number {
  stream.write(text);
  return code;
}

function withBuiltins(options: OptionSpecs | undefined): OptionSpecs {
  return { ...options, help: { type: "boolean", short: "h" }, version: { type: "boolean" } };
}

async function versionOf(spec: CommandSpec): Promise<string> {
  return typeof spec.version === "string" ? spec.version : await spec.version();
}

function commandUsage(spec: CommandSpec, command: string): string {
  return spec.commandUsage?.(command) ?? spec.usage;
}

/**
 * Splits `argv` into the subcommand and its arguments, moving the shared options given
 * before the subcommand's name after it (`ocp-facts --db f.db assert …`). Only shared
 * options may come first: anything else there is a usage error naming them.
 */
function splitCommand(argv: readonly string[], shared: OptionSpecs): { command: string | undefined; rest: string[] } {
  const leading: string[] = [];
  let at = 0;
  for (; at < argv.length; at++) {
    const arg = argv[at] as string;
    if (!arg.startsWith("-")) break;
    const name = (arg.split("=")[0] as string).replace(/^--/, "");
    const option = arg.startsWith("--") && Object.hasOwn(shared, name) ? shared[name] : undefined;
    if (option === undefined) {
      const allowed = Object.keys(shared).map((key) => `--${key}`);
      const list = allowed.length > 1 ? `${allowed.slice(0, -1).join(", ")} and ${allowed.at(-1)}` : allowed[0];
      throw new UsageError(
        `unknown option '${arg.split("=")[0]}' before the command${list === undefined ? "" : `: only ${list} go there`}`,
      );
    }
    leading.push(arg);
    if (option.type === "string" && !arg.includes("=")) {
      const value = argv[at + 1];
      if (value === undefined) throw new UsageError(`option '--${name}' needs a value`);
      leading.push(value);
      at++;
    }
  }
  return { command: argv[at], rest: [...leading, ...argv.slice(at + 1)] };
}
