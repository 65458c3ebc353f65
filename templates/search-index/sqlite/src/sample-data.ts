/**
 * The sample database, data/docs.sqlite: an FTS5 table `pages(title, body, url)` of the
 * pages in data/sample-docs.json, built the first time the provider asks for it. Once the
 * provider reads your own database, nothing asks for it: delete this file and data/.
 */
import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";

/** One page of the sample. */
interface Page {
  title: string;
  body: string;
  url: string;
}

/**
 * The path of the sample database, built from `pages` if it is not there yet — into a file
 * of its own first, renamed into place when complete, so a provider started beside this
 * one (the conformance suite starts several) never opens half a database. It says on
 * stderr what it made.
 */
export function sampleDatabase(
  file = fileURLToPath(new URL("../data/docs.sqlite", import.meta.url)),
  pages: string | URL = new URL("../data/sample-docs.json", import.meta.url),
): string {
  if (existsSync(file)) return file;
  const docs = JSON.parse(readFileSync(pages, "utf8")) as Page[];
  const building = `${file}.${process.pid}.building`;
  try {
    const db = new Database(building);
    try {
      db.exec("CREATE VIRTUAL TABLE pages USING fts5(title, body, url UNINDEXED, tokenize = 'porter')");
      const insert = db.prepare("INSERT INTO pages (title, body, url) VALUES (?, ?, ?)");
      db.transaction(() => {
        for (const doc of docs) insert.run(doc.title, doc.body, doc.url);
      })();
    } finally {
      db.close();
    }
    renameSync(building, file);
  } finally {
    rmSync(building, { force: true });
  }
  const source = pages instanceof URL ? fileURLToPath(pages) : pages;
  process.stderr.write(`sample: built ${shown(file)}, ${docs.length} pages from ${shown(source)}\n`);
  return file;
}

/** A path as a person reads it: relative to the working directory when it is under it. */
function shown(path: string): string {
  const under = relative(process.cwd(), path);
  return under.startsWith("..") || under === "" ? path : under;
}
