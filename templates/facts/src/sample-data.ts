/**
 * The sample fact store, data/facts.db: the facts of data/sample-facts.jsonl, imported the
 * first time the provider asks for it. `owner` is declared functional there — one owner at
 * a time: asserting a new owner ends the previous one's validity where the new one's
 * starts, as `ocp-facts functional --db FILE owner` declares it in a store of your own.
 * Once the provider reads your own store, nothing asks for this one: delete this file and data/.
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { openFactStore, parseRecord } from "ocp-plugin-facts";

/** Predicates of the sample that hold one value at a time. */
export const FUNCTIONAL = ["owner"];

/**
 * The path of the sample store, imported from `facts` if it is not there yet — into a
 * folder of its own first, moved into place when complete, so a provider started beside
 * this one (the conformance suite starts several) never opens half a store. It says on
 * stderr what it made.
 */
export async function sampleStore(
  db = fileURLToPath(new URL("../data/facts.db", import.meta.url)),
  facts: string | URL = new URL("../data/sample-facts.jsonl", import.meta.url),
): Promise<string> {
  if (existsSync(db)) return db;
  const lines = readFileSync(facts, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
  const folder = mkdtempSync(join(dirname(db), ".sample-"));
  try {
    // The same base name: a store is named after its file (fact://facts/2).
    const building = join(folder, basename(db));
    const store = await openFactStore({ db: building });
    try {
      for (const predicate of FUNCTIONAL) await store.setFunctional(predicate);
      await store.importBatch(lines.map((line) => parseRecord(JSON.parse(line))));
    } finally {
      await store.close();
    }
    renameSync(building, db);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const source = facts instanceof URL ? fileURLToPath(facts) : facts;
  process.stderr.write(
    `sample: imported ${lines.length} facts from ${shown(source)} into ${shown(db)} (functional: ${FUNCTIONAL.join(", ")})\n`,
  );
  return db;
}

/** A path as a person reads it: relative to the working directory when it is under it. */
function shown(path: string): string {
  const under = relative(process.cwd(), path);
  return under.startsWith("..") || under === "" ? path : under;
}
