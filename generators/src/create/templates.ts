/**
 * The templates `create-ocp-provider` knows: what each one is, which folders of
 * `templates/` it is made of, and which packages its project depends on. `blank` and
 * `search-index` are the generator's own; one per reference plugin comes from the
 * plugin's `"ocp"` declaration (reference-plugins.ts).
 */
import { createRequire } from "node:module";
import { WIRE_TRANSPORTS, type WireTransport } from "ocp-provider/transports";
import { CREATE_ERROR_CODES, CreateError } from "../errors.js";
import { type PluginDeclaration, referencePlugins } from "./reference-plugins.js";

/** The version of this package; our packages are released together, so it is theirs too. */
export const OWN_VERSION: string = (createRequire(import.meta.url)("../../package.json") as { version: string })
  .version;

/** A template name: `blank`, `search-index`, or a reference plugin's. */
export type TemplateName = string;

/** Transports a generated provider can serve: the framework's wire transports (its transport table). */
export const TRANSPORTS: readonly Transport[] = WIRE_TRANSPORTS;
/** A transport. */
export type Transport = WireTransport;

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
  /**
   * A goal the template's sample data answers: `GOAL` in the project's test/sample.ts, the
   * one place the project writes it — its tests, `npm run inspect` (so the frame checks,
   * budget and costs, have frames to check) and `npm run bench` ask it — and the README's
   * `query` example.
   */
  sampleGoal(index: IndexKind): string;
  /** README commands to run before the others (filling the sample data, a stand-in server). */
  firstSteps(index: IndexKind): readonly ReadmeStep[];
}

/** A line of a generated README's commands: a script of the project and why to run it. */
export interface ReadmeStep {
  /** The script (`test`, `query`, `sample-facts`), run with the package manager. */
  readonly script: string;
  /** Arguments after `--`. */
  readonly args?: string;
  /** The comment beside it. */
  readonly why: string;
  /** It serves until stopped (a server), rather than running to completion. */
  readonly serves?: boolean;
}

const none = () => ({});

/** The generator's own templates. */
const OWN_TEMPLATES: Readonly<Record<string, TemplateSpec>> = {
  blank: {
    hint: "one plugin of your own: write search(), the framework does the rest",
    layers: () => ["base", "blank"],
    dependencies: none,
    devDependencies: none,
    allowScripts: () => [],
    scripts: none,
    sampleGoal: () => "which branch do deploys run from?",
    firstSteps: () => [],
  },
  "search-index": {
    hint: "wrap an existing index: SQLite FTS5, a lunr/mkdocs search_index.json, or an HTTP search endpoint",
    // search-index/common: what every adapter shares (hits.ts), once, under the index's own layer.
    layers: (index) => ["base", "search-index/common", `search-index/${index}`],
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
    // The sample SQLite database needs no script: src/sample-data.ts builds it when the provider first reads it.
    scripts: (index): Record<string, string> =>
      index === "http" ? { "sample-endpoint": "node --import tsx scripts/sample-endpoint.ts" } : {},
    sampleGoal: () => "how do I roll back a deploy?",
    firstSteps: (index): ReadmeStep[] =>
      index === "http"
        ? [
            {
              script: "sample-endpoint",
              why: "in another terminal: a stand-in search endpoint on 127.0.0.1:9200",
              serves: true,
            },
          ]
        : [],
  },
};

/** The template of a reference plugin: the `base` layer, then `templates/<name>/`. */
function pluginTemplate(
  declared: PluginDeclaration,
  template: NonNullable<PluginDeclaration["template"]>,
): TemplateSpec {
  return {
    hint: template.hint,
    layers: () => ["base", declared.name],
    dependencies: () => ({ [declared.package]: ours }),
    devDependencies: none,
    allowScripts: () => [...(template.allowScripts ?? [])],
    scripts: () => ({ ...template.scripts }),
    sampleGoal: () => template.sampleGoal,
    firstSteps: () => template.firstSteps ?? [],
  };
}

/** Every template, by name. */
export const TEMPLATES: Readonly<Record<TemplateName, TemplateSpec>> = {
  ...OWN_TEMPLATES,
  ...Object.fromEntries(
    referencePlugins().flatMap((declared) =>
      declared.template === undefined ? [] : [[declared.name, pluginTemplate(declared, declared.template)]],
    ),
  ),
};

/** Template names, in the order a person is offered them. */
export const TEMPLATE_NAMES: readonly TemplateName[] = Object.keys(TEMPLATES);

/** The template named `name`; one not in {@link TEMPLATES} is a usage error. */
export function templateSpec(name: TemplateName): TemplateSpec {
  const spec = Object.hasOwn(TEMPLATES, name) ? TEMPLATES[name] : undefined;
  if (spec === undefined) {
    throw new CreateError(
      CREATE_ERROR_CODES.USAGE,
      `unknown template '${name}' (expected ${TEMPLATE_NAMES.join(", ")})`,
    );
  }
  return spec;
}

/** Our packages, which a project made from a clone installs from tarballs (see {@link LocalPackages}). */
export const OUR_PACKAGES: readonly string[] = [
  "ocp-provider",
  "ocp-provider-mcp",
  ...referencePlugins().map((declared) => declared.package),
  "create-ocp-provider",
];

/**
 * Our packages as tarballs inside the project (`file:.ocp-packages/…`), by name: what
 * `--local-packages` installs instead of the registry's, before they are published.
 */
export type LocalPackages = ReadonlyMap<string, string>;

/** The package.json of a new project. */
export function packageJsonOf(options: {
  name: string;
  template: TemplateName;
  transport: Transport;
  index: IndexKind;
  local?: LocalPackages;
}): Record<string, unknown> {
  const spec = templateSpec(options.template);
  const sorted = (record: Record<string, string>) =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
  // tsx's esbuild runs a postinstall check; better-sqlite3 compiles its native module.
  const allow = ["esbuild", ...spec.allowScripts(options.index)].sort();
  const { local } = options;
  // From a clone: ours from the tarballs, directly and (overrides) as dependencies of
  // each other; and the codemods' package, so `npx create-ocp-provider add …` runs offline.
  const ourSpec = (name: string) => local?.get(name) ?? ours;
  const oursDev: Record<string, string> =
    local?.get("create-ocp-provider") !== undefined
      ? { "create-ocp-provider": local.get("create-ocp-provider") as string }
      : {};
  const dependencies: Record<string, string> = {
    "ocp-provider": ourSpec("ocp-provider"),
    // The MCP bridge, so `npm run mcp` works; the core itself never depends on the SDK.
    "ocp-provider-mcp": ourSpec("ocp-provider-mcp"),
    tsx: PINNED.tsx,
    ...spec.dependencies(options.index),
  };
  for (const name of Object.keys(dependencies)) {
    if (local?.has(name)) dependencies[name] = local.get(name) as string;
  }
  return {
    name: options.name,
    version: "0.1.0",
    private: true,
    description: `An Open Context Protocol provider (${options.template}, ${options.transport})`,
    type: "module",
    engines: { node: "^20.19.0 || >=22.12.0" },
    scripts: {
      start: "node --import tsx src/main.ts",
      query: "ocp query src/provider.ts",
      // The conformance suite with a person's report, against what the project ships: the entry
      // a host spawns over stdio, or the HTTP server src/main.ts starts. It and bench ask the
      // sample question of test/sample.ts (the one place it is written), so the frame checks have frames.
      inspect: "node --import tsx scripts/inspect.ts",
      // Token accounting and query time, in-process, from the sample goal and the frames it finds.
      bench: "node --import tsx scripts/bench.ts",
      // The provider for MCP clients (one get_context tool): `npm run mcp -- --http 8080` for HTTP.
      mcp: "ocp mcp src/provider.ts",
      typecheck: "tsc --noEmit",
      test: "tsc --noEmit && vitest run",
      ...spec.scripts(options.index),
    },
    dependencies: sorted(dependencies),
    devDependencies: sorted({
      "@types/node": PINNED["@types/node"],
      typescript: PINNED.typescript,
      vite: PINNED.vite,
      vitest: PINNED.vitest,
      ...spec.devDependencies(options.index),
      ...oursDev,
    }),
    ...(local !== undefined && local.size > 0 ? { overrides: Object.fromEntries(local) } : {}),
    allowScripts: Object.fromEntries(allow.map((name) => [name, true])),
  };
}

/**
 * The commands block of a project's README, aligned: the template's first steps, then
 * test, query (with the sample goal), inspect and start. A test runs every one.
 */
export function readmeSteps(template: TemplateName, index: IndexKind, transport: Transport): ReadmeStep[] {
  const spec = templateSpec(template);
  const goal = spec.sampleGoal(index);
  // Typed in a shell in double quotes, and written into test/sample.ts as JSON.
  if (/["$`\\]/.test(goal)) throw new Error(`sample goal ${JSON.stringify(goal)} cannot be quoted in a command`);
  return [
    ...spec.firstSteps(index),
    { script: "test", why: "typecheck, your tests, and the OCP conformance suite" },
    { script: "query", args: `"${goal}"`, why: "ask it one question and see the frames" },
    { script: "inspect", why: "the conformance suite, as a report" },
    { script: "bench", why: "time its queries and check its token accounting" },
    {
      script: "start",
      why: transport === "http" ? "serve it on http://127.0.0.1:8080/" : "serve it over stdio",
      serves: true,
    },
  ];
}

/** How a step is typed with `packageManager`: `npm test`, `npm run query -- "…"`, `pnpm query "…"`. */
export function stepCommand(step: ReadmeStep, packageManager: string): string {
  const builtin = step.script === "test" || step.script === "start";
  const run = builtin ? packageManager : packageManager === "npm" ? "npm run" : packageManager;
  const dashes = step.args === undefined ? "" : packageManager === "npm" ? ` -- ${step.args}` : ` ${step.args}`;
  return `${run} ${step.script}${dashes}`;
}

/** The README's commands block (inside ```sh), each comment aligned. */
export function readmeCommands(steps: readonly ReadmeStep[], packageManager: string): string {
  const commands = steps.map((step) => stepCommand(step, packageManager));
  const width = Math.max(...commands.map((command) => command.length)) + 2;
  return steps.map((step, i) => `${(commands[i] as string).padEnd(width)}# ${step.why}`).join("\n");
}
