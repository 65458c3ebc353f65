import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createProject, detectPackageManager, invalidPackageName, packageNameFrom } from "./create-project.js";
import { generateFiles } from "./generate.js";
import { templatesDir } from "./template-dir.js";
import {
  INDEX_KINDS,
  packageJsonOf,
  readmeCommands,
  readmeSteps,
  stepCommand,
  TEMPLATE_NAMES,
  templateSpec,
} from "./templates.js";

const tmp = mkdtempSync(join(tmpdir(), "ocp-generate-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function put(root: string, files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

// TypeScript that looks like Handlebars (`${{ … }}`): a verbatim file must survive it. Split so no linter reads a placeholder.
const LOOKS_LIKE_HANDLEBARS = ["export const t = `$", "{{ a: 1 }.a}`; // {{not a template}}\n"].join("");

describe("generateFiles", () => {
  const templates = join(tmp, "templates");
  put(templates, {
    "base/README.md.hbs": "# {{{name}}}\n\n{{> about}}\n{{#if http}}HTTP{{else}}stdio{{/if}}\n",
    "base/_gitignore": "node_modules/\n",
    "base/src/shared.ts": LOOKS_LIKE_HANDLEBARS,
    "base/_partials/about.hbs": "base about\n",
    "base/src/provider.ts.hbs": "export const name = {{{json name}}};\n",
    "extra/_partials/about.hbs": "extra about\n",
    "extra/src/provider.ts.hbs": "export const replaced = {{{json name}}};\n",
    "extra/src/__fileName__.ts.hbs": "// {{fileName}}\n",
  });

  it("renders .hbs files, copies the rest byte for byte, renames _gitignore, and lets later layers win", async () => {
    const destination = join(tmp, "out");
    const files = await generateFiles({
      templatesDir: templates,
      layers: ["base", "extra"],
      destination,
      force: false,
      data: { name: 'say "hi"', http: true, fileName: "tickets" },
    });
    expect(files).toEqual([".gitignore", "README.md", "src/provider.ts", "src/shared.ts", "src/tickets.ts"]);
    expect(readFileSync(join(destination, "README.md"), "utf8")).toBe('# say "hi"\n\nextra about\nHTTP\n');
    expect(readFileSync(join(destination, "src/shared.ts"), "utf8")).toBe(LOOKS_LIKE_HANDLEBARS);
    // JSON-quoted, not HTML-escaped: a name with quotes stays valid TypeScript.
    expect(readFileSync(join(destination, "src/provider.ts"), "utf8")).toBe(
      'export const replaced = "say \\"hi\\"";\n',
    );
    expect(readFileSync(join(destination, ".gitignore"), "utf8")).toBe("node_modules/\n");
    expect(readFileSync(join(destination, "src/tickets.ts"), "utf8")).toBe("// tickets\n");
  });

  it("fails with a coded error, not a half-silent one, when a file exists and force is off", async () => {
    const destination = join(tmp, "exists");
    put(destination, { "src/provider.ts": "mine" });
    await expect(
      generateFiles({ templatesDir: templates, layers: ["base"], destination, force: false, data: { name: "x" } }),
    ).rejects.toMatchObject({ code: "OCP_ERR_CREATE_GENERATE_FAILED", message: /already exists/ });
    expect(readFileSync(join(destination, "src/provider.ts"), "utf8")).toBe("mine");
  });
});

describe("the search-index template", () => {
  const shared = "search-index/common/src/adapters/hits.ts";

  it.each(INDEX_KINDS)("%s: writes the adapters' shared hits.ts once, from the common layer", async (index) => {
    expect(templateSpec("search-index").layers(index)).toEqual([
      "base",
      "search-index/common",
      `search-index/${index}`,
    ]);
    // One file in the templates, not a copy per index.
    expect(existsSync(join(templatesDir(), `search-index/${index}/src/adapters/hits.ts`))).toBe(false);
    const directory = join(tmp, `search-index-${index}`);
    const { files } = await createProject({ directory, template: "search-index", index, install: false });
    expect(files.filter((file) => file.endsWith("hits.ts"))).toEqual(["src/adapters/hits.ts"]);
    expect(readFileSync(join(directory, "src/adapters/hits.ts"), "utf8")).toBe(
      readFileSync(join(templatesDir(), shared), "utf8"),
    );
    // The adapter it sits beside imports it from there.
    const adapter = files.find((file) => /^src\/adapters\/(?!hits\.ts$)/.test(file)) as string;
    expect(readFileSync(join(directory, adapter), "utf8")).toMatch(/from "\.\/hits\.js";/);
  });
});

describe("project metadata", () => {
  it("derives valid package names from directory names, and explains invalid ones", () => {
    expect(packageNameFrom("/x/My Provider!")).toBe("my-provider");
    expect(packageNameFrom("/x/__")).toBe("ocp-provider-project");
    expect(invalidPackageName("@acme/docs")).toBeUndefined();
    expect(invalidPackageName("Docs")).toMatch(/not a valid npm package name/);
    expect(invalidPackageName("a".repeat(215))).toMatch(/214/);
    expect(detectPackageManager("pnpm/9.1.0 npm/? node/v20.20.2 linux x64")).toBe("pnpm");
    expect(detectPackageManager("npm/11.1.0 node/v20.20.2")).toBe("npm");
    expect(detectPackageManager("")).toBe("npm");
  });

  it("pins third-party versions, depends on the template's plugin, and approves the install scripts it needs", () => {
    for (const template of TEMPLATE_NAMES) {
      const manifest = packageJsonOf({ name: "p", template, transport: "stdio", index: "sqlite" }) as {
        dependencies: Record<string, string>;
        devDependencies: Record<string, string>;
        allowScripts: Record<string, boolean>;
      };
      expect(manifest.dependencies["ocp-provider"]).toMatch(/^\^\d+\.\d+\.\d+$/);
      for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
        if (!name.startsWith("ocp-")) expect(range, `${template}: ${name}`).toMatch(/^\d+\.\d+\.\d+$/);
      }
      const native = Object.keys(manifest.dependencies).some((name) => /symbols|facts|better-sqlite3/.test(name));
      expect(manifest.allowScripts["better-sqlite3"] === true, template).toBe(
        native && (template !== "search-index" || templateSpec(template).allowScripts("sqlite").length > 0),
      );
    }
    expect(packageJsonOf({ name: "p", template: "ripgrep", transport: "http", index: "lunr" })).toMatchObject({
      dependencies: { "ocp-plugin-ripgrep": expect.any(String), "ocp-provider-mcp": expect.stringMatching(/^\^/) },
      scripts: { inspect: "node --import tsx scripts/inspect.ts", mcp: "ocp mcp src/provider.ts" },
    });
  });

  it.each(
    // symbols: its test names its own goal (that template is changed on its own).
    TEMPLATE_NAMES.filter((template) => template !== "symbols").flatMap((template) =>
      (template === "search-index" ? INDEX_KINDS : (["lunr"] as const)).flatMap((index) =>
        (["stdio", "http"] as const).map((transport) => [template, index, transport] as const),
      ),
    ),
  )(
    "%s (%s, %s): writes the sample question once, in test/sample.ts, which inspect and bench read",
    async (template, index, transport) => {
      const directory = join(tmp, `sample-${template}-${index}-${transport}`);
      const { files } = await createProject({ directory, template, index, transport, install: false });
      const goal = templateSpec(template).sampleGoal(index);
      const holding = files.filter((file) => readFileSync(join(directory, file), "utf8").includes(goal));
      // The README shows it as an example of `npm run query`; no other file names it.
      expect(holding.sort()).toEqual(["README.md", "test/sample.ts"]);
      expect(readFileSync(join(directory, "test/sample.ts"), "utf8")).toContain(
        `export const GOAL = ${JSON.stringify(goal)};`,
      );
      const { scripts } = JSON.parse(readFileSync(join(directory, "package.json"), "utf8"));
      expect(scripts).toMatchObject({
        inspect: "node --import tsx scripts/inspect.ts",
        bench: "node --import tsx scripts/bench.ts",
      });
      for (const script of ["scripts/inspect.ts", "scripts/bench.ts"]) {
        expect(readFileSync(join(directory, script), "utf8")).toContain('import { GOAL } from "../test/sample.js";');
      }
      // Over HTTP, inspect checks the server the project ships, not a stdio stand-in.
      expect(readFileSync(join(directory, "scripts/inspect.ts"), "utf8")).toContain(
        transport === "http" ? '"inspect", "http", url' : '"inspect", "stdio"',
      );
    },
  );

  it("with local packages: ours from the tarballs, as dependencies and overrides, and the codemods' package", () => {
    const local = new Map([
      ["ocp-provider", "file:.ocp-packages/ocp-provider-0.1.0.tgz"],
      ["ocp-plugin-facts", "file:.ocp-packages/ocp-plugin-facts-0.1.0.tgz"],
      ["create-ocp-provider", "file:.ocp-packages/create-ocp-provider-0.1.0.tgz"],
    ]);
    expect(packageJsonOf({ name: "p", template: "facts", transport: "stdio", index: "lunr", local })).toMatchObject({
      dependencies: { "ocp-provider": local.get("ocp-provider"), "ocp-plugin-facts": local.get("ocp-plugin-facts") },
      devDependencies: { "create-ocp-provider": local.get("create-ocp-provider") },
      overrides: Object.fromEntries(local),
    });
    expect(packageJsonOf({ name: "p", template: "facts", transport: "stdio", index: "lunr" })).not.toHaveProperty(
      "overrides",
    );
  });
});

describe("readmeCommands", () => {
  it("aligns the comments, and types scripts the way each package manager runs them", () => {
    const steps = readmeSteps("facts", "lunr", "stdio");
    expect(readmeCommands(steps, "npm").split("\n")).toEqual([
      "npm test                                       # typecheck, your tests, and the OCP conformance suite",
      'npm run query -- "who owns the payments API?"  # ask it one question and see the frames',
      "npm run inspect                                # the conformance suite, as a report",
      "npm run bench                                  # time its queries and check its token accounting",
      "npm start                                      # serve it over stdio",
    ]);
    expect(readmeSteps("search-index", "http", "stdio").map((step) => stepCommand(step, "pnpm"))).toEqual([
      "pnpm sample-endpoint",
      "pnpm test",
      'pnpm query "how do I roll back a deploy?"',
      "pnpm inspect",
      "pnpm bench",
      "pnpm start",
    ]);
    expect(steps.map((step) => stepCommand(step, "pnpm"))).toEqual([
      "pnpm test",
      'pnpm query "who owns the payments API?"',
      "pnpm inspect",
      "pnpm bench",
      "pnpm start",
    ]);
  });
});
