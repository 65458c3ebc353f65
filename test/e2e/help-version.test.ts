/**
 * Every bin of every package, as a newcomer first meets it: `--help` / `-h` on
 * every subcommand exits 0 with its usage on stdout, `--version` prints the
 * package's version, and an unknown option is one line on stderr naming the
 * option and the command's usage line (exit 2) — not Node's parseArgs text.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Finished, REPO, runNode } from "../test-support/child.js";

/** The bins, by package folder. */
const BINS = {
  ocp: "framework/bin/ocp.js",
  "ocp-inspect": "framework/bin/ocp-inspect.js",
  "ocp-ripgrep": "plugins/ripgrep/bin/ocp-ripgrep.js",
  "ocp-symbols": "plugins/symbols/bin/ocp-symbols.js",
  "ocp-facts": "plugins/facts/bin/ocp-facts.js",
  "create-ocp-provider": "generators/bin/create-ocp-provider.js",
} as const;
type Bin = keyof typeof BINS;

const versionOf = (bin: Bin) =>
  (JSON.parse(readFileSync(join(REPO, BINS[bin], "../../package.json"), "utf8")) as { version: string }).version;

async function run(bin: Bin, args: string[]): Promise<Finished> {
  return runNode([join(REPO, BINS[bin]), ...args], {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: "1" },
    timeout: 30_000,
  });
}

/** Each bin's commands, with the words that put one on the line (the bin itself is `[]`). */
const COMMANDS: [Bin, string[]][] = [
  ["ocp", []],
  ...["serve", "mcp", "query", "bench", "inspect", "eval", "add", "generate"].map((c): [Bin, string[]] => ["ocp", [c]]),
  ["ocp", ["inspect", "stdio"]],
  ["ocp-inspect", []],
  ["ocp-inspect", ["stdio"]],
  ["ocp-inspect", ["http"]],
  ["ocp-ripgrep", []],
  ["ocp-symbols", []],
  ["ocp-facts", []],
  // A sample of its subcommands: they share one help mechanism, and every spawn costs CI time.
  ...["assert", "functional", "import", "query", "serve"].map((c): [Bin, string[]] => ["ocp-facts", [c]]),
  ["create-ocp-provider", []],
  ["create-ocp-provider", ["add"]],
  ["create-ocp-provider", ["add", "plugin"]],
  ["create-ocp-provider", ["generate", "plugin"]],
];

const name = (bin: Bin, words: string[]) => [bin, ...words].join(" ");

describe.concurrent("--help and -h", () => {
  // --help on every command; -h, the same option, on the first command of each bin.
  const firsts = new Set<Bin>();
  const cases = COMMANDS.flatMap(([bin, words]) => {
    const flags = firsts.has(bin) ? ["--help"] : ["--help", "-h"];
    firsts.add(bin);
    return flags.map((flag) => [name(bin, words), bin, words, flag]);
  });
  it.each(cases)("%s %s", async (_, bin, words, flag) => {
    const { code, stdout, stderr } = await run(bin as Bin, [...(words as string[]), flag as string]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toMatch(/usage/i);
    // The usage names the command asked about.
    const last = (words as string[]).at(-1);
    if (last !== undefined) expect(stdout).toContain(last);
  });

  it("ocp query's help lists its options, and wins over a mistake elsewhere on the line", async () => {
    const { code, stdout } = await run("ocp", ["query", "--bogus", "x.ts", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: ocp query <module> "<goal>"/);
    expect(stdout).toContain("--max-tokens N");
  });

  it.each(["serve", "mcp", "query", "bench", "inspect", "eval", "add", "generate"])(
    "ocp help %s is the command's own --help",
    async (command) => {
      const [help, flag] = await Promise.all([run("ocp", ["help", command]), run("ocp", [command, "--help"])]);
      expect(help).toEqual({ code: 0, stdout: flag.stdout, stderr: "" });
    },
  );

  it("ocp --help says what each command does in a whole sentence, not a line cut mid-sentence", async () => {
    const { stdout } = await run("ocp", ["--help"]);
    const said = stdout.split("\n").filter((line) => line.startsWith("      "));
    expect(said).toHaveLength(8);
    for (const line of said) expect(line).toMatch(/^ {6}[A-Z][^\n]*\.$/);
  });
});

describe.concurrent("--version", () => {
  it.each([
    ["ocp", ["--version"]],
    ["ocp-inspect", ["--version"]],
    ["ocp-ripgrep", ["--version"]],
    ["ocp-symbols", ["--version"]],
    ["ocp-facts", ["--version"]],
    ["create-ocp-provider", ["--version"]],
  ] as [Bin, string[]][])("%s %s prints the package's version", async (bin, args) => {
    const { code, stdout, stderr } = await run(bin, args);
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: `${versionOf(bin)}\n`, stderr: "" });
  });
});

describe.concurrent("an unknown option", () => {
  // Each command's line with a bogus option where that command would parse it.
  const lines: [Bin, string[], RegExp][] = [
    ["ocp", ["serve", "p.ts", "--bogus"], /usage: ocp serve <module>/],
    ["ocp", ["query", "p.ts", "goal", "--bogus"], /usage: ocp query <module> "<goal>"/],
    ["ocp", ["bench", "p.ts", "--bogus"], /usage: ocp bench <module>/],
    ["ocp", ["inspect", "stdio", "--bogus", "--", "node"], /usage: ocp inspect stdio/],
    ["ocp", ["add", "plugin", "ripgrep", "--bogus"], /usage: ocp add plugin/],
    ["ocp", ["generate", "plugin", "x", "--bogus"], /usage: ocp generate plugin/],
    ["ocp-inspect", ["http", "http://127.0.0.1:9/", "--bogus"], /usage: ocp-inspect stdio .* \| ocp-inspect http/],
    ["ocp-ripgrep", ["--bogus"], /usage: ocp-ripgrep \[--root DIR\]/],
    ["ocp-symbols", ["--bogus"], /usage: ocp-symbols \[--root DIR\]/],
    ["ocp-facts", ["assert", "--bogus"], /usage: ocp-facts assert --subject S/],
    ["ocp-facts", ["query", "--bogus"], /usage: ocp-facts query \[TEXT\]/],
    ["ocp-facts", ["serve", "--bogus"], /usage: ocp-facts serve /],
    ["ocp-facts", ["--bogus", "query"], /usage: ocp-facts <command>/],
    ["create-ocp-provider", ["dir", "--bogus"], /usage: npm create ocp-provider \[dir\]/],
    ["create-ocp-provider", ["add", "plugin", "ripgrep", "--bogus"], /usage: create-ocp-provider add plugin/],
  ];
  it.each(lines.map(([bin, args, usage]) => [name(bin, args), bin, args, usage]))(
    "%s: one line naming it and the usage, exit 2",
    async (_, bin, args, usage) => {
      const { code, stdout, stderr } = await run(bin as Bin, args as string[]);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr.endsWith("\n") && !stderr.slice(0, -1).includes("\n"), stderr).toBe(true);
      expect(stderr).toContain("unknown option '--bogus'");
      expect(stderr).toMatch(usage as RegExp);
      // Node's own text ("… as in '-- \"--bogus\"") leaves a quote open.
      expect(stderr.split("'").length % 2, stderr).toBe(1);
      expect(stderr).not.toContain("To specify a positional argument");
    },
  );

  it("a missing value is named the same way", async () => {
    const { code, stderr } = await run("ocp", ["query", "p.ts", "goal", "--max-tokens"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^ocp query: option '--max-tokens' needs a value \(usage: ocp query /);
  });
});

describe.concurrent("a value that starts with a dash (--limit -1)", () => {
  // parseArgs refuses it with three lines of advice; each bin says it in one.
  const lines: [Bin, string[], string][] = [
    ["ocp-facts", ["query", "--db", "x.db", "--limit", "-1"], "--limit"],
    ["ocp-facts", ["assert", "--subject", "-x"], "--subject"],
    ["ocp-facts", ["--db", "x.db", "history", "--id", "-1"], "--id"],
    ["ocp", ["query", "p.ts", "goal", "--max-tokens", "-1"], "--max-tokens"],
    ["ocp", ["eval", "--cases", "-x", "--", "node"], "--cases"],
    ["ocp-inspect", ["http", "http://127.0.0.1:9/", "--timeout", "-1"], "--timeout"],
    ["ocp-ripgrep", ["--root", "-x"], "--root"],
    ["ocp-symbols", ["--root", "-x"], "--root"],
    ["create-ocp-provider", ["dir", "--template", "-x"], "--template"],
  ];
  it.each(lines.map(([bin, args, option]) => [name(bin, args), bin, args, option]))(
    "%s: one line naming the option, exit 2",
    async (_, bin, args, option) => {
      const { code, stdout, stderr } = await run(bin as Bin, args as string[]);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toContain(`option '${option}' needs a value; one starting with a dash goes as ${option}=VALUE`);
      // ocp eval prints its usage after the line; every other bin says all on that one line.
      const first = stderr.split("\n")[0] as string;
      expect(first).toMatch(/needs a value/);
      if (!(args as string[]).includes("eval")) expect(stderr.slice(0, -1).includes("\n"), stderr).toBe(false);
      expect(stderr).not.toContain("ambiguous");
    },
  );
});
