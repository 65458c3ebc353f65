/**
 * What the misbehaving provider answers: a small fixed corpus, honest scoring,
 * costing and packing — and, per mode, exactly one way of breaking the contract.
 * Transport-free, so stdio and HTTP misbehave alike.
 */
import { createHash } from "node:crypto";
import { createTokenCounter, type TokenizerName } from "../tokens/counter.js";

/** Every `--misbehave` mode, each meant to fail specific checks; `clean` breaks nothing. */
export const MISBEHAVE_MODES = [
  "clean",
  "lying-costs",
  "under-reported-costs",
  "bad-score",
  "empty-citation",
  "bad-version",
  "crash-on-query",
  "crash-on-garbage",
  "wrong-kind",
  "too-many-frames",
  "stdout-noise",
  "hang-on-query",
  "no-exit-on-eof",
  "no-exit-on-shutdown",
  "unclean-exit-after-bad-input",
  "out-of-order",
  "reject-unknown-fields",
  "bad-json-500",
  "no-body-limit",
] as const;

/** One of {@link MISBEHAVE_MODES}. */
export type MisbehaveMode = (typeof MISBEHAVE_MODES)[number];

interface Doc {
  id: string;
  kind: "doc" | "symbol";
  title: string;
  content: string;
}

/** The corpus: enough overlap with the suite's default goals that every probe finds frames. */
const CORPUS: readonly Doc[] = [
  {
    id: "retry-policy",
    kind: "doc",
    title: "Retry policy",
    content:
      "Retry behavior is set in the configuration: max_attempts bounds the tries and backoff_ms is the initial delay, doubled each attempt. This is how it works: a failed call waits, then retries.\n",
  },
  {
    id: "error-handling",
    kind: "doc",
    title: "Error handling",
    content:
      "Every error is reported to the caller with a message it can show. Handling an error never crashes the service; the error is logged with its cause and the request is answered.\n",
  },
  {
    id: "configuration",
    kind: "doc",
    title: "Configuration options",
    content:
      "Configuration options live in config.toml: the listen address, the data directory, the log level and the retry policy. Unknown options are reported at startup.\n",
  },
  {
    id: "usage-example",
    kind: "doc",
    title: "Example usage",
    content:
      "An example: start the service with `svc run --config config.toml`, then ask it how it works with `svc query 'retry'`. Usage errors exit with code 2.\n",
  },
  {
    id: "retry-struct",
    kind: "symbol",
    title: "RetryPolicy",
    content: "pub struct RetryPolicy { pub max_attempts: u32, pub backoff_ms: u64 } // configuration of retries\n",
  },
  {
    id: "handle-error",
    kind: "symbol",
    title: "handle_error",
    content:
      'fn handle_error(error: &Error) -> Response { log::error!("{error}"); Response::error(error.message()) }\n',
  },
];

const KINDS = ["snippet", "symbol", "fact", "doc", "memory", "episode", "graph"];
const QUERY_FIELDS = new Set([
  "goal",
  "query_text",
  "embedding",
  "kinds",
  "anchors",
  "max_frames",
  "max_tokens",
  "as_of",
]);

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z_]{3,}/g) ?? []);

/** What the transport should do with a message. */
export type Action =
  | { do: "reply"; envelope: Record<string, unknown> }
  | { do: "nothing" }
  | { do: "hang" }
  | { do: "crash"; why: string }
  | { do: "exit"; code: number };

/** A session's state and mode. */
export interface Misbehaver {
  /** Handles one line of text (stdio) or one request body (HTTP). */
  handle(text: string): Action;
  /** The code to exit with when stdin ends. */
  exitCode(): number;
}

const error = (message: string): Action => ({ do: "reply", envelope: { type: "error", message } });

/** Options of {@link createMisbehaver}. */
export interface MisbehaverOptions {
  /** What honest costs are counted with; default o200k_base. */
  tokenizer?: TokenizerName;
  /** Answer queries without a prior handshake (HTTP without sessions). */
  stateless?: boolean;
  /** Declare `data_flow.egress: true`, for testing a host's consent gate. */
  egress?: boolean;
}

/** Creates the answering logic for one session. */
export function createMisbehaver(mode: MisbehaveMode, options: MisbehaverOptions = {}): Misbehaver {
  const counter = createTokenCounter({ tokenizer: options.tokenizer });
  let handshaken = options.stateless === true;
  // unclean-exit-after-bad-input: once a line was not JSON, every exit is code 1. Fresh, it
  // passes every check; on a process an earlier check fed garbage, eof-exit or shutdown-clean fails.
  let spoilt = false;
  const exitCode = () => (spoilt ? 1 : 0);

  function answer(query: Record<string, unknown>): Record<string, unknown> {
    const wanted = words(`${query.goal} ${typeof query.query_text === "string" ? query.query_text : ""}`);
    const kinds = query.kinds as string[];
    const maxTokens = query.max_tokens as number;
    const maxFrames = query.max_frames as number;
    const scored = CORPUS.filter((doc) => mode === "wrong-kind" || kinds.length === 0 || kinds.includes(doc.kind))
      .map((doc) => {
        const have = words(`${doc.title} ${doc.content}`);
        const hits = [...wanted].filter((word) => have.has(word)).length;
        return { doc, score: wanted.size === 0 ? 0 : hits / wanted.size };
      })
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || a.doc.id.localeCompare(b.doc.id));
    const frames: Record<string, unknown>[] = [];
    let spent = 0;
    for (const { doc, score } of scored) {
      const count = counter.count(doc.content);
      const cost = mode === "under-reported-costs" ? Math.floor(count / 2) : count;
      if (mode !== "too-many-frames" && frames.length >= maxFrames) break;
      if (mode !== "lying-costs" && spent + cost > maxTokens) continue;
      spent += cost;
      frames.push(frame(doc, mode === "bad-score" && frames.length === 0 ? score + 1 : score, cost));
    }
    return { frames, truncated: frames.length < scored.length };
  }

  function frame(doc: Doc, score: number, cost: number): Record<string, unknown> {
    const uri = `memory://misbehaving/${doc.id}`;
    const lines = doc.content.split("\n").length - 1;
    const digest = `sha256:${createHash("sha256").update(doc.content).digest("hex")}`;
    return {
      id: `misbehaving:${doc.id}`,
      kind: doc.kind,
      title: doc.title,
      content: doc.content,
      uri,
      score,
      token_cost: cost,
      provenance: [{ type: "file", uri, range: `L1-${lines}`, digest, method: "fixture", by: "misbehaving" }],
      // Whitespace passes the schema's minLength but is no label a person can cite (F3).
      citation_label: mode === "empty-citation" ? "  " : `${doc.id} L1-${lines}`,
      relations: [],
    };
  }

  function readQuery(query: unknown): string | Record<string, unknown> {
    if (typeof query !== "object" || query === null || Array.isArray(query)) return "query must be an object";
    const q = query as Record<string, unknown>;
    if (typeof q.goal !== "string" || q.goal === "") return "query.goal must be a non-empty string";
    for (const field of ["max_frames", "max_tokens"]) {
      const value = q[field];
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0) return `query.${field} must be a count`;
    }
    for (const field of ["kinds", "anchors"]) {
      if (q[field] !== undefined && q[field] !== null && !Array.isArray(q[field]))
        return `query.${field} must be a list`;
    }
    const kinds = (q.kinds ?? []) as unknown[];
    const unknownKind = kinds.find((kind) => typeof kind !== "string" || !KINDS.includes(kind));
    if (unknownKind !== undefined) return `unsupported frame kind: '${String(unknownKind)}'`;
    if (mode === "reject-unknown-fields") {
      const extra = Object.keys(q).find((key) => !QUERY_FIELDS.has(key));
      if (extra !== undefined) return `unknown field 'query.${extra}'`;
    }
    return { ...q, kinds, anchors: q.anchors ?? [] };
  }

  return {
    exitCode,
    handle(text) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        if (mode === "unclean-exit-after-bad-input") spoilt = true;
        if (mode === "crash-on-garbage") return { do: "crash", why: "crashed on a line that is not JSON" };
        return error("malformed JSON");
      }
      const type = (value as { type?: unknown } | null)?.type;
      const message = value as Record<string, unknown>;
      switch (type) {
        case "handshake": {
          const version = String(message.protocol_version);
          if (mode !== "bad-version" && !/^ocp\/1\.\d+(-draft)?$/.test(version)) {
            return error(`protocol version mismatch: host speaks ${version}, this provider speaks ocp/1.0-draft`);
          }
          handshaken = true;
          return {
            do: "reply",
            envelope: {
              type: "handshake_ack",
              protocol_version: mode === "bad-version" ? "ocp/2.0" : "ocp/1.0-draft",
              provider: {
                name: "misbehaving",
                version: `0.0.1-${mode}`,
                data_flow: { reads: true, writes: false, egress: options.egress === true },
              },
              capabilities: {
                query: { kinds: ["doc", "symbol"], filters: [] },
                upsert: false,
                graph: false,
                embeddings_fingerprint: null,
                subscribe: false,
              },
            },
          };
        }
        case "query": {
          if (!handshaken) return error("query before handshake");
          const query = readQuery(message.query);
          if (typeof query === "string") return error(`invalid query: ${query}`);
          if (mode === "crash-on-query") return { do: "crash", why: "crashed on a query" };
          if (mode === "hang-on-query") return { do: "hang" };
          return { do: "reply", envelope: { type: "frames", result: answer(query) } };
        }
        case "shutdown":
          return mode === "no-exit-on-shutdown" ? { do: "nothing" } : { do: "exit", code: exitCode() };
        default:
          return error(
            typeof type === "string" ? `unknown envelope type '${type.slice(0, 40)}'` : "envelope has no type",
          );
      }
    },
  };
}
