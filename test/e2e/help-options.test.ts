/**
 * Help that tells the truth, for every command line we ship: every option a help text
 * names is one its parser accepts, and every option the parser accepts is named in
 * its help — checked against the very option specs the parsers run with (`ocp` and each
 * subcommand, `ocp-inspect`, `ocp-ripgrep`, `ocp-symbols`, `ocp-facts` and each of its
 * commands, `create-ocp-provider` and its codemods). Lists in help come from their
 * source: the frame kinds `ocp query --help` names are the wire schema's enum.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BENCH_OPTIONS } from "../../framework/src/cli/bench.js";
import type { CommandSpec } from "../../framework/src/cli/command.js";
import { EVAL_OPTIONS, EVAL_USAGE } from "../../framework/src/cli/eval.js";
import { INSPECT_OPTIONS, inspectUsage } from "../../framework/src/cli/inspect.js";
import { MCP_COMMAND_OPTIONS, SERVE_COMMAND_OPTIONS } from "../../framework/src/cli/ocp.js";
import { providerCommandSpec } from "../../framework/src/cli/provider-command.js";
import { QUERY_OPTIONS } from "../../framework/src/cli/query.js";
import { COMMAND_HELP, commandUsage, overview } from "../../framework/src/cli/usage.js";
import { ADD_OPTIONS, codemodUsage, GENERATE_OPTIONS } from "../../generators/src/cli/codemod-commands.js";
import { CREATE_OPTIONS, CREATE_USAGE } from "../../generators/src/cli/create-command.js";
import { factsCommand } from "../../plugins/facts/src/cli.js";
import { COMMAND as RIPGREP } from "../../plugins/ripgrep/src/cli.js";
import { COMMAND as SYMBOLS } from "../../plugins/symbols/src/cli.js";
import { type HelpCase, helpMismatches, type Specs } from "../test-support/help-options.js";

/** `npm install -D create-ocp-provider`: npm's option, quoted in the codemods' help. */
const NPM = ["-D"];

/** What each `ocp` subcommand's parser takes. */
const OCP: Record<string, { own: Specs; allowNegative?: boolean }> = {
  serve: { own: SERVE_COMMAND_OPTIONS },
  mcp: { own: MCP_COMMAND_OPTIONS },
  query: { own: QUERY_OPTIONS },
  bench: { own: BENCH_OPTIONS },
  inspect: { own: INSPECT_OPTIONS },
  eval: { own: EVAL_OPTIONS, allowNegative: true },
  add: { own: ADD_OPTIONS },
  generate: { own: GENERATE_OPTIONS },
};

/** The help of a command run by the shared runner, whole and per subcommand. */
function runnerCases(name: string, spec: CommandSpec): HelpCase[] {
  const shared = spec.options ?? {};
  if (spec.commands === undefined) {
    return [{ name: `${name} --help`, help: spec.usage, own: shared, allowNegative: spec.allowNegative }];
  }
  const commands = Object.entries(spec.commands);
  const everything = Object.assign({}, ...commands.map(([, command]) => command.options ?? {})) as Specs;
  return [
    { name: `${name} --help`, help: spec.usage, own: shared, also: everything, allowNegative: spec.allowNegative },
    ...commands.map(
      ([command, sub]): HelpCase => ({
        name: `${name} ${command} --help`,
        help: spec.commandUsage?.(command) ?? spec.usage,
        own: { ...shared, ...sub.options },
        allowNegative: spec.allowNegative,
      }),
    ),
  ];
}

const CASES: HelpCase[] = [
  // `ocp --help`: each command's synopsis and sentence, against that command's parser.
  ...Object.entries(COMMAND_HELP).map(
    ([command, help]): HelpCase => ({
      name: `ocp --help, on ${command}`,
      help: [...help.synopsis, help.summary].join("\n"),
      own: {},
      also: OCP[command]?.own,
      allowNegative: OCP[command]?.allowNegative,
    }),
  ),
  // The subcommands whose help is the table's.
  ...["serve", "mcp", "query", "bench"].map(
    (command): HelpCase => ({
      name: `ocp ${command} --help`,
      help: commandUsage(command),
      own: OCP[command]?.own ?? {},
    }),
  ),
  // Without create-ocp-provider installed, `ocp add --help` is the table's.
  ...["add", "generate"].map(
    (command): HelpCase => ({
      name: `ocp ${command} --help (without create-ocp-provider)`,
      help: commandUsage(command),
      own: {},
      also: OCP[command]?.own,
      foreign: NPM,
    }),
  ),
  { name: "ocp inspect --help", help: inspectUsage("ocp inspect"), own: INSPECT_OPTIONS },
  { name: "ocp-inspect --help", help: inspectUsage("ocp-inspect"), own: INSPECT_OPTIONS },
  { name: "ocp eval --help", help: EVAL_USAGE, own: EVAL_OPTIONS, allowNegative: true },
  ...runnerCases("ocp-ripgrep", providerCommandSpec(RIPGREP)),
  ...runnerCases("ocp-symbols", providerCommandSpec(SYMBOLS)),
  ...runnerCases("ocp-facts", providerCommandSpec(factsCommand())),
  {
    name: "create-ocp-provider --help",
    help: CREATE_USAGE,
    own: CREATE_OPTIONS,
    also: { ...ADD_OPTIONS, ...GENERATE_OPTIONS },
  },
  {
    name: "create-ocp-provider add --help (and generate --help)",
    help: codemodUsage(),
    own: { ...ADD_OPTIONS, ...GENERATE_OPTIONS },
  },
];

describe("every help names exactly the options its parser takes", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", (_, c) => {
    expect(helpMismatches(c)).toEqual({ unknown: [], undocumented: [] });
  });

  it("catches a lie either way (the check itself)", () => {
    const own = { root: { type: "string" }, hidden: { type: "boolean" } } as const;
    expect(helpMismatches({ name: "", help: "--root DIR  --bogus", own })).toEqual({
      unknown: ["--bogus"],
      undocumented: ["--hidden"],
    });
    expect(helpMismatches({ name: "", help: "--root --no-hidden", own, allowNegative: true })).toEqual({
      unknown: [],
      undocumented: [],
    });
  });
});

describe("lists in help come from their source", () => {
  it("ocp query --help names the wire schema's frame kinds, all of them and no other", () => {
    const schema = JSON.parse(
      readFileSync(new URL("../../framework/schema/ocp-envelope.reference.schema.json", import.meta.url), "utf8"),
    ) as { $defs: { FrameKind: { enum: string[] } } };
    const listed = /--kinds k,\.\. +only these kinds \(([^)]*)\)/.exec(commandUsage("query"))?.[1];
    expect(listed?.split(", ")).toEqual(schema.$defs.FrameKind.enum);
  });

  it("ocp --help gives every command a whole sentence, not a line cut from its help", () => {
    const text = overview();
    for (const help of Object.values(COMMAND_HELP)) {
      expect(text).toContain(`      ${help.summary}\n`);
      expect(help.summary).toMatch(/^[A-Z].*\.$/);
      expect(help.summary).not.toContain("\n");
    }
  });
});
