/**
 * A search-index project pointed at an index of one's own, the way its README says
 * ("Your own data"), passes its own `npm test` (#29 item 4): created from this clone with
 * `npm run create` and installed as a person's is, then given an SQLite FTS5 database (or a
 * lunr index) built here with other pages, another table and other columns than the
 * sample's — its path in src/provider.ts, a question about it in test/sample.ts. The
 * sample, left in place, is never built; with no ANSWER, the test of the sample's answer
 * is skipped and its name says why; with the sample deleted, `npm run inspect` asks the
 * new question and is conformant; a database that is not there is named by its path.
 *
 * Slow by nature: `npm run create` builds and packs the workspaces, and each project
 * installs (better-sqlite3 from the build this repository's install compiled, as in
 * scaffold-packages.test.ts).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CorpusDoc, writeMkdocsIndex } from "../../bench/search-index-corpora.js";
import { REPO } from "../test-support/child.js";
import { cleanEnv, type Done, missedOnlyExitTiming, testMissedOnlyExitTiming, typed } from "../test-support/shell.js";
import { packSqlitePrebuild, SQLITE_PREBUILDS_ENV } from "../test-support/sqlite-prebuild.js";

const MINUTES = 60_000;
const tmp = mkdtempSync(join(tmpdir(), "ocp-own-index-"));
const env: NodeJS.ProcessEnv = { ...cleanEnv(), npm_config_prefer_offline: "true" };
afterAll(() => rmSync(tmp, { recursive: true, force: true }), 5 * MINUTES);

beforeAll(() => {
  const prebuilds = packSqlitePrebuild(join(REPO, "node_modules"), join(tmp, "prebuilds"));
  if (prebuilds !== undefined) env[SQLITE_PREBUILDS_ENV] = prebuilds;
});

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

/** Runs a command in the project; fails the test, with its output, unless it exits 0. */
async function runs(command: string, cwd: string, timeoutMs = 10 * MINUTES): Promise<Done> {
  const missedOnlyTiming = (output: string) => testMissedOnlyExitTiming(output) || missedOnlyExitTiming(output);
  let done = await typed(command, cwd, env, { timeoutMs });
  // With other installs and tests on two cores, a provider still loading can miss the exit checks' 2 s: once more.
  if (done.code !== 0 && missedOnlyTiming(done.output)) done = await typed(command, cwd, env, { timeoutMs });
  if (done.code !== 0) throw new Error(`${command} failed (exit ${done.code}):\n${done.output.slice(-8000)}`);
  return done;
}

/**
 * What the project's vitest says (`--reporter=verbose`): how many tests passed, and the
 * names of those skipped, with the summary's counts agreeing.
 */
function tests(done: Done): { passed: number; skipped: string[] } {
  const [, passed = "", skippedCount = "0"] =
    /^\s*Tests\s+(\d+) passed(?: \| (\d+) skipped)? \(\d+\)\s*$/m.exec(done.output) ?? [];
  expect(passed, done.output.slice(-4000)).not.toBe("");
  const skipped = [...done.output.matchAll(/^\s*↓ (.*)$/gm)].map((match) => (match[1] as string).trim());
  expect(skipped).toHaveLength(Number(skippedCount));
  return { passed: Number(passed), skipped };
}

/** The README's "Your own data" section. */
function ownDataSection(project: string): string {
  const readme = readFileSync(join(project, "README.md"), "utf8");
  const [, section = ""] = /^## Your own data\n([\s\S]*?)^## /m.exec(readme) ?? [];
  expect(section.trim(), "README.md has a 'Your own data' section").not.toBe("");
  return section;
}

const ANSWER = `{ title: "Restarting", uri: "${BASE}widgets/#restarting", says: "widgetctl restart" }`;

describe("a search-index project pointed at your own index, as its README says", () => {
  it(
    "sqlite: another database, table and columns; its npm test and inspect pass on them, the sample unbuilt",
    async () => {
      const project = join(tmp, "own-sqlite");
      await runs(`npm run create -- ${project} --template search-index --index sqlite`, REPO, 15 * MINUTES);
      // The README lists what the test changes: the two files, and what is set in each.
      const yours = ownDataSection(project);
      for (const named of ["src/provider.ts", "`file`", "`table`", "`columns`", "test/sample.ts", "`GOAL`", "`ANSWER`"])
        expect(yours).toContain(named);

      const file = join(tmp, "handbook.sqlite");
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
      expect(tests(await runs("npm test -- --reporter=verbose", project))).toEqual({ passed: 3, skipped: [] });
      expect(existsSync(join(project, "data/docs.sqlite"))).toBe(false);

      // Without an ANSWER, the sample's own test is skipped, and its name says so; the rest pass.
      // Then the sample is unused: deleted, with its import.
      sample(project, "undefined");
      edit(provider, 'import { sampleDatabase } from "./sample-data.js";\n', "");
      rmSync(join(project, "src/sample-data.ts"));
      rmSync(join(project, "data"), { recursive: true });
      const skipped = tests(await runs("npm test -- --reporter=verbose", project));
      expect(skipped.passed).toBe(2);
      expect(skipped.skipped).toEqual([expect.stringMatching(/answers GOAL with ANSWER.*skipped without an ANSWER/)]);

      const inspect = await runs("npm run inspect", project);
      expect(inspect.stdout).toMatch(/^CONFORMANT: /m);
      expect(inspect.stdout).toMatch(/^ {2}1\. doc .*Restarting$/m);

      // A database that is not there is named, with its path, in what the query prints.
      const missing = join(tmp, "no-such-dir", "handbook.sqlite");
      edit(provider, `file: ${JSON.stringify(file)},`, `file: ${JSON.stringify(missing)},`);
      const query = await typed(`npm run query -- ${JSON.stringify(GOAL)}`, project, env, { timeoutMs: 2 * MINUTES });
      expect(query.code).not.toBe(0);
      expect(query.output).toContain(`no SQLite database at ${missing}`);
    },
    40 * MINUTES,
  );

  it(
    "lunr: another site's search_index.json; its npm test passes on it",
    async () => {
      const project = join(tmp, "own-lunr");
      await runs(`npm run create -- ${project} --template search-index --index lunr`, REPO, 15 * MINUTES);
      const yours = ownDataSection(project);
      for (const named of ["src/provider.ts", "`file`", "`baseUrl`", "test/sample.ts", "`GOAL`", "`ANSWER`"])
        expect(yours).toContain(named);
      const index = writeMkdocsIndex(PAGES, BASE, join(tmp, "search_index.json"));
      const provider = join(project, "src/provider.ts");
      edit(provider, 'file: new URL("../data/search_index.json", import.meta.url),', `file: ${JSON.stringify(index)},`);
      edit(provider, 'baseUrl: "https://docs.example.com/",', `baseUrl: ${JSON.stringify(BASE)},`);
      sample(project, ANSWER.replace('"Restarting"', '"Widgets › Restarting"'));
      rmSync(join(project, "data"), { recursive: true });
      expect(tests(await runs("npm test -- --reporter=verbose", project))).toEqual({ passed: 3, skipped: [] });
    },
    40 * MINUTES,
  );
});
