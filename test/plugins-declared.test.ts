/**
 * A reference plugin is its folder under plugins/ and the "ocp" field of its
 * package.json: the generators read that (the codemod's plugins, the templates, the
 * packages a project from a clone installs). The places that still name the plugins
 * by hand — the root tsconfig.json's references and the README — must agree with it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CREATE_ERROR_CODES,
  KNOWN_PLUGINS,
  readPluginFolders,
  referencePlugins,
  TEMPLATE_NAMES,
  templateSpec,
} from "create-ocp-provider";
import { afterAll, describe, expect, it } from "vitest";
import { REPO } from "./test-support/child.js";

const read = (path: string) => readFileSync(join(REPO, path), "utf8");
const folders = readdirSync(join(REPO, "plugins"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const declared = referencePlugins();

describe("the reference plugins' declarations", () => {
  it("every folder under plugins/ declares itself, as the folder's name", () => {
    expect(declared.map((plugin) => plugin.name).sort()).toEqual(folders);
    for (const plugin of declared) {
      expect(JSON.parse(read(`plugins/${plugin.name}/package.json`)).name).toBe(plugin.package);
    }
  });

  it("are what the codemod wires and the generator scaffolds, in their order", () => {
    expect(Object.keys(KNOWN_PLUGINS)).toEqual(declared.map((plugin) => plugin.name));
    const withTemplate = declared.filter((plugin) => plugin.template !== undefined).map((plugin) => plugin.name);
    expect(TEMPLATE_NAMES).toEqual(["blank", "search-index", ...withTemplate]);
    for (const name of withTemplate) {
      expect(templateSpec(name).layers("lunr")).toEqual(["base", name]);
      expect(readdirSync(join(REPO, "templates", name)).length).toBeGreaterThan(0);
    }
  });

  it("agree with the root tsconfig.json's references and the workspaces", () => {
    const references = (JSON.parse(read("tsconfig.json")) as { references: { path: string }[] }).references.map(
      (reference) => reference.path,
    );
    for (const plugin of declared) expect(references).toContain(`plugins/${plugin.name}`);
    expect(references.filter((path) => path.startsWith("plugins/")).sort()).toEqual(
      folders.map((folder) => `plugins/${folder}`),
    );
    expect((JSON.parse(read("package.json")) as { workspaces: string[] }).workspaces).toContain("plugins/*");
  });

  it("agree with the README's list of templates", () => {
    const line = /any template: ([a-z, -]+)/.exec(read("README.md"))?.[1];
    expect(line?.split(", ")).toEqual(TEMPLATE_NAMES);
  });
});

describe("reading declarations", () => {
  const dir = mkdtempSync(join(tmpdir(), "ocp-plugins-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (folder: string, manifest: unknown) => {
    mkdirSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, folder, "package.json"), JSON.stringify(manifest));
  };
  const tickets = {
    name: "ocp-plugin-tickets",
    ocp: { name: "tickets", order: 1, plugin: { export: "tickets", args: '{ db: "t.db" }', hint: "h" } },
  };

  it('a new folder with an "ocp" field is a new plugin; one without is not', () => {
    write("tickets", tickets);
    write("helper", { name: "not-a-plugin" });
    expect(readPluginFolders(dir)).toEqual([{ ...tickets.ocp, package: "ocp-plugin-tickets" }]);
  });

  it("a malformed declaration is a coded error naming its file and what is missing", () => {
    write("broken", { name: "ocp-plugin-broken", ocp: { name: "broken", order: 2, plugin: { export: "broken" } } });
    expect(() => readPluginFolders(dir)).toThrow(/broken[/\\]package\.json: ocp\.plugin needs export, args and hint/);
    expect(() => readPluginFolders(dir)).toThrow(
      expect.objectContaining({ code: CREATE_ERROR_CODES.PLUGIN_DECLARATION }),
    );
  });
});
