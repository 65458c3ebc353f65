/**
 * A provider whose one plugin answers every query with the two candidates of the
 * golden vector (full-stdio-session.ndjson), doing no search at all. The stdio
 * benchmark serves it with `ocp serve` to tell the framework's own per-query cost
 * apart from the docs example's search: same wire content as the bare loop, but
 * through the whole framework (envelope checks, fan-out, packing, exact counts,
 * digests, the strict writer).
 */
import { type Candidate, definePlugin, defineProvider } from "ocp-provider";

const CANDIDATES: readonly Candidate[] = [
  {
    id: "retry-doc",
    kind: "doc",
    title: "Retry policy",
    content:
      "Retry behavior is set in Config::retry. max_attempts bounds the tries; backoff_ms is the initial delay, doubled each attempt.",
    uri: "file:///repo/docs/retry.md",
    relevance: 0.92,
    range: { start: 1, end: 20 },
    citationLabel: "retry.md L1-20",
    provenance: [{ type: "file", method: "file-read" }],
  },
  {
    id: "retry-sym",
    kind: "symbol",
    title: "Config::retry",
    content: "pub struct RetryPolicy { pub max_attempts: u32, pub backoff_ms: u64 }",
    uri: "file:///repo/src/config.rs",
    relevance: 0.81,
    range: { start: 42, end: 44 },
    citationLabel: "config.rs L42-44",
    provenance: [{ type: "file", method: "tree-sitter-symbol-extraction" }],
  },
];

const canned = definePlugin({
  name: "canned",
  kinds: ["doc", "symbol"],
  // Fresh objects per query, as a real plugin's would be.
  search: () => CANDIDATES.map((candidate) => ({ ...candidate })),
});

/** The canned provider `ocp serve bench/canned-provider.ts` runs. */
export default defineProvider({
  name: "repo-graph",
  version: "0.2.0",
  dataFlow: { reads: true, writes: false, egress: false },
  plugins: [canned],
});
