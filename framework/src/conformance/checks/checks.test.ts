/**
 * The registry and the folder agree: every check module here (a `.ts` file beside
 * the registry, not a test; helpers live in `shared/`) exports a check registered
 * under its file's name, and every registered check has its module.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CHECK_NAMES } from "../types.js";
import { CHECKS } from "./index.js";
import type { Check } from "./shared/check.js";

const HERE = new URL("./", import.meta.url);
const isCheck = (value: unknown): value is Check =>
  typeof value === "object" && value !== null && "name" in value && "appliesTo" in value && "run" in value;

/** The check modules in this folder, by name. */
const modules = readdirSync(HERE, { withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
  .map((entry) => entry.name)
  .filter((name) => !name.endsWith(".test.ts") && name !== "index.ts")
  .map((name) => name.slice(0, -".ts".length));

describe("the check registry", () => {
  it("registers every check module, under its file's name", async () => {
    const registered = new Set<Check>(CHECKS);
    for (const name of modules) {
      const exported = Object.values(await import(/* @vite-ignore */ new URL(`${name}.ts`, HERE).href)).filter(isCheck);
      expect(
        exported.map((check) => check.name),
        `${name}.ts exports one check, named after its file`,
      ).toEqual([name]);
      expect(registered.has(exported[0] as Check), `${name}.ts is in CHECKS (checks/index.ts)`).toBe(true);
    }
  });

  it("has a module for every registered check, and names each once", () => {
    expect([...CHECK_NAMES].sort()).toEqual([...modules].sort());
    expect(new Set(CHECK_NAMES).size).toBe(CHECKS.length);
  });

  it("says why each check is skipped where it does not apply", () => {
    for (const check of CHECKS) {
      if (check.appliesTo !== "every") expect(check.elsewhere, check.name).toMatch(/\S/);
    }
  });
});
