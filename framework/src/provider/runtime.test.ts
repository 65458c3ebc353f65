/**
 * Two providers in one process share no state: every memo and every piece of
 * bookkeeping of the answer pipeline hangs off a provider's runtime, and the pipeline's
 * modules keep none at module level.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { silentLogger } from "./logger.js";
import { definePlugin } from "./plugin.js";
import { defineProvider } from "./provider.js";
import { createRuntime, type ProviderRuntime } from "./runtime.js";

const plugin = definePlugin({
  name: "same",
  kinds: ["doc"],
  search: () => [{ uri: "file:///r/a.ts", range: { start: 1, end: 2 }, content: "a\nb", relevance: 0.5 }],
});

const runtime = (): ProviderRuntime =>
  createRuntime({
    name: "p",
    plugins: [plugin],
    log: silentLogger,
    root: "/r",
    pluginTimeoutMs: 1000,
    setupTimeoutMs: 1000,
  });

/** Every object and function reachable from `start` through own properties and collection entries, except `skip`'s. */
function reachable(start: unknown, skip: ReadonlySet<unknown>): Set<unknown> {
  const seen = new Set<unknown>();
  const visit = (value: unknown): void => {
    if ((typeof value !== "object" && typeof value !== "function") || value === null) return;
    if (seen.has(value) || skip.has(value)) return;
    seen.add(value);
    if (value instanceof Map) {
      for (const [key, entry] of value) {
        visit(key);
        visit(entry);
      }
    }
    if (value instanceof Set) for (const entry of value) visit(entry);
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor !== undefined && "value" in descriptor) visit(descriptor.value);
    }
  };
  visit(start);
  return seen;
}

/** Module sources of the pipeline: none of them may keep state of its own. */
const PIPELINE_MODULES = [
  "./answer.ts",
  "./fan-out.ts",
  "./frames.ts",
  "./lifecycle.ts",
  "./provider.ts",
  "./runtime.ts",
  "../pack/pack.ts",
  "../wire/frames-json.ts",
];

/**
 * A top-level `let`, or a top-level constant holding a fresh mutable container or memo.
 * Constants typed `Readonly…` are tables, not state.
 */
const MODULE_STATE =
  /^(?:let |const \w+(?::(?!\s*Readonly)[^=]*)? = (?:new (?:Map|Set|WeakMap|WeakSet|GenerationalCache|InFlight)\b|memoizeString\())/m;

describe("provider runtime", () => {
  it("shares no object between two providers' runtimes but what they were given", () => {
    const given = new Set<unknown>([plugin, silentLogger, ...Object.values(silentLogger), plugin.search, plugin.kinds]);
    const one = reachable(runtime(), given);
    const other = reachable(runtime(), given);
    const shared = [...one].filter((value) => other.has(value));
    expect(shared).toEqual([]);
    // The walk sees the state it must: the memos are in it, so "shared" is a real check.
    expect(one.size).toBeGreaterThan(10);
  });

  it("answers alike from two providers that serve the same plugin object, each with its own memos", async () => {
    const make = () =>
      defineProvider({
        name: "twin",
        version: "1",
        dataFlow: { reads: true, writes: false, egress: false },
        plugins: [plugin],
        logger: silentLogger,
        root: "/r",
      });
    const [a, b] = [make(), make()];
    const query = { goal: "g", max_tokens: 100, max_frames: 2 };
    const [fromA, fromB] = [await a.query(query), await b.query(query)];
    expect(fromA).toEqual(fromB);
    expect(fromA.frames[0]?.id).toBe("same:file:///r/a.ts#L1-2");
  });

  it("finds no module-level state in the pipeline's modules", () => {
    for (const path of PIPELINE_MODULES) {
      const source = readFileSync(new URL(path, import.meta.url), "utf8");
      expect(source.match(MODULE_STATE)?.[0], path).toBeUndefined();
    }
  });
});
