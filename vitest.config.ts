import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { sharedLayerSource } from "./test/test-support/template-layers.js";

export default defineConfig({
  resolve: {
    // Workspace packages resolve to their TypeScript sources in tests (see the "source" export condition).
    conditions: ["source"],
  },
  plugins: [
    {
      // Tests import template sources in place: an import a template's layer leaves to the
      // shared layer below it (search-index adapters' ./hits.js) resolves as in a generated project.
      name: "template-layers",
      enforce: "pre",
      resolveId: (source, importer) =>
        importer === undefined ? null : (sharedLayerSource(source, importer.replace(/\?.*$/, "")) ?? null),
    },
  ],
  // Tests run in Vite's server environment, which resolves with ssr.resolve: without this,
  // a plugin's tests got ocp-provider's built dist/ and silently tested stale code.
  ssr: { resolve: { conditions: ["source"], externalConditions: ["source"] } },
  test: {
    include: [
      "framework/src/**/*.test.ts",
      "plugins/*/src/**/*.test.ts",
      "bridges/*/src/**/*.test.ts",
      "generators/src/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: on a 2-core machine one file at a
    // time, while most of the suite's time is e2e files waiting on child processes (npm, rg,
    // providers). Two files at once use both cores.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    server: {
      deps: {
        // eventsource-parser (which the MCP SDK's HTTP client imports) exports TypeScript sources under
        // "source" as well: loaded by Node with our condition they fail; inlined, Vite compiles them.
        inline: ["eventsource-parser", /@modelcontextprotocol\/sdk/],
      },
    },
  },
});
