/**
 * A project is a checkout, and what is in it is the checkout's to decide: a symbolic
 * link in it (`src/plugins` → elsewhere, a linked `src/provider.ts`) never carries a
 * codemod's or the scaffolder's write out of the project. Each is refused before
 * anything is written, and what the link names is left as it was.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateFiles } from "../create/generate.js";
import { templatesDir } from "../create/template-dir.js";
import { CREATE_ERROR_CODES } from "../errors.js";
import { addDependency, addPlugin } from "./add-plugin.js";
import { generatePlugin } from "./generate-plugin.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ocp-codemod-links-"));
  dirs.push(dir);
  return dir;
}

const PROVIDER = `import { defineProvider } from "ocp-provider";

export default defineProvider({
  name: "team",
  version: "1.0.0",
  dataFlow: { reads: true, writes: false, egress: false },
  plugins: [],
});
`;

/** A project with a provider file and a package.json. */
function project(): string {
  const dir = tempDir();
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "provider.ts"), PROVIDER);
  writeFileSync(join(dir, "package.json"), '{ "name": "team" }\n');
  return dir;
}

const SYMLINK = { code: CREATE_ERROR_CODES.SYMLINK };

describe("generate plugin never writes through a link in the project", () => {
  it.each([
    ["src/plugins", "the plugin"],
    ["test/plugins", "its test"],
    ["test", "its test's directory"],
  ])("refuses %s linked outside (where %s would go), writing nothing anywhere", async (linked) => {
    const dir = project();
    const outside = tempDir();
    mkdirSync(join(dir, linked, ".."), { recursive: true });
    symlinkSync(outside, join(dir, linked));
    await expect(generatePlugin({ name: "tickets", project: dir })).rejects.toMatchObject(SYMLINK);
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(join(dir, "src", "provider.ts"), "utf8")).toBe(PROVIDER);
    expect(readdirSync(join(dir, "src")).sort()).toEqual(
      linked === "src/plugins" ? ["plugins", "provider.ts"] : ["provider.ts"],
    );
  });

  it("refuses a provider file that links outside, and leaves that file as it was", async () => {
    const dir = project();
    const elsewhere = join(tempDir(), "provider.ts");
    writeFileSync(elsewhere, PROVIDER);
    rmSync(join(dir, "src", "provider.ts"));
    symlinkSync(elsewhere, join(dir, "src", "provider.ts"));
    await expect(generatePlugin({ name: "tickets", project: dir })).rejects.toMatchObject(SYMLINK);
    expect(readFileSync(elsewhere, "utf8")).toBe(PROVIDER);
    expect(readdirSync(join(dir, "src"))).toEqual(["provider.ts"]);
  });
});

describe("add plugin never edits through a link", () => {
  it("refuses a provider file that is a link, and leaves what it names as it was", async () => {
    const dir = tempDir();
    const elsewhere = join(tempDir(), "provider.ts");
    writeFileSync(elsewhere, PROVIDER);
    symlinkSync(elsewhere, join(dir, "provider.ts"));
    await expect(addPlugin(join(dir, "provider.ts"), "ripgrep")).rejects.toMatchObject(SYMLINK);
    expect(readFileSync(elsewhere, "utf8")).toBe(PROVIDER);
  });

  it("refuses a package.json that is a link, and leaves what it names as it was", async () => {
    const dir = tempDir();
    const elsewhere = join(tempDir(), "package.json");
    writeFileSync(elsewhere, '{ "name": "other" }\n');
    symlinkSync(elsewhere, join(dir, "package.json"));
    await expect(addDependency(join(dir, "package.json"), "ocp-plugin-ripgrep", "^0.1.0")).rejects.toMatchObject(
      SYMLINK,
    );
    expect(readFileSync(elsewhere, "utf8")).toBe('{ "name": "other" }\n');
  });
});

describe("the scaffolder's writer", () => {
  it("checks every target before the first is written: a link anywhere leaves the destination as it was", async () => {
    const dir = tempDir();
    const outside = tempDir();
    symlinkSync(outside, join(dir, "test"));
    await expect(
      generateFiles({
        templatesDir: templatesDir(),
        layers: ["plugin"],
        destination: dir,
        force: true,
        data: { fileName: "tickets", pluginName: "tickets", exportName: "tickets", kind: "doc" },
      }),
    ).rejects.toMatchObject(SYMLINK);
    expect(readdirSync(dir)).toEqual(["test"]);
    expect(readdirSync(outside)).toEqual([]);
  });
});
