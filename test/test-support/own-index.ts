/**
 * A search-index project pointed at an index of one's own, the way its README says ("Your
 * own data"), passes its own `npm test` (#29 item 4). Run by scaffold-packages.test.ts on
 * the SQLite and lunr projects it has made, installed and tested with their sample: each
 * is then given an SQLite FTS5 database (or a lunr index) built here, with other pages,
 * another table and other columns than the sample's — its path in src/provider.ts, a
 * question about it in test/sample.ts. The sample's database, removed first, is never
 * built again; with no ANSWER, the test of the sample's answer is skipped and its name
 * says why; with the sample deleted, `npm run inspect` asks the new question and is
 * conformant; a database that is not there is named by its path.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "vitest";
import { type CorpusDoc, writeMkdocsIndex } from "../../bench/search-index-corpora.js";
import type { Done } from "./shell.js";

/**
 * Runs a command in the project. Given as `runs`, it resolves only when the command exits
 * 0 and fails with its output otherwise; as `tries`, it resolves with how it ended.
 */
export type ProjectCommand = (command: string) => Promise<Done>;

/** The pages of one's own index: nothing of the sample's deploys and on-call. */
const BASE = "https://handbook.test/";
const PAGES: CorpusDoc[] = [
  {
    title: "Restarting",
    body: "To restart the widget service, run widgetctl restart on the host.\nIt drains open connections first.",
    url: `${BASE}widgets/#restarting`,
  },
  { title: "Widgets", body: "The widget service renders the dashboard tiles.", url: `${BASE}widgets/` },
  { title: "Scaling", body: "Add widget replicas with widgetctl scale N.", url: `${BASE}widgets/#scaling` },
  { title: "Billing", body: "Invoices are issued on the first day of each month.", url: `${BASE}billing/` },
];
const GOAL = "how do I restart the widget service?";
const ANSWER = `{ title: "Restarting", uri: "${BASE}widgets/#restarting", says: "widgetctl restart" }`;

/** Replaces `from` in a project's file, which must hold it: the README names what to change. */
function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, "utf8");
  expect(text, `${file} holds ${from}`).toContain(from);
  writeFileSync(file, text.replace(from, to));
}

/** test/sample.ts with a question about one's own pages, and what its best frame holds (or no ANSWER). */
function sample(project: string, answer: string): void {
  writeFileSync(
    join(project, "test/sample.ts"),
    `export const GOAL = ${JSON.stringify(GOAL)};\nexport const ANSWER: { title?: string; uri?: string; says?: string } | undefined = ${answer};\n`,
  );
}

/**
 * What the project's vitest says (`--reporter=verbose`): how many tests passed, and the
 * names of those skipped, with the summary's counts agreeing.
 */
function tests(done: Done): { passed: number; skipped: string[] } {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes, should a tool print them anyway
  const output = done.output.replace(/\x1b\[[0-9;]*m/g, "");
  const [, passed = "", skippedCount = "0"] =
    /^\s*Tests\s+(\d+) passed(?: \| (\d+) skipped)? \(\d+\)\s*$/m.exec(output) ?? [];
  expect(passed, output.slice(-4000)).not.toBe("");
  const skipped = [...output.matchAll(/^\s*↓ (.*)$/gm)].map((match) => (match[1] as string).trim());
  expect(skipped).toHaveLength(Number(skippedCount));
  return { passed: Number(passed), skipped };
}

/** The README's "Your own data" section, which must name each of `named`. */
function ownDataSection(project: string, named: string[]): void {
  const readme = readFileSync(join(project, "README.md"), "utf8");
  const [, section = ""] = /^## Your own data\n([\s\S]*?)^## /m.exec(readme) ?? [];
  expect(section.trim(), "README.md has a 'Your own data' section").not.toBe("");
  for (const name of named) expect(section).toContain(name);
}

/**
 * Points the SQLite project at another database, table and columns built in `work`; its
 * `npm test` and `npm run inspect` pass on them, the sample unbuilt.
 */
export async function ownSqliteIndex(
  project: string,
  work: string,
  runs: ProjectCommand,
  tries: ProjectCommand,
): Promise<void> {
  // The README lists what the test changes: the two files, and what is set in each.
  ownDataSection(project, [
    "src/provider.ts",
    "`file`",
    "`table`",
    "`columns`",
    "test/sample.ts",
    "`GOAL`",
    "`ANSWER`",
  ]);
  // The sample's database, which the project's own tests and README commands built: gone.
  const sampleDb = join(project, "data/docs.sqlite");
  rmSync(sampleDb, { force: true });

  const file = join(work, "handbook.sqlite");
  const db = new Database(file);
  db.exec("CREATE VIRTUAL TABLE articles USING fts5(heading, text, link UNINDEXED)");
  const insert = db.prepare("INSERT INTO articles (heading, text, link) VALUES (?, ?, ?)");
  for (const page of PAGES) insert.run(page.title, page.body, page.url);
  db.close();

  // 1. src/provider.ts: the file in place of sampleDatabase(), the table and the columns.
  const provider = join(project, "src/provider.ts");
  edit(provider, "file: sampleDatabase(),", `file: ${JSON.stringify(file)},`);
  edit(provider, 'table: "pages",', 'table: "articles",');
  edit(
    provider,
    'columns: { content: "body", title: "title", uri: "url" },',
    'columns: { content: "text", title: "heading", uri: "link" },',
  );
  // 2. test/sample.ts: a question the database answers, and what its best frame holds.
  sample(project, ANSWER);

  // The sample is still there, unused: nothing builds it.
  expect(tests(await runs("npm test -- --reporter=verbose"))).toEqual({ passed: 3, skipped: [] });
  expect(existsSync(sampleDb), "the sample's database, built again").toBe(false);

  // Without an ANSWER, the sample's own test is skipped, and its name says so; the rest pass.
  // Then the sample is unused: deleted, with its import.
  sample(project, "undefined");
  edit(provider, 'import { sampleDatabase } from "./sample-data.js";\n', "");
  rmSync(join(project, "src/sample-data.ts"));
  rmSync(join(project, "data"), { recursive: true });
  const skipped = tests(await runs("npm test -- --reporter=verbose"));
  expect(skipped.passed).toBe(2);
  expect(skipped.skipped).toEqual([expect.stringMatching(/answers GOAL with ANSWER.*skipped without an ANSWER/)]);

  const inspect = await runs("npm run inspect");
  expect(inspect.stdout).toMatch(/^CONFORMANT: /m);
  expect(inspect.stdout).toMatch(/^ {2}1\. doc .*Restarting$/m);

  // A database that is not there is named, with its path, in what the query prints.
  const missing = join(work, "no-such-dir", "handbook.sqlite");
  edit(provider, `file: ${JSON.stringify(file)},`, `file: ${JSON.stringify(missing)},`);
  const query = await tries(`npm run query -- ${JSON.stringify(GOAL)}`);
  expect(query.code).not.toBe(0);
  expect(query.output).toContain(`no SQLite database at ${missing}`);
}

/** Points the lunr project at another site's search_index.json built in `work`; its `npm test` passes on it. */
export async function ownLunrIndex(project: string, work: string, runs: ProjectCommand): Promise<void> {
  ownDataSection(project, ["src/provider.ts", "`file`", "`baseUrl`", "test/sample.ts", "`GOAL`", "`ANSWER`"]);
  const index = writeMkdocsIndex(PAGES, BASE, join(work, "search_index.json"));
  const provider = join(project, "src/provider.ts");
  edit(provider, 'file: new URL("../data/search_index.json", import.meta.url),', `file: ${JSON.stringify(index)},`);
  edit(provider, 'baseUrl: "https://docs.example.com/",', `baseUrl: ${JSON.stringify(BASE)},`);
  sample(project, ANSWER.replace('"Restarting"', '"Widgets › Restarting"'));
  rmSync(join(project, "data"), { recursive: true });
  expect(tests(await runs("npm test -- --reporter=verbose"))).toEqual({ passed: 3, skipped: [] });
}
