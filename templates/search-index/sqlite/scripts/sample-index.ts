/**
 * Builds the sample FTS5 database data/docs.sqlite from data/sample-docs.json (once;
 * `npm test` runs it first). Delete this script when the provider reads your own database.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";

const target = new URL("../data/docs.sqlite", import.meta.url);
if (!existsSync(target)) {
  const docs = JSON.parse(readFileSync(new URL("../data/sample-docs.json", import.meta.url), "utf8")) as {
    title: string;
    body: string;
    url: string;
  }[];
  const db = new Database(fileURLToPath(target));
  db.exec("CREATE VIRTUAL TABLE pages USING fts5(title, body, url UNINDEXED, tokenize = 'porter')");
  const insert = db.prepare("INSERT INTO pages (title, body, url) VALUES (?, ?, ?)");
  db.transaction(() => {
    for (const doc of docs) insert.run(doc.title, doc.body, doc.url);
  })();
  db.close();
}
