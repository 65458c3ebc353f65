import { describe, expect, it } from "vitest";
import { assertReferenceValid } from "../../../test/test-support/reference-schema.js";
import { createTokenCounter } from "../tokens/counter.js";
import type { ContextQuery } from "../wire/schemas.js";
import { ERROR_CODES, OcpError, UserError } from "./errors.js";
import { contentDigest } from "./frames.js";
import type { Logger } from "./logger.js";
import { type Candidate, definePlugin, type PluginDefinition } from "./plugin.js";
import { defineProvider, type ProviderOptions, type QueryTrace } from "./provider.js";

/** A logger that keeps every line, so tests can check what reached "stderr". */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
  return { lines, error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") };
}

const query = (overrides: Partial<ContextQuery> = {}): ContextQuery => ({
  goal: "find things",
  kinds: [],
  anchors: [],
  max_frames: 10,
  max_tokens: 1000,
  ...overrides,
});

function staticPlugin(name: string, candidates: Candidate[], extra: Partial<PluginDefinition> = {}) {
  return definePlugin({ name, kinds: ["snippet"], search: () => candidates, ...extra });
}

function provider(plugins: ProviderOptions["plugins"], extra: Partial<ProviderOptions> = {}) {
  const logger = recordingLogger();
  const built = defineProvider({
    name: "test-provider",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    plugins,
    logger,
    root: "/repo",
    ...extra,
  });
  return { provider: built, logger };
}

describe("query tracing", () => {
  it("fills the trace with the search, packing and framing time, within the query's own time", async () => {
    const { provider: p } = provider([staticPlugin("a", [{ content: "x y z", relevance: 1 }])]);
    const trace: QueryTrace = {};
    const started = performance.now();
    await p.query(query(), { trace });
    const elapsed = performance.now() - started;
    for (const part of [trace.searchMs, trace.packMs, trace.framesMs]) {
      expect(part).toBeGreaterThanOrEqual(0);
    }
    expect((trace.searchMs ?? 0) + (trace.packMs ?? 0) + (trace.framesMs ?? 0)).toBeLessThanOrEqual(elapsed);
  });
});

describe("definePlugin", () => {
  it("rejects bad definitions at registration with a coded error", () => {
    const search = () => [];
    const cases: [unknown, string][] = [
      [{ name: "", kinds: ["doc"], search }, "name"],
      [{ name: "a b", kinds: ["doc"], search }, "name"],
      [{ name: "p", kinds: [], search }, "kinds"],
      [{ name: "p", kinds: ["image"], search }, "unknown frame kind 'image'"],
      [{ name: "p", kinds: ["doc"] }, "search"],
      [{ name: "p", kinds: ["doc"], search, scores: "log" }, "scores"],
      [{ name: "p", kinds: ["doc"], search, timeoutMs: 0 }, "timeoutMs"],
      [{ name: "p", kinds: ["doc"], search, core: "not a range" }, "semver"],
    ];
    for (const [definition, message] of cases) {
      const error = (() => {
        try {
          definePlugin(definition as PluginDefinition);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error, JSON.stringify(definition)).toBeInstanceOf(OcpError);
      expect((error as OcpError).code).toBe(ERROR_CODES.PLUGIN_INVALID);
      expect((error as OcpError).message).toContain(message);
    }
  });

  it("refuses a plugin whose core range this version is not in", () => {
    expect(() => definePlugin({ name: "p", kinds: ["doc"], search: () => [], core: ">=99" })).toThrow(
      expect.objectContaining({ code: ERROR_CODES.PLUGIN_CORE_RANGE }),
    );
    expect(() => definePlugin({ name: "p", kinds: ["doc"], search: () => [], core: ">=0.0.1" })).not.toThrow();
  });
});

describe("defineProvider", () => {
  it("refuses unusable configurations with a coded error", () => {
    const plugin = staticPlugin("a", []);
    const base = {
      name: "n",
      version: "1",
      dataFlow: { reads: true, writes: false, egress: false },
      plugins: [plugin],
    };
    const bad: [Partial<ProviderOptions>, string][] = [
      [{ name: "" }, ERROR_CODES.PROVIDER_CONFIG],
      [{ version: " " }, ERROR_CODES.PROVIDER_CONFIG],
      [{ dataFlow: { reads: true, writes: false } as never }, ERROR_CODES.PROVIDER_CONFIG],
      [{ plugins: [] }, ERROR_CODES.PROVIDER_CONFIG],
      [{ plugins: [{ name: "raw", kinds: ["doc"], search: () => [] } as never] }, ERROR_CODES.PROVIDER_CONFIG],
      [{ plugins: [plugin, staticPlugin("a", [])] }, ERROR_CODES.PLUGIN_DUPLICATE],
      [{ tokenizer: "p50k" as never }, ERROR_CODES.PROVIDER_CONFIG],
      [{ plugins: [staticPlugin("remote", [], { egress: true })] }, ERROR_CODES.PROVIDER_CONFIG],
    ];
    for (const [override, code] of bad) {
      expect(() => defineProvider({ ...base, ...override }), JSON.stringify(override)).toThrow(
        expect.objectContaining({ code }),
      );
    }
  });

  it("accepts an egress plugin in a provider that declares egress", () => {
    const { provider: p } = provider([staticPlugin("remote", [], { egress: true })], {
      dataFlow: { reads: true, writes: false, egress: true },
    });
    expect(p.info.data_flow.egress).toBe(true);
  });

  it("advertises the union of its plugins' kinds, filters and graph support", () => {
    const { provider: p } = provider([
      definePlugin({ name: "a", kinds: ["symbol", "snippet"], filters: ["path"], search: () => [] }),
      definePlugin({ name: "b", kinds: ["fact"], filters: ["path", "lang"], graph: true, search: () => [] }),
    ]);
    expect(p.capabilities).toEqual({
      query: { kinds: ["snippet", "symbol", "fact"], filters: ["path", "lang"] },
      upsert: false,
      graph: true,
      embeddings_fingerprint: null,
      subscribe: false,
    });
  });

  it("exposes its root and the query extensions its plugins declare, checked at definition", () => {
    const asKnownAt = { type: "string", description: "System time." } as const;
    const { provider: p } = provider([
      staticPlugin("a", [], { queryExtensions: { as_known_at: asKnownAt } }),
      staticPlugin("b", [], {
        queryExtensions: { as_known_at: asKnownAt, depth: { type: "integer", description: "d" } },
      }),
    ]);
    expect(p.root).toBe("/repo");
    expect(p.queryExtensions).toEqual({ as_known_at: asKnownAt, depth: { type: "integer", description: "d" } });
    expect(provider([staticPlugin("a", [])]).provider.queryExtensions).toEqual({});

    const invalid = (queryExtensions: unknown) => () =>
      staticPlugin("x", [], { queryExtensions: queryExtensions as PluginDefinition["queryExtensions"] });
    expect(invalid({ max_tokens: asKnownAt })).toThrow(/field of the protocol's query already/);
    expect(invalid({ "As-Known": asKnownAt })).toThrow(/lower-case wire name/);
    expect(invalid({ depth: { type: "date", description: "d" } })).toThrow(/needs a type/);
    expect(invalid({ depth: { type: "string", description: " " } })).toThrow(/needs a description/);
    expect(invalid({ depth: { type: "string" } })).toThrow(
      expect.objectContaining({ code: ERROR_CODES.PLUGIN_INVALID }),
    );
    expect(() =>
      provider([
        staticPlugin("a", [], { queryExtensions: { depth: { type: "string", description: "d" } } }),
        staticPlugin("b", [], { queryExtensions: { depth: { type: "integer", description: "d" } } }),
      ]),
    ).toThrow(
      expect.objectContaining({ code: ERROR_CODES.PROVIDER_CONFIG, message: expect.stringMatching(/different types/) }),
    );
  });
});

describe("provider.query", () => {
  it("turns candidates into valid frames: exact cost, derived citation, digest of the exact content", async () => {
    const content = "export function retry() {\n  return 3;\n}\n";
    const { provider: p } = provider([
      staticPlugin("code", [
        { content, relevance: 0.8, uri: "file:///repo/src/config.ts", range: { start: 42, end: 44 } },
        { content: "loose note", relevance: 0.5 },
      ]),
    ]);
    const result = await p.query(query());
    assertReferenceValid({ type: "frames", result });
    const [first, second] = result.frames;
    expect(first).toMatchObject({
      id: "code:file:///repo/src/config.ts#L42-44",
      kind: "snippet",
      title: "src/config.ts L42-44",
      citation_label: "src/config.ts L42-44",
      score: 0.8,
      token_cost: createTokenCounter().count(content),
      provenance: [
        { type: "file", uri: "file:///repo/src/config.ts", range: "L42-44", method: "code", by: "test-provider" },
      ],
    });
    expect(first?.provenance[0]?.digest).toBe(
      `sha256:${(await import("node:crypto")).createHash("sha256").update(content).digest("hex")}`,
    );
    expect(second?.title).toBe("loose note");
    expect(second?.citation_label).toBe("loose note");
    expect(result.truncated).toBe(false);
  });

  it("maps relevance by the plugin's declared scale and drops NaN or negative relevance with a warning", async () => {
    const { provider: p, logger } = provider([
      staticPlugin("unit", [
        { id: "hi", content: "a", relevance: 7 },
        { id: "nan", content: "b", relevance: Number.NaN },
        { id: "neg", content: "c", relevance: -0.1 },
        { id: "ok", content: "d", relevance: 0.25 },
      ]),
      staticPlugin("bm25", [{ id: "x", content: "e", relevance: 3 }], { scores: "unbounded" }),
    ]);
    const result = await p.query(query());
    const scores = Object.fromEntries(result.frames.map((frame) => [frame.id, frame.score]));
    expect(scores).toEqual({ "unit:hi": 1, "unit:ok": 0.25, "bm25:x": 0.75 });
    expect(logger.lines.join("\n")).toMatch(/plugin 'unit'.*rejected: relevance is NaN/);
    expect(logger.lines.join("\n")).toMatch(/plugin 'unit'.*rejected: .*negative/);
    expect(logger.lines.join("\n")).toMatch(/plugin 'unit'.*clamped/);
  });

  it("isolates failures: a throwing, a hanging and a junk-returning plugin lose only their own frames", async () => {
    const { provider: p, logger } = provider(
      [
        staticPlugin("good", [{ id: "1", content: "kept", relevance: 0.9 }]),
        definePlugin({ name: "thrower", kinds: ["snippet"], search: () => Promise.reject(new Error("disk on fire")) }),
        definePlugin({ name: "hanger", kinds: ["snippet"], search: () => new Promise(() => {}) }),
        definePlugin({ name: "junk", kinds: ["snippet"], search: () => "not a list" as never }),
        definePlugin({
          name: "sync-thrower",
          kinds: ["snippet"],
          search: () => {
            throw new Error("sync fire");
          },
        }),
        // A candidate that throws when read, from a search that answers at once and from one that awaits.
        definePlugin({ name: "trap", kinds: ["snippet"], search: () => [trapCandidate()] }),
        definePlugin({ name: "async-trap", kinds: ["snippet"], search: async () => [trapCandidate()] }),
      ],
      { pluginTimeoutMs: 100 },
    );
    const result = await p.query(query());
    expect(result.frames.map((frame) => frame.id)).toEqual(["good:1"]);
    const stderr = logger.lines.join("\n");
    expect(stderr).toMatch(/plugin 'sync-thrower': OCP_ERR_PLUGIN_FAILED: .*sync fire/);
    expect(stderr).toMatch(/plugin 'trap': OCP_ERR_PLUGIN_FAILED: .*trapped/);
    expect(stderr).toMatch(/plugin 'async-trap': OCP_ERR_PLUGIN_FAILED: .*trapped/);
    expect(stderr).toMatch(/plugin 'thrower': OCP_ERR_PLUGIN_FAILED: .*disk on fire/);
    expect(stderr).toMatch(/plugin 'hanger': OCP_ERR_PLUGIN_TIMEOUT: search timed out after 100 ms/);
    expect(stderr).toMatch(/plugin 'junk': OCP_ERR_PLUGIN_FAILED/);
  });

  it("aborts a timed-out plugin's signal", async () => {
    let seen: AbortSignal | undefined;
    const { provider: p } = provider(
      [
        definePlugin({
          name: "slow",
          kinds: ["snippet"],
          search: (_, ctx) => {
            seen = ctx.signal;
            return new Promise(() => {});
          },
        }),
        staticPlugin("fast", [{ content: "x", relevance: 1 }]),
      ],
      { pluginTimeoutMs: 50 },
    );
    await p.query(query());
    expect(seen?.aborted).toBe(true);
  });

  it("times out each plugin at its own deadline, the shorter first", async () => {
    const seen: Record<string, AbortSignal> = {};
    const hang = (name: string, timeoutMs: number) =>
      definePlugin({
        name,
        kinds: ["snippet"],
        timeoutMs,
        search: (_, ctx) => {
          seen[name] = ctx.signal;
          return new Promise(() => {});
        },
      });
    const { provider: p, logger } = provider([hang("long", 400), hang("short", 40)]);
    const answered = p.query(query()).catch(() => undefined);
    await new Promise((done) => setTimeout(done, 200));
    expect(seen.short?.aborted).toBe(true);
    expect(seen.long?.aborted).toBe(false);
    await answered;
    expect(seen.long?.aborted).toBe(true);
    expect(logger.lines.join("\n")).toMatch(/plugin 'short'.*timed out after 40 ms/);
    expect(logger.lines.join("\n")).toMatch(/plugin 'long'.*timed out after 400 ms/);
  });

  it("aborts the plugins of a query whose signal fires, also when they read ctx.signal late", async () => {
    const outer = new AbortController();
    let late: AbortSignal | undefined;
    let early: AbortSignal | undefined;
    const { provider: p } = provider([
      definePlugin({
        name: "early",
        kinds: ["snippet"],
        search: (_, ctx) => {
          early = ctx.signal;
          return new Promise(() => {});
        },
      }),
      definePlugin({
        name: "late",
        kinds: ["snippet"],
        search: (_, ctx) =>
          new Promise((resolve) =>
            setTimeout(() => {
              late = ctx.signal;
              resolve([]);
            }, 50),
          ),
      }),
    ]);
    const answered = p.query(query(), { signal: outer.signal }).catch((error: unknown) => error);
    setTimeout(() => outer.abort(new Error("host went away")), 10);
    const started = Date.now();
    expect(await answered).toBeInstanceOf(UserError);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(early?.aborted).toBe(true);
    await new Promise((done) => setTimeout(done, 80));
    expect(late?.aborted).toBe(true);
    expect(late?.reason).toEqual(new Error("host went away"));
  });

  it("gives search a plain-looking context: signal, deadline, log and checkpoint survive a spread", async () => {
    let keys: string[] = [];
    let copied: { signal?: unknown; deadline?: unknown; checkpoint?: unknown } = {};
    const { provider: p } = provider([
      definePlugin({
        name: "a",
        kinds: ["snippet"],
        search: (_, ctx) => {
          keys = Object.keys(ctx);
          copied = { ...ctx };
          return [];
        },
      }),
    ]);
    const before = Date.now();
    await p.query(query());
    expect(keys).toEqual(["signal", "deadline", "log", "checkpoint"]);
    expect(copied.signal).toBeInstanceOf(AbortSignal);
    expect(copied.checkpoint).toBeInstanceOf(Function);
    expect(copied.deadline).toBeGreaterThanOrEqual(before + 10_000);
  });

  it("answers at once when the query's signal is already aborted", async () => {
    let asked = false;
    const { provider: p } = provider([
      definePlugin({
        name: "a",
        kinds: ["snippet"],
        search: () => {
          asked = true;
          return [];
        },
      }),
    ]);
    await expect(p.query(query(), { signal: AbortSignal.abort(new Error("gone")) })).rejects.toThrow(UserError);
    expect(asked).toBe(false);
  });

  it("answers with the plugin's UserError message when every plugin fails, and a generic one otherwise", async () => {
    const user = provider([
      definePlugin({
        name: "a",
        kinds: ["doc"],
        search: () => Promise.reject(new UserError("index is still building")),
      }),
    ]).provider;
    await expect(user.query(query())).rejects.toThrow("index is still building");
    const generic = provider([
      definePlugin({ name: "a", kinds: ["doc"], search: () => Promise.reject(new Error("secret path /etc/x")) }),
    ]).provider;
    const error = await generic.query(query()).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).not.toContain("secret");
  });

  it("only asks plugins that serve a requested kind, and never ships other kinds", async () => {
    let asked = 0;
    const { provider: p } = provider([
      definePlugin({ name: "docs", kinds: ["doc"], search: () => [{ content: "d", relevance: 1 }] }),
      definePlugin({
        name: "facts",
        kinds: ["fact"],
        search: () => {
          asked++;
          return [{ content: "f", relevance: 1 }];
        },
      }),
    ]);
    const result = await p.query(query({ kinds: ["doc"] }));
    expect(result.frames.map((frame) => frame.kind)).toEqual(["doc"]);
    expect(asked).toBe(0);
  });

  it("rejects a candidate of a kind its plugin did not declare", async () => {
    const { provider: p, logger } = provider([staticPlugin("s", [{ content: "x", relevance: 1, kind: "fact" }])]);
    expect((await p.query(query())).frames).toEqual([]);
    expect(logger.lines.join("\n")).toContain("kind 'fact' is not one the plugin declared");
  });

  it("cuts a candidate that does not fit and adjusts range, citation and digest to what ships", async () => {
    const lines = Array.from(
      { length: 200 },
      (_, i) => `const value${i} = compute(${i}, "some words to cost tokens");\n`,
    );
    const content = lines.join("");
    const { provider: p } = provider([
      staticPlugin("code", [
        {
          content,
          relevance: 0.9,
          uri: "file:///repo/src/big.ts",
          range: { start: 10, end: 209 },
          citationLabel: "big.ts L10-209",
        },
      ]),
    ]);
    const result = await p.query(query({ max_tokens: 120 }));
    const [frame] = result.frames;
    expect(frame).toBeDefined();
    if (frame === undefined) return;
    const kept = frame.content.split("\n").length - 1;
    expect(kept).toBeGreaterThan(0);
    expect(frame.content).toBe(lines.slice(0, kept).join(""));
    expect(frame.token_cost).toBeLessThanOrEqual(120);
    expect(frame.token_cost).toBe(createTokenCounter().count(frame.content));
    expect(frame.citation_label).toBe(`big.ts L10-${9 + kept}`);
    expect(frame.provenance[0]?.range).toBe(`L10-${9 + kept}`);
    expect(frame.provenance[0]?.digest).toBe(contentDigest(frame.content));
    expect(result.truncated).toBe(true);
  });

  it("reports the matches a plugin left out as truncated with an honest estimate", async () => {
    const { provider: p } = provider([
      definePlugin({
        name: "capped",
        kinds: ["snippet"],
        search: () => ({ candidates: [{ content: "a", relevance: 1 }], omitted: 41 }),
      }),
    ]);
    const result = await p.query(query());
    expect(result).toMatchObject({ truncated: true, dropped_estimate: 41 });
  });

  it("reports a plugin that could not search all it serves as truncated, without a made-up estimate, and says why", async () => {
    const partial = (omitted: number, incomplete: unknown) =>
      definePlugin({
        name: "building",
        kinds: ["snippet"],
        search: () => ({ candidates: [{ content: "a", relevance: 1 }], omitted, incomplete: incomplete as string }),
      });
    const { provider: p } = provider([partial(0, "the index is still\nbeing built (3 of 9 files)  ")]);
    const notes: string[] = [];
    const result = await p.query(query(), { incomplete: notes });
    // Nothing was left out for the budget: how much the unsearched part holds is unknown, so no estimate.
    expect(result.truncated).toBe(true);
    expect(result.dropped_estimate).toBeUndefined();
    expect(notes).toEqual(["building: the index is still being built (3 of 9 files)"]);
    // On the wire it is an ordinary truncated result, valid without the estimate.
    await p.handle({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    const wire = await p.handle({ type: "query", query: query() });
    expect(wire).toEqual({ type: "frames", result: { frames: [expect.any(Object)], truncated: true } });

    // Known omissions still count; a note that is not a non-empty string is no note.
    const { provider: q } = provider([partial(4, "the index is still being built")]);
    expect(await q.query(query())).toMatchObject({ truncated: true, dropped_estimate: 4 });
    for (const junk of [42, "   "]) {
      const { provider: r, logger } = provider([partial(0, junk)]);
      const ignored: string[] = [];
      expect(await r.query(query(), { incomplete: ignored })).toMatchObject({ truncated: false });
      expect(ignored).toEqual([]);
      expect(logger.lines.some((line) => line.includes("`incomplete` that is not a string"))).toBe(junk === 42);
    }
  });

  it("disables a plugin whose setup fails, and serves the others", async () => {
    const { provider: p, logger } = provider(
      [
        staticPlugin("broken", [{ content: "never", relevance: 1 }], {
          setup: () => Promise.reject(new Error("no index")),
        }),
        staticPlugin("slow-setup", [{ content: "never either", relevance: 1 }], { setup: () => new Promise(() => {}) }),
        staticPlugin("fine", [{ content: "yes", relevance: 1 }]),
      ],
      { setupTimeoutMs: 100 },
    );
    const result = await p.query(query());
    expect(result.frames.map((frame) => frame.content)).toEqual(["yes"]);
    expect(logger.lines.join("\n")).toMatch(/plugin 'broken': OCP_ERR_PLUGIN_SETUP: .*no index/);
    expect(logger.lines.join("\n")).toMatch(/plugin 'slow-setup': OCP_ERR_PLUGIN_SETUP/);
  });

  it("reads queries tolerantly and names what is wrong with a bad one", async () => {
    const { provider: p } = provider([staticPlugin("a", [{ content: "x", relevance: 1 }])]);
    const tolerant = await p.query({
      goal: "g",
      max_frames: 1,
      max_tokens: 10,
      kinds: null,
      query_text: null,
      extra: 1,
    });
    expect(tolerant.frames).toHaveLength(1);
    await expect(p.query({ goal: "g", max_frames: 1 })).rejects.toThrow(/max_tokens/);
    await expect(p.query({ goal: "g", max_frames: 1, max_tokens: 5, kinds: ["image"] })).rejects.toThrow(
      "unsupported frame kind: 'image'",
    );
  });

  it("passes fields beyond the protocol's to plugins, under the checked ones", async () => {
    let seen: Record<string, unknown> | undefined;
    const { provider: p } = provider([
      definePlugin({
        name: "ext",
        kinds: ["fact"],
        search: (q) => {
          seen = q as unknown as Record<string, unknown>;
          return [];
        },
      }),
    ]);
    await p.handle({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    await p.handle({
      type: "query",
      query: { goal: "g", max_frames: 1, max_tokens: 5, as_known_at: "2024-01-01T00:00:00Z", query_text: null },
    });
    expect(seen).toMatchObject({ goal: "g", kinds: [], anchors: [], as_known_at: "2024-01-01T00:00:00Z" });
    expect(seen?.query_text).toBeUndefined();
  });

  it("converts Date temporal fields to RFC 3339 and passes relations with display names", async () => {
    const { provider: p } = provider([
      definePlugin({
        name: "facts",
        kinds: ["fact"],
        graph: true,
        search: () => [
          {
            content: "Alice leads the team",
            relevance: 1,
            title: "alice · leads",
            citationLabel: "fact 1",
            validFrom: new Date("2024-01-01T00:00:00Z"),
            recordedAt: "2024-01-02T00:00:00Z",
            relations: [{ rel: "about", targetUri: "fact://people/alice", displayName: "Alice" }],
          },
        ],
      }),
    ]);
    const [frame] = (await p.query(query())).frames;
    expect(frame).toMatchObject({
      valid_from: "2024-01-01T00:00:00.000Z",
      recorded_at: "2024-01-02T00:00:00Z",
      relations: [{ rel: "about", target_uri: "fact://people/alice", display_name: "Alice" }],
      provenance: [{ type: "derivation", method: "facts", by: "test-provider" }],
    });
  });
});

/** A candidate whose content throws when read. */
function trapCandidate(): Candidate {
  return {
    relevance: 1,
    get content(): string {
      throw new Error("trapped");
    },
  };
}
