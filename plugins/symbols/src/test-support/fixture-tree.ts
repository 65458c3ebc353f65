/**
 * Test support: a temporary copy of the committed fixtures (plus whatever a test adds),
 * so tests can edit, delete and add files without touching the repository.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "ocp-provider";

/** The committed fixtures, one folder per language. */
export const FIXTURES_DIR = fileURLToPath(new URL("../fixtures/", import.meta.url));

/** A temporary tree: its path, a writer, and a remover for the whole tree. */
export interface FixtureTree {
  readonly root: string;
  write(path: string, content: string | Uint8Array): void;
  remove(): void;
}

/** Copies the fixtures into a new temporary directory. */
export function fixtureTree(): FixtureTree {
  const root = mkdtempSync(join(tmpdir(), "ocp-symbols-"));
  cpSync(FIXTURES_DIR, root, { recursive: true });
  return {
    root,
    write(path, content) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A logger that keeps its lines for assertions. */
export function recordingLog(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  const add = (level: string) => (message: string) => {
    lines.push(`${level}: ${message}`);
  };
  return { lines, error: add("error"), warn: add("warn"), info: add("info"), debug: add("debug") };
}
