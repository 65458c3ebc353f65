/**
 * Imports data/sample-facts.jsonl into the store at data/facts.db (`npm test` runs it
 * first). Re-running it is harmless: an import is idempotent by fact id. Delete it when
 * the provider serves your own facts.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { openFactStore, parseRecord } from "ocp-plugin-facts";

const store = await openFactStore({ db: fileURLToPath(new URL("../data/facts.db", import.meta.url)) });
try {
  const lines = readFileSync(new URL("../data/sample-facts.jsonl", import.meta.url), "utf8").split("\n");
  await store.importBatch(lines.filter((line) => line.trim() !== "").map((line) => parseRecord(JSON.parse(line))));
} finally {
  await store.close();
}
