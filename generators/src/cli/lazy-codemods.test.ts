/**
 * `npm create ocp-provider` never loads the codemods' ts-morph (and the TypeScript it
 * bundles): about a second of start-up on every run, for a project that never needs it.
 * Nor do `add` and `generate` until their command line has been checked: their help and
 * usage errors answer at once. It crept back once through a shared constant; this
 * watches the built CLI's imports.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { importWatch } from "../../../test/test-support/import-watch.js";

const BIN = fileURLToPath(new URL("../../bin/create-ocp-provider.js", import.meta.url));

/** Names every ts-morph import on stderr, registered before the CLI starts. */
const WATCH = importWatch("ts-morph");

async function imports(args: string[], cwd?: string): Promise<string> {
  const { stderr } = await promisify(execFile)(process.execPath, ["--import", WATCH, BIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1" },
  }).catch((error: { stderr: string }) => error);
  return stderr;
}

describe("the create command's start-up", () => {
  it("imports no ts-morph for --help, nor for the codemods' help and usage errors", async () => {
    for (const args of [
      ["--help"],
      ["add", "plugin", "--help"],
      ["generate", "plugin", "--help"],
      ["add", "plugin", "nonesuch"],
      ["add", "plugin", "ripgrep", "--bogus"],
    ]) {
      expect(await imports(args), args.join(" ")).not.toContain("imported: ts-morph");
    }
  });

  it("imports ts-morph when `add plugin` runs (the watch works)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocp-lazy-codemods-"));
    try {
      const file = join(dir, "provider.ts");
      writeFileSync(
        file,
        'import { defineProvider } from "ocp-provider";\nexport default defineProvider({ name: "x", plugins: [] });\n',
      );
      const stderr = await imports(["add", "plugin", "ripgrep", "--file", file, "--no-package-json"], dir);
      expect(stderr).toContain("imported: ts-morph");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
