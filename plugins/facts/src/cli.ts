/**
 * The `ocp-facts` command: write, read and serve a fact store.
 *
 * Output for people by default, `--json` for programs; errors on stderr.
 * Exit codes: 0 success, 1 failure (the message says why), 2 usage error.
 * Parsing, help, the store options on either side of the command's name, and
 * `serve`'s serving options are `runProviderCommand`'s; the commands are here.
 */

import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createWriteStream, existsSync, openSync, renameSync, rmSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import { type CommandArgs, type Subcommand, UsageError } from "ocp-provider/cli";
import { type ProviderCommandSpec, runProviderCommand } from "ocp-provider/serve";
import { renderErasure, renderFacts, renderHits, renderImport, renderWrite } from "./cli-render.js";
import { type ImportSummary, importJsonl } from "./import-file.js";
import { type OpenFactStoreOptions, openFactStore } from "./open.js";
import { pgEndpoint, pgIsLocal, pgLocation } from "./pg-url.js";
import { createFactsProvider, VERSION } from "./plugin.js";
import { toRecord } from "./records.js";
import type { FactStore } from "./store.js";

/** The time options some commands take, and what each means. */
const TIME_OPTIONS = [
  ["as-of", "--as-of is valid time (what was true then)"],
  ["as-known-at", "--as-known-at is system time (what the store knew then)"],
] as const;

/** The options only `serve` takes, besides the runner's serving ones. */
const SERVE_ONLY_OPTIONS = {
  "as-known-at": { type: "string" },
  name: { type: "string" },
  "store-name": { type: "string" },
} as const;

/**
 * What the help of every command ends with; the sentence on time options names only
 * those `command` takes (all of them in the whole usage).
 */
function sharedTail(command?: string): string {
  const takes = (option: string) =>
    command === undefined ||
    Object.hasOwn(command === "serve" ? SERVE_ONLY_OPTIONS : (COMMANDS[command]?.options ?? {}), option);
  const times = TIME_OPTIONS.filter(([option]) => takes(option)).map(([, text]) => text);
  return `--json prints results as JSON. Times are RFC 3339 (2024-05-01T09:30:00Z, any UTC offset)
or a date (2024-05-01, midnight UTC).${times.length === 0 ? "" : ` ${times.join(";\n")}.`}
"ocp-facts <command> --help" shows one command; "ocp-facts --version" the version.
Exit codes: 0 success, 1 failure, 2 usage error.
`;
}

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
  ocp-facts serve [--http [host:]port] [--token T] [--allow-origin O ...] [--as-known-at T]
                  [--name NAME] [--store-name S] [--mcp [--allow-egress]]
      --name: the provider's name; --store-name: S in fact://S/<id> (default: file or database name)
      --token T: with --http, require "Authorization: Bearer T" (default: $OCP_HTTP_TOKEN)
      --allow-origin O: with --http, also answer web pages from origin O (https://app.example)
      --mcp: serve MCP clients (one get_context tool; needs ocp-provider-mcp); a store on a
      remote PostgreSQL server is egress, served over MCP only with --allow-egress

${sharedTail()}`;

/** The store options: every command takes them, before or after its name. */
const STORE_OPTIONS = {
  db: { type: "string" },
  pg: { type: "string" },
  schema: { type: "string" },
  json: { type: "boolean", default: false },
} as const;

/** The store options from --db/--pg (or the environment). */
function storeOptions(args: CommandArgs, create: boolean): OpenFactStoreOptions {
  const db = args.string("db");
  const pg = args.string("pg");
  if (db !== undefined && pg !== undefined) throw new UsageError("give --db or --pg, not both");
  const schema = args.string("schema");
  if (db !== undefined) return { db, create };
  if (pg !== undefined) return { pg, schema, create };
  if (process.env.OCP_FACTS_DB) return { db: process.env.OCP_FACTS_DB, create };
  if (process.env.OCP_FACTS_PG) return { pg: process.env.OCP_FACTS_PG, schema, create };
  throw new UsageError("which store? give --db FILE or --pg URL (or set OCP_FACTS_DB / OCP_FACTS_PG)");
}

async function withStore<T>(args: CommandArgs, create: boolean, fn: (store: FactStore) => Promise<T>): Promise<T> {
  const store = await openFactStore(storeOptions(args, create));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * `import`: reports progress on stderr. A new SQLite file is made only once the whole file
 * has passed its check, so a refused import leaves nothing behind; an existing store — or
 * a PostgreSQL server, contacted first so that a wrong URL fails at once — loses nothing
 * either, since the check writes nothing.
 */
async function importInto(options: OpenFactStoreOptions, file: string, batchSize?: number): Promise<ImportSummary> {
  let store: FactStore | undefined;
  const open = async () => {
    store = await openFactStore(options);
    return store;
  };
  const deferred = options.db !== undefined && !existsSync(options.db);
  try {
    return await importJsonl(deferred ? open : await open(), file, {
      batchSize,
      onClaim: (claim) => {
        process.stderr.write(`ocp-facts: ${claim.records} records checked; ids up to ${claim.maxId} claimed\n`);
      },
      onBatch: (p) => {
        process.stderr.write(
          `ocp-facts: batch ${p.batch} committed (lines ${p.firstLine}-${p.lastLine}: ${p.inserted} new, ${p.skipped} already present)\n`,
        );
      },
    });
  } finally {
    await (store as FactStore | undefined)?.close();
  }
}

/** Writes to stdout, waiting when the pipe is full (an export can be large). */
async function out(chunk: string): Promise<void> {
  if (!process.stdout.write(chunk)) await once(process.stdout, "drain");
}

/** `--json`'s output, or the people's. */
const show = (args: CommandArgs, value: unknown, text: () => string) =>
  out(args.flag("json") ? `${JSON.stringify(value, null, 2)}\n` : text());

const FACT_FIELDS = {
  subject: { type: "string" },
  predicate: { type: "string" },
  statement: { type: "string" },
  "valid-from": { type: "string" },
  "valid-to": { type: "string" },
  source: { type: "string" },
  method: { type: "string" },
  author: { type: "string" },
} as const;

/** The commands besides `serve`, which the runner adds. */
const COMMANDS: Record<string, Subcommand> = {
  assert: {
    options: FACT_FIELDS,
    async run(args) {
      const input = {
        subject: args.required("subject"),
        predicate: args.required("predicate"),
        statement: args.required("statement"),
        validFrom: args.string("valid-from"),
        validTo: args.string("valid-to"),
        source: args.string("source"),
        method: args.string("method"),
        author: args.string("author"),
      };
      const result = await withStore(args, true, (store) => store.assert(input));
      await show(args, result, () => renderWrite("asserted", result));
    },
  },

  correct: {
    options: {
      ...FACT_FIELDS,
      id: { type: "string" },
      "open-ended": { type: "boolean", default: false },
      reason: { type: "string" },
      by: { type: "string" },
    },
    async run(args) {
      const id = args.whole("id", 1) ?? args.required("id");
      if (args.flag("open-ended") && args.has("valid-to"))
        throw new UsageError("give --valid-to or --open-ended, not both");
      const result = await withStore(args, false, (store) =>
        store.correct(id as number, {
          subject: args.string("subject"),
          predicate: args.string("predicate"),
          statement: args.string("statement"),
          validFrom: args.string("valid-from"),
          validTo: args.flag("open-ended") ? null : args.string("valid-to"),
          source: args.string("source"),
          method: args.string("method"),
          author: args.string("author"),
          reason: args.string("reason"),
          by: args.string("by"),
        }),
      );
      await show(args, result, () => renderWrite("corrected", result));
    },
  },

  retract: {
    options: { id: { type: "string" }, at: { type: "string" }, reason: { type: "string" }, by: { type: "string" } },
    async run(args) {
      const id = args.whole("id", 1) ?? args.required("id");
      const result = await withStore(args, false, (store) =>
        store.retract(id as number, { at: args.string("at"), reason: args.string("reason"), by: args.string("by") }),
      );
      await show(args, result, () => renderWrite("retracted", result));
    },
  },

  erase: {
    options: {
      id: { type: "string" },
      subject: { type: "string" },
      reason: { type: "string" },
      by: { type: "string" },
    },
    async run(args) {
      const id = args.whole("id", 1);
      const subject = args.string("subject");
      if ((id === undefined) === (subject === undefined))
        throw new UsageError("erase takes exactly one of --id or --subject");
      const reason = args.required("reason");
      const erasure = await withStore(args, false, (store) =>
        store.erase({ id, subject, reason, by: args.string("by") }),
      );
      await show(args, erasure, () => renderErasure(erasure));
    },
  },

  functional: {
    options: { off: { type: "boolean", default: false } },
    positionals: Number.POSITIVE_INFINITY,
    async run(args) {
      const predicates = args.positionals;
      if (args.flag("off") && predicates.length === 0) throw new UsageError("--off needs the predicates to turn off");
      const list = await withStore(args, predicates.length > 0, async (store) => {
        for (const predicate of predicates) await store.setFunctional(predicate, !args.flag("off"));
        return store.functionalPredicates();
      });
      await show(args, list, () => (list.length === 0 ? "no functional predicates\n" : `${list.join("\n")}\n`));
    },
  },

  import: {
    options: { batch: { type: "string" } },
    positionals: 1,
    async run(args) {
      const [file] = args.positionals;
      if (file === undefined) throw new UsageError("import takes a JSONL file: ocp-facts import FILE.jsonl");
      const batchSize = args.whole("batch", 1);
      const summary = await importInto(storeOptions(args, true), file, batchSize);
      await show(args, summary, () => renderImport(summary));
    },
  },

  query: {
    options: {
      subject: { type: "string" },
      predicate: { type: "string" },
      "as-of": { type: "string" },
      "as-known-at": { type: "string" },
      limit: { type: "string" },
    },
    positionals: Number.POSITIVE_INFINITY,
    async run(args) {
      const textQuery = args.positionals.join(" ").trim();
      const asOf = { validAt: args.string("as-of"), knownAt: args.string("as-known-at") };
      const limit = args.whole("limit", 1);
      await withStore(args, false, async (store) => {
        if (textQuery !== "") {
          if (args.has("subject") || args.has("predicate")) {
            throw new UsageError("give a text query or --subject/--predicate, not both");
          }
          const hits = await store.search({ text: textQuery, ...asOf, limit });
          await show(
            args,
            hits.map(({ fact, relevance }) => ({ ...fact, relevance })),
            () => renderHits(hits),
          );
          return;
        }
        const facts = await store.list({
          subject: args.string("subject"),
          predicate: args.string("predicate"),
          ...asOf,
          limit,
        });
        await show(args, facts, () => renderFacts(facts, "no facts hold then"));
      });
    },
  },

  history: {
    options: { id: { type: "string" }, subject: { type: "string" } },
    async run(args) {
      const id = args.whole("id", 1);
      const subject = args.string("subject");
      if ((id === undefined) === (subject === undefined))
        throw new UsageError("history takes exactly one of --id or --subject");
      const facts = await withStore(args, false, (store) =>
        store.history(id !== undefined ? { id } : { subject: subject as string }),
      );
      await show(args, facts, () => renderFacts(facts, `no facts about '${subject}'`));
    },
  },

  export: {
    options: { out: { type: "string" } },
    async run(args) {
      const target = args.string("out");
      await withStore(args, false, async (store) => {
        if (target === undefined) {
          for await (const fact of store.versions()) await out(`${JSON.stringify(toRecord(fact))}\n`);
          return;
        }
        // Written aside and renamed into place: a failed export never leaves half a file under the
        // name. The aside file is a new one (a name of its own, created exclusively): a link planted
        // under a predictable name (`out.jsonl.partial` → a file elsewhere) is never written through.
        const partial = `${target}.${process.pid}-${randomBytes(6).toString("hex")}.partial`;
        const fd = openSync(partial, "wx"); // throws if anything, a link included, is there
        try {
          await pipeline(
            async function* () {
              for await (const fact of store.versions()) yield `${JSON.stringify(toRecord(fact))}\n`;
            },
            createWriteStream(partial, { fd }),
          );
          renameSync(partial, target);
        } catch (error) {
          rmSync(partial, { force: true });
          throw error;
        }
      });
    },
  },

  erasures: {
    async run(args) {
      const log = await withStore(args, false, (store) => store.erasures());
      await show(args, log, () => (log.length === 0 ? "nothing has been erased\n" : log.map(renderErasure).join("")));
    },
  },
};

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
  return `Usage:\n  ${commandLines(command).join("\n  ")}\n\n${STORE_LINE}\n\n${sharedTail(command)}`;
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

/**
 * Runs the `ocp-facts` command line; resolves to the exit code, or to `"serving"`
 * once `serve` listens over HTTP (over stdio the process ends with the session).
 */
export function main(argv: readonly string[]): Promise<number | "serving"> {
  return runProviderCommand(factsCommand(), argv);
}

/** `ocp-facts` as the runner knows it (exported for the test of its help against its options). */
export function factsCommand(): ProviderCommandSpec {
  // Where the store lives, for the "listening on" line; known once serve opened it.
  let location = "";
  return {
    name: "ocp-facts",
    version: VERSION,
    usage: USAGE,
    synopsis,
    options: STORE_OPTIONS,
    commands: COMMANDS,
    commandUsage,
    serveOptions: SERVE_ONLY_OPTIONS,
    check: (args) => {
      const store = storeOptions(args, false);
      // Consent before the server is even contacted; the bridge checks the declared data flow again.
      if (args.flag("mcp") && !args.flag("allow-egress") && store.pg !== undefined && !pgIsLocal(store.pg)) {
        throw new UsageError(
          `the store at ${pgLocation(pgEndpoint({ connectionString: store.pg }))} is not on this machine: ` +
            "served over MCP, queries would leave it; add --allow-egress to consent",
        );
      }
    },
    async toProvider(args) {
      const store = await openFactStore({ ...storeOptions(args, false), name: args.string("store-name") });
      location = store.backend.location;
      return createFactsProvider({ store, asKnownAt: args.string("as-known-at"), providerName: args.string("name") });
    },
    detail: () => location,
  };
}
