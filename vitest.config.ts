import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
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
    // `vitest run` runs both projects; a list of files runs each file in the project whose
    // include holds it. Both inherit everything here (extends: true).
    projects: [
      {
        // The tests beside the code run in-process: each worker runs its files in one module
        // graph instead of a fresh one per file, whose imports cost ~0.76 CPU-s a file, about
        // a third of these files' CPU time. So a test restores what it changes in the process
        // (process.env, listeners, spies), and one that needs module state as a new process
        // has it says so: the lazy-loading tests of the tokenizer families unload the family
        // first (unloadFamily), as another file in the worker may have counted in it.
        // `--sequence.shuffle.files --sequence.seed=N` finds a file that leaks (whole
        // `--sequence.shuffle` also reorders tests inside a file, which some e2e files'
        // tests may not take: they build on one another). No file here needs its own process.
        extends: true,
        test: {
          name: "unit",
          include: [
            "framework/src/**/*.test.ts",
            "plugins/*/src/**/*.test.ts",
            "bridges/*/src/**/*.test.ts",
            "generators/src/**/*.test.ts",
          ],
          isolate: false,
        },
      },
      {
        // End-to-end and cross-package tests: most of their time is child processes, but a
        // fresh module graph per file still cost ~0.65 CPU-s a file (37 files: 265 -> 241
        // CPU-s unisolated), so they share one per worker too, under the same rule (shuffled
        // file orders, seeds 7 and 11, pass).
        extends: true,
        test: {
          name: "e2e",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/examples/**"],
          isolate: false,
        },
      },
      {
        // The examples' tests set up the process for the example they import and leave it so
        // (docs-provider.test.ts sets OCP_DOCS, which the example reads when it loads): a
        // fresh worker each.
        extends: true,
        test: { name: "examples", include: ["test/examples/**/*.test.ts"] },
      },
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: on a 2-core machine one file at a
    // time, while most of the suite's time is e2e files waiting on child processes (npm, rg,
    // providers). Two files at once use both cores. The projects inherit this number: in
    // vitest 4 `--maxWorkers` on the command line does not reach them (`--no-file-parallelism` does).
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
