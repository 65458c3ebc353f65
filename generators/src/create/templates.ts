/**
 * The templates `create-ocp-provider` knows: what each one is, which folders of
 * `templates/` it is made of, and which packages its project depends on.
 */
import { createRequire } from "node:module";

/** The version of this package; our packages are released together, so it is theirs too. */
export const OWN_VERSION: string = (createRequire(import.meta.url)("../../package.json") as { version: string })
  .version;

/** Template names, in the order a person is offered them. */
export const TEMPLATE_NAMES = ["blank", "search-index", "ripgrep", "symbols", "facts"] as const;
/** A template name. */
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

/** Transports a generated provider can serve. */
export const TRANSPORTS = ["stdio", "http"] as const;
/** A transport. */
export type Transport = (typeof TRANSPORTS)[number];

/** Kinds of existing search index the `search-index` template wraps. */
export const INDEX_KINDS = ["lunr", "sqlite", "http"] as const;
/** A kind of search index. */
export type IndexKind = (typeof INDEX_KINDS)[number];

/** Third-party packages of generated projects, pinned to versions verified on Node 20. */
export const PINNED = {
  typescript: "5.9.3",
  vitest: "4.1.12", // 5.x needs Node 22
  vite: "8.3.8", // vitest's peer, pinned so npm does not pick a Node 22 build
  tsx: "4.23.15",
  "@types/node": "20.19.43",
  lunr: "2.3.9",
  "@types/lunr": "2.3.7",
  "better-sqlite3": "12.11.1", // 13.x crashes on Node 20
  "@types/better-sqlite3": "7.6.13",
} as const;

const ours = `^${OWN_VERSION}`;

/** What the generator needs to know about one template. */
export interface TemplateSpec {
  /** One line for the template menu. */
  readonly hint: string;
  /** Folders of `templates/` to copy, in order; a later one's file replaces an earlier one's. */
  layers(index: IndexKind): string[];
  /** Runtime dependencies beyond `ocp-provider` and `tsx`. */
  dependencies(index: IndexKind): Record<string, string>;
  /** Development dependencies beyond TypeScript, vitest and Node's types. */
  devDependencies(index: IndexKind): Record<string, string>;
  /** Dependencies whose install scripts must run (npm 11 skips unapproved ones). */
  allowScripts(index: IndexKind): string[];
  /** Extra package.json scripts. */
  scripts(index: IndexKind): Record<string, string>;
}

const none = () => ({});

/** Every template, by name. */
export const TEMPLATES: Readonly<Record<TemplateName, TemplateSpec>> = {
  blank: {
    hint: "one plugin of your own: write search(), the framework does the rest",
    layers: () => ["base", "blank"],
    dependencies: none,
    devDependencies: none,
    allowScripts: () => [],
    scripts: none,
  },
  "search-index": {
    hint: "wrap an existing index: SQLite FTS5, a lunr/mkdocs search_index.json, or an HTTP search endpoint",
    layers: (index) => ["base", `search-index/${index}`],
    dependencies: (index): Record<string, string> =>
      index === "lunr"
        ? { lunr: PINNED.lunr }
        : index === "sqlite"
          ? { "better-sqlite3": PINNED["better-sqlite3"] }
          : {},
    devDependencies: (index): Record<string, string> =>
      index === "lunr"
        ? { "@types/lunr": PINNED["@types/lunr"] }
        : index === "sqlite"
          ? { "@types/better-sqlite3": PINNED["@types/better-sqlite3"] }
          : {},
    allowScripts: (index) => (index === "sqlite" ? ["better-sqlite3"] : []),
    scripts: (index): Record<string, string> =>
      index === "sqlite"
        ? { "sample-index": "node --import tsx scripts/sample-index.ts", pretest: "npm run sample-index --silent" }
        : {},
  },
  ripgrep: {
    hint: "code snippets from a folder, found with ripgrep (ocp-plugin-ripgrep)",
    layers: () => ["base", "ripgrep"],
    dependencies: () => ({ "ocp-plugin-ripgrep": ours }),
    devDependencies: none,
    allowScripts: () => [],
    scripts: none,
  },
  symbols: {
    hint: "a code symbol index: TypeScript, JavaScript, Python, Go, Rust, Java (ocp-plugin-symbols)",
    layers: () => ["base", "symbols"],
    dependencies: () => ({ "ocp-plugin-symbols": ours }),
    devDependencies: none,
    allowScripts: () => ["better-sqlite3"],
    scripts: none,
  },
  facts: {
    hint: "a bi-temporal fact store: what was true when (ocp-plugin-facts)",
    layers: () => ["base", "facts"],
    dependencies: () => ({ "ocp-plugin-facts": ours }),
    devDependencies: none,
    allowScripts: () => ["better-sqlite3"],
    scripts: () => ({
      "sample-facts": "node --import tsx scripts/sample-facts.ts",
      pretest: "npm run sample-facts --silent",
    }),
  },
};

/** The package.json of a new project. */
export function packageJsonOf(options: {
  name: string;
  template: TemplateName;
  transport: Transport;
  index: IndexKind;
}): Record<string, unknown> {
  const spec = TEMPLATES[options.template];
  const sorted = (record: Record<string, string>) =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
  // tsx's esbuild runs a postinstall check; better-sqlite3 compiles its native module.
  const allow = ["esbuild", ...spec.allowScripts(options.index)].sort();
  return {
    name: options.name,
    version: "0.1.0",
    private: true,
    description: `An Open Context Protocol provider (${options.template}, ${options.transport})`,
    type: "module",
    engines: { node: ">=20.12" },
    scripts: {
      start: "node --import tsx src/main.ts",
      query: "ocp query src/provider.ts",
      // The conformance suite with a person's report; over stdio, the entry a host spawns.
      inspect:
        options.transport === "stdio"
          ? "ocp inspect stdio -- node --import tsx src/main.ts"
          : "ocp inspect stdio -- ocp serve src/provider.ts",
      // The provider for MCP clients (one get_context tool): `npm run mcp -- --http 8080` for HTTP.
      mcp: "ocp mcp src/provider.ts",
      typecheck: "tsc --noEmit",
      test: "tsc --noEmit && vitest run",
      ...spec.scripts(options.index),
    },
    dependencies: sorted({
      "ocp-provider": ours,
      "ocp-provider-mcp": ours,
      tsx: PINNED.tsx,
      ...spec.dependencies(options.index),
    }),
    devDependencies: sorted({
      "@types/node": PINNED["@types/node"],
      typescript: PINNED.typescript,
      vite: PINNED.vite,
      vitest: PINNED.vitest,
      ...spec.devDependencies(options.index),
    }),
    allowScripts: Object.fromEntries(allow.map((name) => [name, true])),
  };
}
