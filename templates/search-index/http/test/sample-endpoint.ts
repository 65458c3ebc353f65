/**
 * A small stand-in for your search endpoint, on loopback: it answers `GET ?q=` with
 * Elasticsearch-shaped hits over data/sample-docs.json, scored by shared words. The
 * tests run the provider against it; your endpoint replaces it in production.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const docs = JSON.parse(readFileSync(new URL("../data/sample-docs.json", import.meta.url), "utf8")) as {
  title: string;
  body: string;
  url: string;
}[];

const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);

/** Starts the sample endpoint on a loopback port: `port`, or a free one. */
export async function startSampleEndpoint(port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const wanted = words(new URL(request.url ?? "/", "http://127.0.0.1").searchParams.get("q") ?? "");
    const hits = docs
      .map((doc, i) => {
        const have = words(`${doc.title} ${doc.body}`);
        return { _id: `doc-${i}`, _score: [...wanted].filter((word) => have.has(word)).length, _source: doc };
      })
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
