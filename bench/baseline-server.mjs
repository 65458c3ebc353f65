/**
 * The floor for the stdio benchmark: the least a stdio provider can do. A bare
 * readline loop that reads each envelope's type and answers with canned lines (the
 * ack and the two frames of the golden vector full-stdio-session.ndjson), with no
 * framework, no validation and no search. Plain JavaScript, so `node` runs it
 * directly and it pays nothing for a loader.
 */
import { createInterface } from "node:readline";

const ACK = JSON.stringify({
  type: "handshake_ack",
  protocol_version: "ocp/1.0-draft",
  provider: { name: "repo-graph", version: "0.2.0", data_flow: { reads: true, writes: false, egress: false } },
  capabilities: {
    query: { kinds: ["doc", "symbol"], filters: ["path", "lang"] },
    upsert: false,
    graph: true,
    embeddings_fingerprint: null,
    subscribe: false,
  },
});

const FRAMES = JSON.stringify({
  type: "frames",
  result: {
    frames: [
      {
        id: "repo-graph:retry-doc",
        kind: "doc",
        title: "Retry policy",
        content:
          "Retry behavior is set in Config::retry. max_attempts bounds the tries; backoff_ms is the initial delay, doubled each attempt.",
        uri: "file:///repo/docs/retry.md",
        score: 0.92,
        token_cost: 41,
        provenance: [
          {
            type: "file",
            uri: "file:///repo/docs/retry.md",
            range: "L1-20",
            digest: "sha256:9f2c3e7a",
            method: "file-read",
            by: "repo-graph",
          },
        ],
        citation_label: "retry.md L1-20",
        relations: [],
      },
      {
        id: "repo-graph:retry-sym",
        kind: "symbol",
        title: "Config::retry",
        content: "pub struct RetryPolicy { pub max_attempts: u32, pub backoff_ms: u64 }",
        uri: "file:///repo/src/config.rs",
        score: 0.81,
        token_cost: 23,
        provenance: [
          {
            type: "file",
            uri: "file:///repo/src/config.rs",
            range: "L42-44",
            digest: "sha256:1a2b3c4d",
            method: "tree-sitter-symbol-extraction",
            by: "repo-graph",
          },
        ],
        citation_label: "config.rs L42-44",
        relations: [],
      },
    ],
    truncated: false,
  },
});

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  // Parsing is the one thing any provider must do to know what it was asked.
  const { type } = JSON.parse(line);
  if (type === "handshake") process.stdout.write(`${ACK}\n`);
  else if (type === "query") process.stdout.write(`${FRAMES}\n`);
  else if (type === "shutdown") process.exit(0);
});
lines.on("close", () => process.exit(0));
