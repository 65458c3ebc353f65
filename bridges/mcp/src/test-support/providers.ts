/**
 * Test support (not shipped): providers for the bridge's tests, and an MCP client
 * connected to a bridge in-process (the SDK's in-memory transport pair).
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  type Candidate,
  definePlugin,
  defineProvider,
  type Provider,
  type ProviderOptions,
  silentLogger,
  UserError,
} from "ocp-provider";
import { createMcpBridge, type McpBridge, type McpBridgeOptions } from "../bridge.js";

interface Tiktoken {
  get_encoding(name: string): { encode_ordinary(text: string): Uint32Array };
}
const o200k = (createRequire(import.meta.url)("tiktoken") as Tiktoken).get_encoding("o200k_base");

/** The o200k_base count of `text` by tiktoken itself: independent of the framework's counter. */
export const referenceCount = (text: string): number => o200k.encode_ordinary(text).length;

/** A folder of text files on disk, and candidates cut from them. */
export interface Corpus {
  readonly root: string;
  /** Sections: each a run of lines of one file. */
  readonly candidates: Candidate[];
  remove(): void;
}

/**
 * Writes `files` files of `linesPerFile` lines under a fresh root, and cuts each into
 * sections of `sectionLines` lines (seeded: the same arguments give the same corpus).
 */
export function createCorpus(files = 6, linesPerFile = 60, sectionLines = 12, seed = 7): Corpus {
  const root = mkdtempSync(join(tmpdir(), "ocp-mcp-corpus-"));
  mkdirSync(join(root, "docs"));
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const words = ["budget", "token", "frame", "cite", "packer", "retry", "deploy", "index", "query", "cache"];
  const candidates: Candidate[] = [];
  for (let f = 0; f < files; f++) {
    const path = join(root, "docs", `file-${f}.md`);
    const lines = Array.from({ length: linesPerFile }, (_, i) => {
      const length = 3 + Math.floor(next() * 14);
      const text = Array.from({ length }, () => words[Math.floor(next() * words.length)]).join(" ");
      return i % sectionLines === 0 ? `## Section ${f}.${i / sectionLines}\n` : `${text}.\n`;
    });
    writeFileSync(path, lines.join(""));
    for (let start = 0; start < linesPerFile; start += sectionLines) {
      const end = Math.min(start + sectionLines, linesPerFile);
      candidates.push({
        content: lines.slice(start, end).join(""),
        relevance: Math.round(next() * 1000) / 1000,
        title: `Section ${f}.${start / sectionLines}`,
        uri: pathToFileURL(path).href,
        range: { start: start + 1, end },
      });
    }
  }
  return { root, candidates, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** A provider serving `candidates` (all of them, every query) from `root`. */
export function corpusProvider(
  corpus: Pick<Corpus, "root" | "candidates">,
  overrides: Partial<ProviderOptions> = {},
): Provider {
  return defineProvider({
    name: "corpus",
    version: "1.2.3",
    dataFlow: { reads: true, writes: false, egress: false },
    root: corpus.root,
    logger: silentLogger,
    plugins: [definePlugin({ name: "sections", kinds: ["doc"], search: () => corpus.candidates })],
    ...overrides,
  });
}

/**
 * A provider whose plugin misbehaves on cue: "throw" throws, "reject" rejects with a
 * non-Error, "refuse" throws a UserError, "hang" never answers (its plugin timeout is
 * 300 ms), "slow" answers after 1.5 s; any other goal gets one frame.
 */
export function troubledProvider(options: { pluginTimeoutMs?: number } = {}): Provider {
  return defineProvider({
    name: "troubled",
    version: "0.0.1",
    dataFlow: { reads: true, writes: false, egress: false },
    logger: silentLogger,
    pluginTimeoutMs: options.pluginTimeoutMs ?? 300,
    plugins: [
      definePlugin({
        name: "moody",
        kinds: ["memory"],
        search: ({ goal }) => {
          if (goal === "throw") throw new TypeError("cannot read properties of undefined");
          if (goal === "reject") return Promise.reject("a string, not an Error");
          if (goal === "refuse") throw new UserError("the index is still being built: retry in a minute");
          if (goal === "hang") return new Promise<never>(() => {});
          if (goal === "slow") return new Promise((done) => setTimeout(() => done([]), 1500));
          return [{ content: `You asked: ${goal}\n`, relevance: 1, title: "Echo" }];
        },
      }),
    ],
  });
}

/** A fact as {@link memoryFacts} holds it: change the array, and the provider answers differently. */
export interface MemoryFact {
  id: number;
  statement: string;
  /** Valid from this day on (ISO); always valid when absent. */
  validFrom?: string;
}

/**
 * A provider of `fact` frames over a live array of facts (`fact://mem/<id>`): a fact matches
 * a goal that shares a word with it, and one not yet valid at the query's `as_of` is left
 * out. Every query it receives is pushed onto `asked`.
 */
export function memoryFacts(facts: MemoryFact[], asked: Record<string, unknown>[] = []): Provider {
  return defineProvider({
    name: "memory-facts",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    logger: silentLogger,
    plugins: [
      definePlugin({
        name: "facts",
        kinds: ["fact"],
        queryExtensions: { as_known_at: { type: "string", description: "System time." } },
        search: (query) => {
          asked.push({ ...query });
          const words = new Set((query.query_text ?? query.goal).toLowerCase().match(/\w+/g));
          const at = query.as_of === undefined ? Date.now() : Date.parse(query.as_of);
          return facts
            .filter((fact) => fact.validFrom === undefined || Date.parse(fact.validFrom) <= at)
            .filter((fact) =>
              fact.statement
                .toLowerCase()
                .match(/\w+/g)
                ?.some((word) => words.has(word)),
            )
            .map((fact) => ({
              kind: "fact" as const,
              title: `fact ${fact.id}`,
              content: fact.statement,
              relevance: 1,
              uri: `fact://mem/${fact.id}`,
              citationLabel: `fact ${fact.id}`,
            }));
        },
      }),
    ],
  });
}

/** An MCP client connected in-process to a server of `bridge` (a new session of it). */
export async function connectBridge(bridge: McpBridge): Promise<{ client: Client; close(): Promise<void> }> {
  const server = bridge.createServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test-client", version: "0.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** An MCP client connected in-process to a bridge of `provider`. */
export function connectClient(
  provider: Provider,
  options: McpBridgeOptions = {},
): Promise<{ client: Client; close(): Promise<void> }> {
  return connectBridge(createMcpBridge(provider, options));
}
