/**
 * `ocp query FILE` loads an `.mjs` provider as Node loads it, without tsx, whose hooks
 * thread doubles a provider's start-up; TypeScript (and any `.js`, see
 * commonjs-package.test.ts) through tsx. A loader hook registered before the CLI starts
 * names every import of tsx's ESM API.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../test-support/child.js";
import { importWatch } from "../test-support/import-watch.js";

const WATCH = importWatch("tsx/esm/api", "tsx");

let project = "";
const hello = readFileSync(join(REPO, "examples/hello-provider.ts"), "utf8");
const plain = hello.replace("(text: string)", "(text)");

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "ocp-esm-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "esm", type: "module" }));
  mkdirSync(join(project, "node_modules"));
  symlinkSync(join(REPO, "framework"), join(project, "node_modules/ocp-provider"), "dir");
  writeFileSync(join(project, "provider.ts"), hello);
  writeFileSync(join(project, "provider.js"), plain);
  writeFileSync(join(project, "provider.mjs"), plain);
  // JavaScript whose notes come from a TypeScript module.
  writeFileSync(
    join(project, "notes.ts"),
    'export const second: string = "Retries back off exponentially, from 100 ms.";\n',
  );
  writeFileSync(
    join(project, "imports-ts.mjs"),
    `import { second } from "./notes.ts";\n${plain.replace('"Retries back off exponentially, from 100 ms."', "second")}`,
  );
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

async function query(file: string): Promise<{ stdout: string; stderr: string }> {
  return await promisify(execFile)(
    process.execPath,
    ["--import", WATCH, join(REPO, "framework/bin/ocp.js"), "query", file, "retries"],
    { cwd: project, env: { ...process.env, NO_COLOR: "1" } },
  );
}

describe("loading a provider module", () => {
  it("loads an .mjs without tsx", async () => {
    const { stdout, stderr } = await query("provider.mjs");
    expect(stdout).toMatch(/^ *1\. memory .*Team note 2$/m);
    expect(stderr).toBe("");
  });

  it.each(["provider.ts", "provider.js"])("loads %s through tsx (the watch works)", async (file) => {
    const { stdout, stderr } = await query(file);
    expect(stdout).toMatch(/^ *1\. memory .*Team note 2$/m);
    expect(stderr).toBe("imported: tsx\n");
  });

  it("loads an .mjs that imports TypeScript as Node does: natively where Node strips types, else says to rename it", async () => {
    const answer = await query("imports-ts.mjs").catch((error: { stdout: string; stderr: string }) => error);
    if ((process.features as { typescript?: unknown }).typescript) {
      expect(answer.stdout).toMatch(/^ *1\. memory .*Team note 2$/m);
      expect(answer.stderr).not.toContain("imported: tsx");
    } else {
      expect(answer.stdout).toBe("");
      expect(answer.stderr).toBe(
        'ocp query: could not load imports-ts.mjs: Unknown file extension ".ts" for notes.ts (an .mjs file loads as Node loads it, without TypeScript: name it .mts to import TypeScript)\n',
      );
    }
  });
});
