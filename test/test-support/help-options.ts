/**
 * A help text against the parser it describes: the options a help mentions
 * (`--name`, `-x`) and the options a `node:util` parseArgs spec accepts, compared
 * both ways — a help that names an option the parser refuses lies, and an option
 * the parser takes that no help names is hidden.
 */

/** A parseArgs option spec, as the commands declare theirs. */
export type Specs = Readonly<Record<string, { readonly type: "string" | "boolean"; readonly short?: string }>>;

/** One help text and what its command's parser takes. */
export interface HelpCase {
  /** How the test names it: `ocp query --help`. */
  readonly name: string;
  readonly help: string;
  /** The options of the command the help is for: each must be in the help, and is accepted. */
  readonly own: Specs;
  /** Options of other commands the same text documents too (a usage listing every command): accepted, not required. */
  readonly also?: Specs;
  /** The parser takes `--no-<flag>` for its boolean options. */
  readonly allowNegative?: boolean;
  /** Options of other programs the text quotes (`npm install -D …`), with no meaning here. */
  readonly foreign?: readonly string[];
}

/** Every runner takes these, whatever its spec says. */
const BUILTIN = ["--help", "-h", "--version"];

/** The options `text` mentions: `--long-name` and `-x`, never a word's hyphen or a bare `--`. */
export function mentionedOptions(text: string): Set<string> {
  const found = new Set<string>();
  for (const match of text.matchAll(/(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)/g)) found.add(`--${match[1]}`);
  for (const match of text.matchAll(/(?<![\w-])-([a-zA-Z])(?![\w-])/g)) found.add(`-${match[1]}`);
  return found;
}

/** The options a spec accepts, as typed. */
export function acceptedOptions(specs: Specs, allowNegative = false): Set<string> {
  const accepted = new Set<string>();
  for (const [name, spec] of Object.entries(specs)) {
    accepted.add(`--${name}`);
    if (spec.short !== undefined) accepted.add(`-${spec.short}`);
    if (allowNegative && spec.type === "boolean") accepted.add(`--no-${name}`);
  }
  return accepted;
}

/** What is wrong with a help: options it names that nothing accepts, and options of its own it never names. */
export function helpMismatches(c: HelpCase): { unknown: string[]; undocumented: string[] } {
  const mentioned = mentionedOptions(c.help);
  const accepted = new Set([
    ...acceptedOptions(c.own, c.allowNegative),
    ...acceptedOptions(c.also ?? {}, c.allowNegative),
    ...BUILTIN,
    ...(c.foreign ?? []),
  ]);
  const unknown = [...mentioned].filter((option) => !accepted.has(option)).sort();
  const undocumented: string[] = [];
  for (const [name, spec] of Object.entries(c.own)) {
    const named = mentioned.has(`--${name}`) || (c.allowNegative === true && mentioned.has(`--no-${name}`));
    if (!named) undocumented.push(`--${name}`);
    if (spec.short !== undefined && !mentioned.has(`-${spec.short}`)) undocumented.push(`-${spec.short}`);
  }
  return { unknown, undocumented: undocumented.sort() };
}
