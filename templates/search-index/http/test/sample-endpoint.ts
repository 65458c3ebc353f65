/**
 * A small stand-in for your search endpoint, on loopback: it answers `GET ?q=` with
 * Elasticsearch-shaped hits over data/sample-docs.json, scored by BM25 over title and
 * body as Elasticsearch's default similarity does (k1 = 1.2, b = 0.75; every word, stop
 * words too, no stemming). The tests run the provider against it; your endpoint
 * replaces it in production.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One document the endpoint searches. */
export interface SampleDoc {
  title: string;
  body: string;
  url: string;
}

const sample = JSON.parse(readFileSync(new URL("../data/sample-docs.json", import.meta.url), "utf8")) as SampleDoc[];

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Starts the sample endpoint on a loopback port (`port`, or a free one), over data/sample-docs.json or the documents given. */
export async function startSampleEndpoint(
  port = 0,
  docs: readonly SampleDoc[] = sample,
): Promise<{ url: string; close(): Promise<void> }> {
  // Each document's word counts and length, and in how many documents each word occurs.
  const counted = docs.map((doc) => {
    const counts = new Map<string, number>();
    const all = wordsOf(`${doc.title} ${doc.body}`);
    for (const word of all) counts.set(word, (counts.get(word) ?? 0) + 1);
    return { counts, length: all.length };
  });
  const documentFrequency = new Map<string, number>();
  for (const { counts } of counted) {
    for (const word of counts.keys()) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
  }
  const averageLength = counted.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, counted.length);
  const bm25 = (wanted: Set<string>, { counts, length }: (typeof counted)[number]) => {
    let score = 0;
    for (const word of wanted) {
      const tf = counts.get(word) ?? 0;
      if (tf === 0) continue;
      const df = documentFrequency.get(word) ?? 0;
      const idf = Math.log(1 + (counted.length - df + 0.5) / (df + 0.5));
      score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * length) / averageLength));
    }
    return score;
  };

  const server = createServer((request, response) => {
    const wanted = new Set(wordsOf(new URL(request.url ?? "/", "http://127.0.0.1").searchParams.get("q") ?? ""));
    const hits = docs
      .map((doc, i) => ({
        _id: `doc-${i}`,
        _score: bm25(wanted, counted[i] as (typeof counted)[number]),
        _source: doc,
      }))
      .filter((hit) => hit._score > 0)
      .sort((a, b) => b._score - a._score);
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ hits: { total: { value: hits.length }, hits } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const { port: listening } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${listening}/docs/_search`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
