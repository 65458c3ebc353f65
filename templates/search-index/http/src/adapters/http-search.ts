/**
 * A plugin over an HTTP search endpoint that answers JSON hits (Elasticsearch,
 * OpenSearch, Typesense, Meilisearch, Algolia, your own service, ...): say how to ask
 * and where each field of a hit is, and each query becomes one bounded request.
 *
 * `egress` tells the truth about where queries go: true unless the endpoint is on this
 * machine (loopback). Put it in the provider's `dataFlow` so hosts ask for consent.
 *
 * The engine ranks; this adapter only holds its hits to the same floor as the other
 * adapters: a hit must hold 40% of the goal's words, and two at least, stop words aside,
 * and — unless it holds them all — words that are evidence of a subject, not only words
 * most of the hits hold (`minCoverage`, `holdsEnough` in ./hits.ts, {@link EVIDENCE_SAMPLE}),
 * so an off-topic goal gets no frames; a long hit ships its passage holding most of the
 * goal's words, cited by its lines in the hit (see ./hits.ts); and scores are in [0, 1]:
 * `y / (1 + y)` of `y = words held × the engine's score / words²`, as the lunr and FTS5
 * adapters do with their BM25 (without a score field, the share of words held over
 * `1 + rank`). An engine that matches by meaning (vectors, synonyms) returns hits that
 * need not share a word with the goal: set `minCoverage: 0` for it.
 * This file is yours: edit it freely.
 */
import { type Candidate, type ContextQuery, definePlugin, type FrameKind, type Plugin, UserError } from "ocp-provider";
import { bestPassage, goalText, holdsEnough, lineLabel, MAX_GOAL_WORDS, passageChars, wordEvidence } from "./hits.js";

/** One request to the endpoint. */
export interface HttpSearchRequest {
  url: string | URL;
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
}

/** Options of {@link httpSearch}. */
export interface HttpSearchOptions {
  /** The endpoint. By default it is asked `GET <url>?<param>=<text>`. */
  url: string | URL;
  /** The query parameter of the default GET request; default `q`. */
  param?: string;
  /** Builds the request yourself (a POST with a JSON body, say) from the query text (the part of it read: see `goalText`). */
  request?: (text: string, query: ContextQuery) => HttpSearchRequest;
  /** Headers sent with every request (an API key, say). */
  headers?: Record<string, string>;
  /** Where the hits are in the response: a dotted path (`hits.hits`); default the body itself if it is an array, else `hits`. */
  hits?: string;
  /** Where each field is in a hit, as dotted paths (`_source.body`). Only `content` is required. */
  fields: { content: string; title?: string; uri?: string; id?: string; score?: string };
  /** Bound on one request in milliseconds; default 5 000. */
  timeoutMs?: number;
  /** Largest response read, in bytes; default 8 MiB. */
  maxResponseBytes?: number;
  /** Plugin name (frame ids and provenance `method`); default `search-index`. */
  name?: string;
  /** Frame kind; default `doc`. */
  kind?: FrameKind;
  /** Most hits offered to the packer per query; default 50. */
  limit?: number;
  /**
   * The share of the goal's words (stop words aside) a hit's title and content must hold to
   * be offered, and two words at least, and evidence of a subject (./hits.ts) unless it holds
   * them all; 0 asks for nothing. Default 0.4 (two words of two to five).
   */
  minCoverage?: number;
}

/** A plugin over an HTTP search endpoint, with `egress`: whether its queries leave this machine. */
export type HttpSearchPlugin = Plugin & { readonly egress: boolean };

/** A plugin answering queries from an HTTP search endpoint (see the file comment). */
export function httpSearch(options: HttpSearchOptions): HttpSearchPlugin {
  const base = new URL(options.url);
  const egress = !isLoopback(base.hostname);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const limit = options.limit ?? 50;
  const maxBytes = options.maxResponseBytes ?? 8 * 1024 * 1024;
  const byScore = options.fields.score !== undefined;
  const minCoverage = options.minCoverage ?? 0.4;

  const plugin = definePlugin({
    name: options.name ?? "search-index",
    kinds: [options.kind ?? "doc"],
    async search(query, { signal }) {
      // The endpoint is sent what is read of the goal too: a pasted file makes no URL of a megabyte.
      const text = goalText(query.query_text ?? query.goal);
      const words = goalWords(text);
      // A goal of stop words alone asks about nothing; with no floor, the engine decides.
      if (words.length === 0 && minCoverage > 0) return [];
      const request = options.request?.(text, query) ?? defaultRequest(base, options.param ?? "q", text);
      const url = new URL(request.url, base);
      const where = url.host;
      let response: Response;
      try {
        response = await fetch(url, {
          method: request.method ?? (request.body === undefined ? "GET" : "POST"),
          headers: {
            accept: "application/json",
            ...(request.body === undefined ? {} : { "content-type": "application/json" }),
            ...options.headers,
            ...request.headers,
          },
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
          // A local endpoint must not be able to bounce the query to another host.
          redirect: egress ? "follow" : "error",
        });
      } catch (error) {
        if (signal.aborted) throw error;
        if ((error as Error).name === "TimeoutError") {
          throw new UserError(`the search endpoint at ${where} did not answer within ${timeoutMs} ms`);
        }
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        throw new UserError(`could not reach the search endpoint at ${where}${cause ? ` (${cause})` : ""}`);
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new UserError(`the search endpoint at ${where} answered HTTP ${response.status}`);
      }
      const body = parseJson(await readCapped(response, maxBytes, where), where);
      const hitsPath = options.hits ?? (Array.isArray(body) ? "" : "hits");
      const hits = hitsPath === "" ? body : pick(body, hitsPath);
      if (!Array.isArray(hits)) {
        throw new UserError(`the search endpoint at ${where} answered JSON without an array of hits at '${hitsPath}'`);
      }
      // The endpoint does not say how many of its documents hold each word: the hits it
      // answered stand in for its index when there are enough of them to count (see
      // EVIDENCE_SAMPLE); with fewer, a hit is held to the count of words only.
      const read = hits.map((hit) => {
        const content = asText(pick(hit, options.fields.content));
        if (content === undefined || content.trim() === "") return undefined;
        const title = asText(pick(hit, options.fields.title));
        return { hit, content, title, held: wordsHeld(words, `${title ?? ""}\n${content}`) };
      });
      const texts = read.filter((entry) => entry !== undefined);
      const evidence =
        texts.length < EVIDENCE_SAMPLE
          ? words.map(() => Number.POSITIVE_INFINITY)
          : words.map((_, i) => wordEvidence(texts.filter((entry) => entry.held[i]).length, texts.length));
      const candidates: Candidate[] = [];
      let belowFloor = 0;
      read.forEach((entry, rank) => {
        if (entry === undefined || candidates.length === limit) return;
        const { hit, content, title, held } = entry;
        if (!holdsEnough(held, evidence, minCoverage)) {
          belowFloor++;
          return;
        }
        const uri = asText(pick(hit, options.fields.uri));
        const id = asText(pick(hit, options.fields.id));
        const score = Number(pick(hit, options.fields.score));
        const count = held.filter(Boolean).length;
        const passage = bestPassage(content, words, passageChars(query.max_tokens, query.max_frames));
        const label = uri ?? title;
        candidates.push({
          id: id ?? uri,
          content: passage.text,
          relevance: byScore
            ? relevance(count, words.length, Number.isFinite(score) && score > 0 ? score : 0)
            : (words.length === 0 ? 1 : count / words.length) / (1 + rank),
          title,
          // A passage of a long hit is cited by its lines in the hit's text.
          citationLabel: passage.whole || label === undefined ? label : `${label} ${lineLabel(passage.lines)}`,
          uri,
          range: passage.lines,
          provenance: [{ type: "search-index", uri }],
        });
      });
      // The engine's score weighed by the share of the goal's words held; ties keep its order (sort is stable).
      candidates.sort((a, b) => b.relevance - a.relevance);
      return { candidates, omitted: Math.max(0, hits.length - candidates.length - belowFloor) };
    },
  });
  return Object.freeze({ ...plugin, egress });
}

/**
 * The fewest hits an endpoint must answer for them to stand in for its index when
 * weighing the evidence of a goal's words (hits.ts): among a handful of hits, any word
 * two of them hold looks common. An endpoint answering ten hits a page (Elasticsearch's
 * default) is asked for more with `request` (`size=50`) to be held to it.
 */
const EVIDENCE_SAMPLE = 20;

/**
 * The part of a score that is the share of the goal's words held alone: a real hit never
 * shows as 0.00, even where the engine weighs its words about 0 (FTS5 does for words in
 * more than half of the rows), and hits weighed alike keep the engine's order.
 */
const MIN_SHARE = 0.05;

/**
 * A score in [0, 1] comparable with the other adapters': `y / (1 + y)` with
 * `y = held × score / words²` (the engine's score, BM25 for most), plus `MIN_SHARE` ×
 * the share of words held. A goal of stop words alone (allowed only with `minCoverage: 0`)
 * leaves the engine's score as it is.
 */
function relevance(held: number, words: number, score: number): number {
  const y = words === 0 ? score : (held * score) / (words * words);
  return (words === 0 ? 0 : (MIN_SHARE * held) / words) + (1 - MIN_SHARE) * (y / (1 + y));
}

/**
 * Words that say how a goal is asked, not what it is about: a hit holding "how" and
 * "are" is no answer to "how are token costs counted".
 */
const STOP = new Set(
  `a about after all also am an and any are as at be been but by can could did do does doing each every find for
  from get gets got had has have help how i if in into is it its just let like many may me might more most much my
  need no not of on one only or other our please should show so some such tell than that the their them then there
  these they thing things this those to too us use using very via want was way we were what when where whether
  which while who whom why will with would you your`.split(/\s+/),
);

/** Folds the common English endings, so "counted", "counts" and "counting" meet "count". */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2);
  if (word.length > 4 && /(ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** A goal's distinct words, stemmed, stop words and single letters (the s of "today's") dropped; the first {@link MAX_GOAL_WORDS}. */
export function goalWords(text: string): string[] {
  const words = new Set<string>();
  for (const [word] of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    if (STOP.has(word) || (word.length < 2 && !/\d/.test(word))) continue;
    words.add(stem(word));
    if (words.size === MAX_GOAL_WORDS) break;
  }
  return [...words];
}

/** Which of the goal's words a text holds: the same stem, or for words of five letters or more, a prefix. */
function wordsHeld(words: readonly string[], text: string): boolean[] {
  const have = new Set(wordsOf(text).map(stem));
  const list = [...have];
  return words.map((word) => have.has(word) || (word.length >= 5 && list.some((h) => h.startsWith(word))));
}

function defaultRequest(base: URL, param: string, text: string): HttpSearchRequest {
  const url = new URL(base);
  url.searchParams.set(param, text);
  return { url };
}

/** True for a host name only this machine can reach. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

async function readCapped(response: Response, maxBytes: number, where: string): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new UserError(`the search endpoint at ${where} answered more than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UserError(`the search endpoint at ${where} answered something that is not JSON`);
  }
}

/** The value at a dotted path (`_source.body`, `items.0.title`), or undefined. */
export function pick(value: unknown, path: string | undefined): unknown {
  if (path === undefined) return undefined;
  let current = value;
  for (const key of path.split(".")) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  // Highlighters often answer a list of fragments.
  if (Array.isArray(value) && value.every((part) => typeof part === "string")) return value.join("\n");
  return undefined;
}
