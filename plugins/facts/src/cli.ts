/**
 * The `ocp-facts` command: write, read and serve a fact store.
 *
 * Output for people by default, `--json` for programs; errors on stderr.
 * Exit codes: 0 success, 1 failure (the message says why), 2 usage error.
 */

import { once } from "node:events";
import { createWriteStream, renameSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseListenAddress } from "ocp-provider";
import { argsErrorMessage, usageErrorLine, wantsHelp } from "ocp-provider/cli";
import { renderErasure, renderFacts, renderHits, renderImport, renderWrite } from "./cli-render.js";
import { FactError } from "./errors.js";
import { importJsonl } from "./import-file.js";
import { type OpenFactStoreOptions, openFactStore } from "./open.js";
import { createFactsProvider, VERSION } from "./plugin.js";
import { toRecord } from "./records.js";
import type { FactStore } from "./store.js";

const USAGE = `ocp-facts — a bi-temporal fact store, served over the Open Context Protocol

Every command takes the store: --db FILE (SQLite; or $OCP_FACTS_DB)
                            or --pg URL (PostgreSQL; or $OCP_FACTS_PG) [--schema NAME]
before or after the command's name.

Write:
  ocp-facts assert --subject S --predicate P --statement TEXT [--valid-from T] [--valid-to T]
                   [--source URI] [--method M] [--author A]
  ocp-facts correct --id N [--subject S] [--predicate P] [--statement TEXT] [--valid-from T]
                    [--valid-to T | --open-ended] [--source URI] [--method M] [--author A]
                    [--reason R] [--by WHO]
  ocp-facts retract --id N [--at T] [--reason R] [--by WHO]
  ocp-facts erase (--id N | --subject S) --reason R [--by WHO]
  ocp-facts functional [PREDICATE...] [--off]     declare (or list) one-value-at-a-time predicates
  ocp-facts import FILE.jsonl [--batch N]
Read:
  ocp-facts query [TEXT] [--subject S] [--predicate P] [--as-of T] [--as-known-at T] [--limit N]
  ocp-facts history (--subject S | --id N)
  ocp-facts export [--out FILE]                   every version, as JSONL
  ocp-facts erasures                              the erasure log
Serve (OCP provider):
  ocp-facts serve [--http [host:]port] [--token T] [--as-known-at T] [--name NAME] [--store-name S]
                  [--mcp [--allow-egress]]
      --name: the provider's name; --store-name: S in fact://S/<id> (default: file or database name)
      --mcp: serve MCP clients (one get_context tool; needs ocp-provider-mcp); a store on a
      remote PostgreSQL server is egress, served over MCP only with --allow-egress

--json prints results as JSON. Times are RFC 3339 (2024-05-01T09:30:00Z, any UTC offset)
or a date (2024-05-01, midnight UTC). --as-of is valid time (what was true then);
--as-known-at is system time (what the store knew then).
"ocp-facts <command> --help" shows one command; "ocp-facts --version" the version.
Exit codes: 0 success, 1 failure, 2 usage error.
`;

/** A command-line mistake: exit 2 with the usage. */
class UsageError extends Error {}

const STORE_OPTIONS = {
  db: { type: "string" },
  pg: { type: "string" },
  schema: { type: "string" },
  json: { type: "boolean", default: false },
} as const;

type Values = Record<string, string | boolean | undefined>;

function parse(
  args: string[],
  options: Record<string, { type: "string" | "boolean"; default?: boolean }>,
  positionals = 0,
) {
  try {
    const parsed = parseArgs({
      args,
      options: { ...STORE_OPTIONS, ...options },
      allowPositionals: positionals > 0,
      strict: true,
    });
    if (parsed.positionals.length > positionals)
      throw new UsageError(`unexpected argument '${parsed.positionals[positionals]}'`);
    return { values: parsed.values as Values, positionals: parsed.positionals };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const message = argsErrorMessage(error);
    if (message !== undefined) throw new UsageError(message);
    throw error;
  }
}

const text = (values: Values, name: string) => values[name] as string | undefined;

function required(values: Values, name: string): string {
  const value = text(values, name);
  if (value === undefined) throw new UsageError(`--${name} is required`);
  return value;
}

function wholeNumber(values: Values, name: string): number | undefined {
  const value = text(values, name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
    throw new UsageError(`--${name} must be a whole number ≥ 1, not '${value}'`);
  }
  return number;
}

/** The store options from --db/--pg (or the environment). */
function storeOptions(values: Values, create: boolean): OpenFactStoreOptions {
  const db = text(values, "db");
  const pg = text(values, "pg");
  if (db !== undefined && pg !== undefined) throw new UsageError("give --db or --pg, not both");
  const schema = text(values, "schema");
  if (db !== undefined) return { db, create };
  if (pg !== undefined) return { pg, schema, create };
  if (process.env.OCP_FACTS_DB) return { db: process.env.OCP_FACTS_DB, create };
  if (process.env.OCP_FACTS_PG) return { pg: process.env.OCP_FACTS_PG, schema, create };
  throw new UsageError("which store? give --db FILE or --pg URL (or set OCP_FACTS_DB / OCP_FACTS_PG)");
}

async function withStore<T>(values: Values, create: boolean, fn: (store: FactStore) => Promise<T>): Promise<T> {
  const store = await openFactStore(storeOptions(values, create));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Writes to stdout, waiting when the pipe is full (an export can be large). */
async function out(chunk: string): Promise<void> {
  if (!process.stdout.write(chunk)) await once(process.stdout, "drain");
}

const json = (value: unknown) => out(`${JSON.stringify(value, null, 2)}\n`);

/** Parses `[host:]port`: `8080`, `0.0.0.0:8080`, `[::1]:8080`. */
export function parseListen(value: string): { host: string; port: number } {
  const listen = parseListenAddress(value);
  if (listen === undefined) throw new UsageError(`--http expects [host:]port, not '${value}'`);
  return listen;
}

type Command = (args: string[]) => Promise<void>;

const COMMANDS: Record<string, Command> = {
  async assert(args) {
    const { values } = parse(args, {
      subject: { type: "string" },
      predicate: { type: "string" },
      statement: { type: "string" },
      "valid-from": { type: "string" },
      "valid-to": { type: "string" },
      source: { type: "string" },
      method: { type: "string" },
      author: { type: "string" },
    });
    const input = {
      subject: required(values, "subject"),
      predicate: required(values, "predicate"),
      statement: required(values, "statement"),
      validFrom: text(values, "valid-from"),
      validTo: text(values, "valid-to"),
      source: text(values, "source"),
      method: text(values, "method"),
      author: text(values, "author"),
    };
    const result = await withStore(values, true, (store) => store.assert(input));
    await (values.json ? json(result) : out(renderWrite("asserted", result)));
  },

  async correct(args) {
    const { values } = parse(args, {
      id: { type: "string" },
      subject: { type: "string" },
      predicate: { type: "string" },
      statement: { type: "string" },
      "valid-from": { type: "string" },
      "valid-to": { type: "string" },
      "open-ended": { type: "boolean", default: false },
      source: { type: "string" },
      method: { type: "string" },
      author: { type: "string" },
      reason: { type: "string" },
      by: { type: "string" },
    });
    const id = wholeNumber(values, "id") ?? required(values, "id");
    if (values["open-ended"] && values["valid-to"] !== undefined)
      throw new UsageError("give --valid-to or --open-ended, not both");
    const result = await withStore(values, false, (store) =>
      store.correct(id as number, {
        subject: text(values, "subject"),
        predicate: text(values, "predicate"),
        statement: text(values, "statement"),
        validFrom: text(values, "valid-from"),
        validTo: values["open-ended"] ? null : text(values, "valid-to"),
        source: text(values, "source"),
        method: text(values, "method"),
        author: text(values, "author"),
        reason: text(values, "reason"),
        by: text(values, "by"),
      }),
    );
    await (values.json ? json(result) : out(renderWrite("corrected", result)));
  },

  async retract(args) {
    const { values } = parse(args, {
      id: { type: "string" },
      at: { type: "string" },
      reason: { type: "string" },
      by: { type: "string" },
    });
    const id = wholeNumber(values, "id") ?? required(values, "id");
    const result = await withStore(values, false, (store) =>
      store.retract(id as number, { at: text(values, "at"), reason: text(values, "reason"), by: text(values, "by") }),
    );
    await (values.json ? json(result) : out(renderWrite("retracted", result)));
  },

  async erase(args) {
    const { values } = parse(args, {
      id: { type: "string" },
      subject: { type: "string" },
      reason: { type: "string" },
      by: { type: "string" },
    });
    const id = wholeNumber(values, "id");
    const subject = text(values, "subject");
    if ((id === undefined) === (subject === undefined))
      throw new UsageError("erase takes exactly one of --id or --subject");
    const reason = required(values, "reason");
    const erasure = await withStore(values, false, (store) =>
      store.erase({ id, subject, reason, by: text(values, "by") }),
    );
    await (values.json ? json(erasure) : out(renderErasure(erasure)));
  },

  async functional(args) {
    const { values, positionals } = parse(args, { off: { type: "boolean", default: false } }, Number.POSITIVE_INFINITY);
    if (values.off && positionals.length === 0) throw new UsageError("--off needs the predicates to turn off");
    const list = await withStore(values, positionals.length > 0, async (store) => {
      for (const predicate of positionals) await store.setFunctional(predicate, !values.off);
      return store.functionalPredicates();
    });
    await (values.json ? json(list) : out(list.length === 0 ? "no functional predicates\n" : `${list.join("\n")}\n`));
  },

  async import(args) {
    const { values, positionals } = parse(args, { batch: { type: "string" } }, 1);
    const [file] = positionals;
    if (file === undefined) throw new UsageError("import takes a JSONL file: ocp-facts import FILE.jsonl");
    const batchSize = wholeNumber(values, "batch");
    const summary = await withStore(values, true, (store) =>
      importJsonl(store, file, {
        batchSize,
        onClaim: (claim) => {
          process.stderr.write(`ocp-facts: ${claim.records} records checked; ids up to ${claim.maxId} claimed\n`);
        },
        onBatch: (p) => {
          process.stderr.write(
            `ocp-facts: batch ${p.batch} committed (lines ${p.firstLine}-${p.lastLine}: ${p.inserted} new, ${p.skipped} already present)\n`,
          );
        },
      }),
    );
    await (values.json ? json(summary) : out(renderImport(summary)));
  },

  async query(args) {
    const { values, positionals } = parse(
      args,
      {
        subject: { type: "string" },
        predicate: { type: "string" },
        "as-of": { type: "string" },
        "as-known-at": { type: "string" },
        limit: { type: "string" },
      },
      Number.POSITIVE_INFINITY,
    );
    const textQuery = positionals.join(" ").trim();
    const asOf = { validAt: text(values, "as-of"), knownAt: text(values, "as-known-at") };
    const limit = wholeNumber(values, "limit");
    await withStore(values, false, async (store) => {
      if (textQuery !== "") {
        if (values.subject !== undefined || values.predicate !== undefined) {
          throw new UsageError("give a text query or --subject/--predicate, not both");
        }
        const hits = await store.search({ text: textQuery, ...asOf, limit });
        await (values.json ? json(hits.map(({ fact, relevance }) => ({ ...fact, relevance }))) : out(renderHits(hits)));
        return;
      }
      const facts = await store.list({
        subject: text(values, "subject"),
        predicate: text(values, "predicate"),
        ...asOf,
        limit,
      });
      await (values.json ? json(facts) : out(renderFacts(facts, "no facts hold then")));
    });
  },

  async history(args) {
    const { values } = parse(args, { id: { type: "string" }, subject: { type: "string" } });
    const id = wholeNumber(values, "id");
    const subject = text(values, "subject");
    if ((id === undefined) === (subject === undefined))
      throw new UsageError("history takes exactly one of --id or --subject");
    const facts = await withStore(values, false, (store) =>
      store.history(id !== undefined ? { id } : { subject: subject as string }),
    );
    await (values.json ? json(facts) : out(renderFacts(facts, `no facts about '${subject}'`)));
  },

  async export(args) {
    const { values } = parse(args, { out: { type: "string" } });
    const target = text(values, "out");
    await withStore(values, false, async (store) => {
      if (target === undefined) {
        for await (const fact of store.versions()) await out(`${JSON.stringify(toRecord(fact))}\n`);
        return;
      }
      // Written aside and renamed into place: a failed export never leaves half a file under the name.
      const partial = `${target}.partial`;
      const stream = createWriteStream(partial);
      try {
        for await (const fact of store.versions()) {
          if (!stream.write(`${JSON.stringify(toRecord(fact))}\n`)) await once(stream, "drain");
        }
        stream.end();
        await once(stream, "finish");
        renameSync(partial, target);
      } catch (error) {
        stream.destroy();
        rmSync(partial, { force: true });
        throw error;
      }
    });
  },

  async erasures(args) {
    const { values } = parse(args, {});
    const log = await withStore(values, false, (store) => store.erasures());
    await (values.json
      ? json(log)
      : out(log.length === 0 ? "nothing has been erased\n" : log.map(renderErasure).join("")));
  },

  async serve(args) {
    const { values } = parse(args, {
      http: { type: "string" },
      token: { type: "string" },
      "as-known-at": { type: "string" },
      name: { type: "string" },
      "store-name": { type: "string" },
      mcp: { type: "boolean", default: false },
      "allow-egress": { type: "boolean", default: false },
    });
    const http = values.http === undefined ? undefined : parseListen(values.http as string);
    if (values["allow-egress"] && !values.mcp) throw new UsageError("--allow-egress goes with --mcp");
    const { serveProvider } = await import("ocp-provider/serve");
    let location = "";
    await serveProvider(
      async () => {
        const store = await openFactStore({ ...storeOptions(values, false), name: text(values, "store-name") });
        location = store.backend.location;
        return createFactsProvider({
          store,
          asKnownAt: text(values, "as-known-at"),
          providerName: text(values, "name"),
        });
      },
      {
        http,
        token: text(values, "token"),
        detail: () => location,
        mcp: values.mcp ? { allowEgress: values["allow-egress"] === true } : undefined,
      },
    );
  },
};

/** Options that may come before the command, as git and npm users expect: `ocp-facts --db f.db assert …`. */
const LEADING_OPTIONS: Record<string, boolean> = { "--db": true, "--pg": true, "--schema": true, "--json": false };

/** Splits `argv` into the command and its arguments, moving store options given before the command after it. */
function splitCommand(argv: readonly string[]): { command: string | undefined; rest: string[] } {
  const leading: string[] = [];
  let at = 0;
  for (; at < argv.length; at++) {
    const arg = argv[at] as string;
    if (!arg.startsWith("-")) break;
    const name = arg.split("=")[0] as string;
    if (!Object.hasOwn(LEADING_OPTIONS, name)) {
      throw new UsageError(
        `unknown option '${name}' before the command: only --db, --pg, --schema and --json go there`,
      );
    }
    leading.push(arg);
    if (LEADING_OPTIONS[name] && !arg.includes("=")) {
      const value = argv[at + 1];
      if (value === undefined) throw new UsageError(`option '${name}' needs a value`);
      leading.push(value);
      at++;
    }
  }
  return { command: argv[at], rest: [...leading, ...argv.slice(at + 1)] };
}

/** The lines of USAGE about `command`: its synopsis and their continuations. */
function commandLines(command: string): string[] {
  const lines: string[] = [];
  for (const line of USAGE.split("\n")) {
    if (line.startsWith(`  ocp-facts ${command} `) || line === `  ocp-facts ${command}`) lines.push(line.slice(2));
    else if (lines.length > 0 && /^ {4,}\S/.test(line) && !line.trimStart().startsWith("ocp-facts"))
      lines.push(line.slice(2));
    else if (lines.length > 0) break;
  }
  return lines;
}

/** `ocp-facts <command> --help`: the command's lines of USAGE, and what every command shares. */
function commandUsage(command: string): string {
  const tail = USAGE.slice(USAGE.indexOf("--json prints"));
  return `Usage:\n  ${commandLines(command).join("\n  ")}\n\n${STORE_LINE}\n\n${tail}`;
}

const STORE_LINE =
  "The store: --db FILE (SQLite; or $OCP_FACTS_DB) or --pg URL (PostgreSQL; or $OCP_FACTS_PG) [--schema NAME]";

/** One line: the command's synopsis, without its help text and alignment. */
function synopsis(command: string | undefined): string {
  const lines = command === undefined ? [] : commandLines(command);
  if (lines.length === 0) return "ocp-facts <command> [--db FILE | --pg URL] [options]";
  const first = (lines[0] as string).split(/ {3,}/)[0] as string;
  return lines.length > 1 ? `${first} ...` : first;
}

/** Runs the `ocp-facts` command line; resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let command: string | undefined;
  try {
    if (argv[0] === "--version") {
      process.stdout.write(`${VERSION}\n`);
      return 0;
    }
    if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h") {
      (argv.length === 0 ? process.stderr : process.stdout).write(USAGE);
      return argv.length === 0 ? 2 : 0;
    }
    const split = splitCommand(argv);
    command = split.command;
    const { rest } = split;
    if (command === "help") {
      process.stdout.write(rest[0] !== undefined && Object.hasOwn(COMMANDS, rest[0]) ? commandUsage(rest[0]) : USAGE);
      return 0;
    }
    if (command === undefined) throw new UsageError("which command? (ocp-facts --help lists them)");
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (run === undefined) {
      const unknown = command;
      command = undefined;
      throw new UsageError(`unknown command '${unknown}'`);
    }
    if (wantsHelp(rest)) {
      process.stdout.write(commandUsage(command));
      return 0;
    }
    await run(rest);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      const program = command === undefined ? "ocp-facts" : `ocp-facts ${command}`;
      process.stderr.write(usageErrorLine(program, error.message, synopsis(command)));
      return 2;
    }
    const message = error instanceof FactError ? `${error.message} (${error.code})` : (error as Error).message;
    process.stderr.write(`ocp-facts: ${message}\n`);
    return 1;
  }
}
