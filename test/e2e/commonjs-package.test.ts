/**
 * The README's provider in a project made by `npm init -y`: CommonJS (`"type"` absent
 * or `"commonjs"`), so Node treats `.js` as CommonJS. `npx ocp query provider.ts …` must still load it, and
 * so must the same provider as `.mts`, `.js` and `.mjs`.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../test-support/child.js";

const run = promisify(execFile);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const npx = process.platform === "win32" ? "npx.cmd" : "npx";
let project = "";

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "ocp-cjs-"));
  await run(npm, ["init", "-y"], { cwd: project });
  // What `npm install ocp-provider` would give, from this checkout: the package and its bin.
  mkdirSync(join(project, "node_modules/.bin"), { recursive: true });
  symlinkSync(join(REPO, "framework"), join(project, "node_modules/ocp-provider"), "dir");
  symlinkSync("../ocp-provider/bin/ocp.js", join(project, "node_modules/.bin/ocp"));
  const hello = readFileSync(join(REPO, "examples/hello-provider.ts"), "utf8");
  writeFileSync(join(project, "provider.ts"), hello);
  writeFileSync(join(project, "provider.mts"), hello);
  // The same provider without its one type annotation, as plain JavaScript.
  const plain = hello.replace("(text: string)", "(text)");
  expect(plain).not.toBe(hello);
  writeFileSync(join(project, "provider.js"), plain);
  writeFileSync(join(project, "provider.mjs"), plain);
}, 60_000);

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("a provider in a CommonJS package, as npm init makes it", () => {
  it('is CommonJS: npm 11 writes "type": "commonjs", older npm no type', () => {
    expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8")).type ?? "commonjs").toBe("commonjs");
  });

  it.each(["provider.ts", "provider.mts", "provider.js", "provider.mjs"])(
    "npx ocp query %s answers from it",
    async (file) => {
      const { stdout, stderr } = await run(npx, ["--no-install", "ocp", "query", file, "retries"], {
        cwd: project,
        env: { ...process.env, NO_COLOR: "1" },
      });
      expect(stdout).toMatch(/^ *1\. memory .*Team note 2$/m);
      expect(stderr).toBe("");
    },
  );
});
