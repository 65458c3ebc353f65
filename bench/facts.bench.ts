/**
 * Fact store benchmark: 1M facts (`OCP_BENCH_FACTS=N` or `--facts=N` to scale) —
 * ingest rate and as-of query latency, on SQLite and, when `OCP_PG_URL` names a
 * server, on PostgreSQL beside it.
 *
 * - **ingest**: `store.importBatch()` in batches of 10,000 (what `ocp-facts import`
 *   does per transaction), with supersession for three functional predicates, then
 *   `store.optimize()` (planner statistics), as the import command ends.
 *   Baseline in the same run: the same rows inserted into a bare SQLite table (no
 *   index, no full-text, no checks) through one prepared statement.
 * - **end-to-end import**: `importJsonl()` — the JSONL file checked line by line,
 *   then imported — on a tenth of the facts.
 * - **as-of queries**: the plugin's `search()` for goals built from random facts
 *   ("What is the works at of Mara Kovar?"), pinned to a valid time inside the
 *   fact's interval (`as_of`), and again also to a system time (`as_known_at`) in
 *   the store's recorded history — which holds 5000 corrections and 2000
 *   retractions on top of the bulk load. Baseline: the query one writes first, a
 *   single full-text OR of the same terms ranked by BM25 with the same time filter.
 * - The query set runs once untimed first: the store remembers how common its
 *   common terms are, as a provider that has served for a while does.
 * - Checks: every hit is true at its as-of time as known at its system time, and
 *   the fact a goal was built from is found when it is visible.
 *
 * Targets (SQLite): ingest ≥ 50,000 facts/s; as-of query p50 < 5 ms.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import {
  type FactStore,
  facts,
  importJsonl,
  type OpenFactStoreOptions,
  openFactStore,
  type ParsedRecord,
  queryTerms,
} from "ocp-plugin-facts";
import { type ContextQuery, silentLogger } from "ocp-provider";
import pg from "pg";
import {
  type BenchReport,
  type BenchRow,
  checkVerdict,
  formatMs,
  formatRate,
  formatRatio,
  ratioVerdict,
  seededRandom,
  type Verdict,
} from "./harness.js";

const argument = process.argv.find((arg) => arg.startsWith("--facts="));
const FACTS = Number(argument?.slice(8) ?? process.env.OCP_BENCH_FACTS ?? 1_000_000);
const BATCH = 10_000;
const CORRECTIONS = 5000;
const RETRACTIONS = 2000;
const QUERIES = 1000;
const NAIVE_QUERIES = 100;
const INGEST_TARGET = 50_000;
const P50_TARGET_MS = 5;
const DAY = 86_400_000;
const HISTORY_START = Date.parse("2024-01-01T00:00:00Z");

const SYLLABLES = "ka lo mi ra ne to su vi da el an or is ur be co fi ga hu jo".split(" ");
const name = (n: number, parts: number) =>
  Array.from({ length: parts }, (_, i) => SYLLABLES[Math.floor(n / SYLLABLES.length ** i) % SYLLABLES.length]).join("");
const capital = (text: string) => text[0]?.toUpperCase() + text.slice(1);
const WORDS =
  "alpha bravo cedar delta ember fjord garnet harbor indigo jasper kelp lumen maple nova onyx prism quartz".split(" ");
const TEMPLATES: Record<string, (s: string, r: () => number) => string> = {
  works_at: (s, r) =>
    `${s} works at ${capital(name(Math.floor(r() * 4000), 3))} Corp as ${pick(["an engineer", "a manager", "a designer", "an analyst"], r)}.`,
  lives_in: (s, r) => `${s} lives in ${capital(name(Math.floor(r() * 2000), 3))}.`,
  title: (s, r) =>
    `${s} holds the title ${pick(["Senior", "Staff", "Principal", "Junior"], r)} ${pick(["Engineer", "Scientist", "Writer"], r)}.`,
  email: (s, r) => `${s} can be reached at ${name(Math.floor(r() * 8000), 3)}@example.org.`,
  speaks: (s, r) => `${s} speaks ${pick(["French", "German", "Japanese", "Spanish", "Polish", "Hindi"], r)}.`,
  reports_to: (s, r) => `${s} reports to ${subjectOf(Math.floor(r() * 1e6))}.`,
};
for (let i = 0; i < 34; i++) {
  TEMPLATES[`attribute_${i}`] = (s, r) =>
    `${s} has attribute ${i} set to ${pick(WORDS, r)} ${pick(WORDS, r)} ${Math.floor(r() * 1000)}.`;
}
const PREDICATES = Object.keys(TEMPLATES);
const FUNCTIONAL = ["works_at", "lives_in", "title"];

/** A generated record: its valid_from is always given. */
type BenchRecord = ParsedRecord & { validFrom: number };

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)] as T;
}
function subjectOf(person: number): string {
  return `${capital(name(person % 400, 2))} ${capital(name(Math.floor(person / 400) % 8000, 3))}`;
}

/** The bulk load: `count` facts about count/10 people, seeded, as checked import records. */
function generate(count: number): BenchRecord[] {
  const random = seededRandom(0xfac7);
  const people = Math.max(10, Math.floor(count / 10));
  return Array.from({ length: count }, (_, i) => {
    const subject = subjectOf(Math.floor(random() * people));
    const predicate = pick(PREDICATES, random);
    const validFrom = Date.parse("2000-01-01T00:00:00Z") + Math.floor(random() * 25 * 365) * DAY;
    const validTo = random() < 0.3 ? validFrom + (1 + Math.floor(random() * 2000)) * DAY : null;
    return {
      id: i + 1,
      version: 1,
      subject,
      predicate,
      statement: (TEMPLATES[predicate] as (s: string, r: () => number) => string)(subject, random),
      validFrom,
      validTo,
      source: null,
      method: "bench",
      author: null,
      recordedAt: undefined,
      supersededAt: null,
      op: "import",
      note: null,
      actor: null,
    };
  });
}

interface Side {
  readonly name: string;
  readonly open: (clock: () => number) => Promise<FactStore>;
  /** The naive single-query baseline, where this backend has one. */
  readonly naive?: (terms: string[], validAt: number, limit: number) => unknown[];
  readonly dispose: () => Promise<void>;
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;

/** Ingests, adds history, then times as-of queries on one backend. */
async function measureSide(side: Side, records: readonly BenchRecord[], rows: BenchRow[], verdicts: Verdict[]) {
  let now = HISTORY_START;
  const store = await side.open(() => now);
  for (const predicate of FUNCTIONAL) await store.setFunctional(predicate);
  const started = performance.now();
  for (let at = 0; at < records.length; at += BATCH) {
    now += 3_600_000; // each batch an hour later in system time
    await store.importBatch(records.slice(at, at + BATCH));
  }
  await store.optimize(); // as `ocp-facts import` does at its end
  const ingestSeconds = (performance.now() - started) / 1000;
  const ingestRate = records.length / ingestSeconds;

  const random = seededRandom(0x5ea7);
  for (let i = 0; i < CORRECTIONS + RETRACTIONS; i++) {
    now += 60_000;
    const id = 1 + Math.floor(random() * records.length);
    if (i < CORRECTIONS)
      await store.correct(id, { statement: `${(records[id - 1] as BenchRecord).statement} (correction ${i})` });
    else
      await store.retract(id, { at: new Date((records[id - 1] as BenchRecord).validFrom + 400 * DAY) }).catch(() => {});
  }
  const historyEnd = now;

  const plugin = facts({ store });
  const context = {
    signal: new AbortController().signal,
    deadline: Number.POSITIVE_INFINITY,
    log: silentLogger,
    checkpoint: () => Promise.resolve(),
  };
  const queries = Array.from({ length: QUERIES }, () => {
    const record = records[Math.floor(random() * records.length)] as BenchRecord;
    const end = record.validTo ?? Date.parse("2026-01-01T00:00:00Z");
    const validAt = record.validFrom + Math.floor(random() * (end - record.validFrom));
    const knownAt = HISTORY_START + Math.floor(random() * (historyEnd - HISTORY_START));
    return {
      record,
      validAt,
      knownAt,
      goal: `What is the ${record.predicate.replaceAll("_", " ")} of ${record.subject}?`,
    };
  });
  // One untimed pass first: a provider that has served a while has counted its common
  // terms (see FactStore's cache); the first query with a new common term costs more.
  for (const q of queries) {
    const query = {
      goal: q.goal,
      kinds: [],
      anchors: [],
      max_frames: 8,
      max_tokens: 4000,
      as_of: new Date(q.validAt).toISOString(),
    };
    await plugin.search(query, context);
  }
  const timings = { valid: [] as number[], system: [] as number[] };
  let wrong = 0;
  let found = 0;
  let visible = 0;
  for (const mode of ["valid", "system"] as const) {
    for (const q of queries) {
      const query: ContextQuery & { as_known_at?: string } = {
        goal: q.goal,
        kinds: [],
        anchors: [],
        max_frames: 8,
        max_tokens: 4000,
        as_of: new Date(q.validAt).toISOString(),
        as_known_at: mode === "system" ? new Date(q.knownAt).toISOString() : undefined,
      };
      const begin = performance.now();
      const candidates = (await plugin.search(query, context)) as {
        id?: string;
        validFrom?: string;
        validTo?: string;
        recordedAt?: string;
      }[];
      timings[mode].push(performance.now() - begin);
      for (const candidate of candidates) {
        const from = Date.parse(candidate.validFrom as string);
        const to = candidate.validTo === undefined ? Number.POSITIVE_INFINITY : Date.parse(candidate.validTo);
        const recorded = Date.parse(candidate.recordedAt as string);
        if (!(from <= q.validAt && q.validAt < to) || (mode === "system" && recorded > q.knownAt)) wrong++;
      }
      if (mode === "valid") {
        const truth = await store.list({
          subject: q.record.subject,
          predicate: q.record.predicate,
          validAt: new Date(q.validAt),
        });
        if (truth.some((fact) => fact.id === q.record.id)) {
          visible++;
          if (candidates.some((candidate) => candidate.id?.startsWith(`${q.record.id}@`))) found++;
        }
      }
    }
  }
  const naive: number[] = [];
  if (side.naive !== undefined) {
    for (const q of queries.slice(0, NAIVE_QUERIES)) {
      const begin = performance.now();
      side.naive(queryTerms(q.goal), q.validAt, 16);
      naive.push(performance.now() - begin);
    }
  }
  await store.close();
  await side.dispose();

  const valid = [...timings.valid].sort((a, b) => a - b);
  const system = [...timings.system].sort((a, b) => a - b);
  const naiveSorted = naive.sort((a, b) => a - b);
  rows.push({
    backend: side.name,
    facts: records.length.toLocaleString("en-US"),
    ingest: formatRate(ingestRate),
    "as-of (valid) p50 / p90 / p99": `${formatMs(percentile(valid, 0.5))} / ${formatMs(percentile(valid, 0.9))} / ${formatMs(percentile(valid, 0.99))}`,
    "as-of (valid + system) p50 / p90 / p99": `${formatMs(percentile(system, 0.5))} / ${formatMs(percentile(system, 0.9))} / ${formatMs(percentile(system, 0.99))}`,
    "naive OR-query p50": naive.length > 0 ? formatMs(percentile(naiveSorted, 0.5)) : "n/a",
    "found when visible": `${found}/${visible}`,
  });
  verdicts.push(
    checkVerdict(
      `${side.name}: every hit is true at its as-of time, as known at its system time`,
      wrong === 0,
      `${wrong} wrong of ${QUERIES * 2} queries' hits`,
    ),
    checkVerdict(
      `${side.name}: the fact a goal was built from is found when visible`,
      found >= 0.95 * visible,
      `${found} of ${visible}`,
    ),
  );
  return {
    ingestRate,
    p50Valid: percentile(valid, 0.5),
    p50System: percentile(system, 0.5),
    naiveP50: naive.length > 0 ? percentile(naiveSorted, 0.5) : undefined,
  };
}

/** The same rows into a bare table, same batches: what SQLite itself costs. */
function bareInsertRate(dir: string, records: readonly BenchRecord[]): number {
  const db = new Database(join(dir, "bare.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(
    "CREATE TABLE facts (id INTEGER, version INTEGER, subject TEXT, predicate TEXT, statement TEXT, valid_from INTEGER, valid_to INTEGER, recorded_at INTEGER, superseded_at INTEGER, source TEXT, method TEXT, author TEXT, op TEXT, note TEXT, actor TEXT)",
  );
  const insert = db.prepare("INSERT INTO facts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const batch = db.transaction((rows: readonly BenchRecord[]) => {
    for (const r of rows)
      insert.run(
        r.id,
        r.version,
        r.subject,
        r.predicate,
        r.statement,
        r.validFrom,
        r.validTo,
        HISTORY_START,
        null,
        r.source,
        r.method,
        r.author,
        r.op,
        r.note,
        r.actor,
      );
  });
  const started = performance.now();
  for (let at = 0; at < records.length; at += BATCH) batch(records.slice(at, at + BATCH));
  const rate = records.length / ((performance.now() - started) / 1000);
  db.close();
  return rate;
}

/** Runs the fact store benchmark. */
export async function run(): Promise<BenchReport> {
  const dir = mkdtempSync(join(tmpdir(), "ocp-facts-bench-"));
  try {
    const records = generate(FACTS);
    const rows: BenchRow[] = [];
    const verdicts: Verdict[] = [];
    const notes: string[] = [];
    const bare = bareInsertRate(dir, records);
    let reader: Database.Database | undefined;
    const sqliteFile = join(dir, "facts.db");
    const sqlite = await measureSide(
      {
        name: "sqlite",
        open: (clock) => openFactStore({ db: sqliteFile, clock, cacheMb: 256 }),
        naive: (terms, validAt, limit) => {
          reader ??= new Database(sqliteFile, { readonly: true });
          const match = terms.map((term) => `"${term}"`).join(" OR ");
          return reader
            .prepare(`SELECT f.id FROM facts_text JOIN facts f ON f.rid = facts_text.rowid WHERE facts_text MATCH ?
              AND f.valid_from <= ? AND (f.valid_to IS NULL OR f.valid_to > ?) AND f.superseded_at IS NULL
              ORDER BY bm25(facts_text) LIMIT ?`)
            .all(match, validAt, validAt, limit);
        },
        dispose: async () => {
          reader?.close();
        },
      },
      records,
      rows,
      verdicts,
    );
    verdicts.push(
      ratioVerdict(
        `sqlite: ingest ≥ ${formatRate(INGEST_TARGET)}`,
        sqlite.ingestRate / INGEST_TARGET,
        1,
        `${formatRate(sqlite.ingestRate)}; bare-table insert of the same rows ${formatRate(bare)} (ours at ${formatRatio(sqlite.ingestRate / bare)} of it)`,
      ),
      ratioVerdict(
        `sqlite: as-of query p50 < ${P50_TARGET_MS} ms (valid time)`,
        P50_TARGET_MS / sqlite.p50Valid,
        1,
        `p50 ${formatMs(sqlite.p50Valid)}${sqlite.naiveP50 === undefined ? "" : `; naive OR-query p50 ${formatMs(sqlite.naiveP50)} (${formatRatio(sqlite.naiveP50 / sqlite.p50Valid)} slower)`}`,
      ),
      ratioVerdict(
        `sqlite: as-of query p50 < ${P50_TARGET_MS} ms (valid + system time)`,
        P50_TARGET_MS / sqlite.p50System,
        1,
        `p50 ${formatMs(sqlite.p50System)}`,
      ),
    );

    const tenth = records.slice(0, Math.max(1, Math.floor(records.length / 10)));
    const jsonl = join(dir, "import.jsonl");
    writeFileSync(
      jsonl,
      `${tenth.map((r) => JSON.stringify({ id: r.id, subject: r.subject, predicate: r.predicate, statement: r.statement, valid_from: new Date(r.validFrom).toISOString(), valid_to: r.validTo === null ? null : new Date(r.validTo).toISOString(), method: r.method })).join("\n")}\n`,
    );
    const target = await openFactStore({ db: join(dir, "import.db"), cacheMb: 256 });
    const began = performance.now();
    await importJsonl(target, jsonl, { batchSize: BATCH });
    const endToEnd = tenth.length / ((performance.now() - began) / 1000);
    await target.close();
    notes.push(
      `bare-table insert (SQLite, same rows and batches, no index/full-text/checks): ${formatRate(bare)}.`,
      `end-to-end \`importJsonl\` (check every line, then import) of ${tenth.length.toLocaleString("en-US")} JSONL lines into SQLite: ${formatRate(endToEnd)}.`,
      `history on top of the bulk load: ${CORRECTIONS} corrections and ${RETRACTIONS} retractions; queries: ${QUERIES} per mode, naive baseline on the first ${NAIVE_QUERIES}.`,
    );

    const url = process.env.OCP_PG_URL;
    if (url) {
      const schema = `ocp_facts_bench_${Date.now()}`;
      await measureSide(
        {
          name: "postgresql",
          open: (clock) => openFactStore({ pg: url, schema, clock } satisfies OpenFactStoreOptions),
          dispose: async () => {
            const client = new pg.Client({ connectionString: url });
            await client.connect();
            await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
            await client.end();
          },
        },
        records,
        rows,
        verdicts,
      );
    } else {
      notes.push("PostgreSQL skipped: set OCP_PG_URL=postgres://… to measure it beside SQLite.");
    }
    return { title: `facts: ${FACTS.toLocaleString("en-US")} facts, ingest and as-of queries`, rows, verdicts, notes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
