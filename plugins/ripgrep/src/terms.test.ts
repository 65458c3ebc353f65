import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULTS } from "./options.js";
import { searchArgs } from "./rg-args.js";
import { findRipgrep } from "./rg-binary.js";
import {
  identifierParts,
  MAX_SCANNED_WORDS,
  MAX_TERM_LENGTH,
  MAX_TERMS,
  queryTerms,
  rustPattern,
  STOP_WORDS,
  stem,
  termRegExp,
} from "./terms.js";

const texts = (query: string) => queryTerms(query).map((term) => term.text);

describe("queryTerms", () => {
  it("drops stop-words and single characters, keeps the rest in order", () => {
    // Prose words are stemmed (see the next test): costs → cost, counted → count.
    expect(texts("How are token costs counted within a budget?")).toEqual(["token", "cost", "count", "budget"]);
    expect(queryTerms("how does it work? x y")).toEqual([]);
  });

  it("stems prose words lightly, never code names, never below 4 letters", () => {
    expect(
      [
        "uploads",
        "retries",
        "handling",
        "parsed",
        "matches",
        "errors",
        "status",
        "class",
        "fixed",
        "added",
        "uses",
      ].map(stem),
    ).toEqual(["upload", "retry", "handl", "pars", "match", "error", "status", "class", "fixed", "added", "uses"]);
    // The stem is a substring of what it came from's relatives: the search still finds `retryUpload`.
    expect(texts("adds retry for failed uploads")).toEqual(["adds", "retry", "fail", "upload"]);
    expect(texts("parseConfigs HTTPHeaders")).toContain("parseConfigs");
  });

  it("keeps identifiers whole and adds their parts at half weight", () => {
    const terms = queryTerms("parseConfigFile max_tokens getHTTPResponse");
    expect(terms.filter((t) => t.weight === 1).map((t) => t.text)).toEqual([
      "parseConfigFile",
      "max_tokens",
      "getHTTPResponse",
    ]);
    expect(terms.filter((t) => t.source === "part").map((t) => [t.text, t.weight])).toEqual([
      ["parse", 0.5],
      ["config", 0.5],
      ["file", 0.5],
      ["max", 0.5],
      ["tokens", 0.5],
      ["get", 0.5],
      ["http", 0.5],
      ["response", 0.5],
    ]);
  });

  it("applies smart case per term; a Capitalized first word stays case-insensitive", () => {
    const byText = new Map(queryTerms("Retry parseConfig HTTP budget").map((t) => [t.text, t.caseSensitive]));
    expect(byText.get("retry")).toBe(false);
    expect(byText.get("parseConfig")).toBe(true);
    expect(byText.get("HTTP")).toBe(true);
    expect(byText.get("budget")).toBe(false);
  });

  it("a case-insensitive term covers a case-sensitive spelling of it", () => {
    expect(texts("config Config CONFIG")).toEqual(["config"]);
  });

  it("reads quoted phrases as one literal, flags and all", () => {
    const [phrase, ...rest] = queryTerms('"--pre=sh -e"  budget "retry  policy"');
    expect(phrase).toMatchObject({ text: "--pre=sh -e", source: "phrase" });
    expect(rest.map((t) => t.text)).toEqual(["retry policy", "budget"]);
  });

  it("matches two-character terms as whole words only", () => {
    const [db] = queryTerms("db");
    expect(db?.wholeWord).toBe(true);
    expect("the db handle".match(termRegExp(db!))).toEqual(["db"]);
    expect("dbx rdb".match(termRegExp(db!))).toBeNull();
  });

  it("handles unicode words", () => {
    expect(texts("Größe 予算 προϋπολογισμός")).toEqual(["größe", "予算", "προϋπολογισμός"]);
  });

  it("splits identifiers at case, acronym, underscore and digit boundaries", () => {
    expect(identifierParts("getHTTPResponse2")).toEqual(["get", "HTTP", "Response", "2"]);
    expect(identifierParts("max__tokens")).toEqual(["max", "tokens"]);
  });

  it("never returns more than MAX_TERMS terms, no stop-word, no duplicate", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (query) => {
        const terms = queryTerms(query);
        expect(terms.length).toBeLessThanOrEqual(MAX_TERMS);
        const keys = terms.map((t) => (t.caseSensitive ? `=${t.text}` : `~${t.text.toLowerCase()}`));
        expect(new Set(keys).size).toBe(keys.length);
        for (const term of terms) {
          if (term.source !== "phrase") expect(STOP_WORDS.has(term.text.toLowerCase())).toBe(false);
          expect([...term.text].length).toBeGreaterThanOrEqual(2);
        }
      }),
    );
  });

  it("every term's JavaScript matcher compiles and finds the term's own text", () => {
    const chars = fc.constantFrom(..."ab xY_é7-.*+?()[]{}|/\\^$=#&~:".split(""));
    const quoted = fc.string({ unit: chars, minLength: 1, maxLength: 12 }).map((text) => `"${text}"`);
    const query = fc
      .array(fc.oneof(quoted, fc.string({ maxLength: 12 })), { maxLength: 8 })
      .map((parts) => parts.join(" "));
    fc.assert(
      fc.property(query, (query) => {
        for (const term of queryTerms(query)) {
          const regex = termRegExp(term);
          expect(regex.test(` ${term.text} `)).toBe(true);
        }
      }),
    );
  });
});

describe("queryTerms on goals of any length", () => {
  it("skips words too long to be searched for and keeps the goal's other terms", () => {
    const goal = `budget ${"a".repeat(7000)} parseConfig ${"b".repeat(200 * 1024)} packer`;
    expect(texts(goal)).toEqual(["budget", "parseConfig", "packer", "parse", "config"]);
    // The longest word kept, in code points (an astral letter is two UTF-16 units).
    const longest = "𝒜".repeat(MAX_TERM_LENGTH);
    expect(texts(`${longest} ${longest}x`)).toEqual([longest.toLowerCase()]);
    expect(texts(`"${"word ".repeat(100)}" budget`)).toEqual([
      "word ".repeat(100).slice(0, MAX_TERM_LENGTH).trimEnd(),
      "budget",
    ]);
  });

  it("reads only the first MAX_SCANNED_WORDS words", () => {
    const filler = Array.from({ length: MAX_SCANNED_WORDS - 1 }, () => "the").join(" ");
    expect(texts(`${filler} budget retry`)).toEqual(["budget"]);
  });

  it("keeps every pattern and the whole rg command line small, whatever the goal", () => {
    const longWord = fc.string({ unit: "grapheme", minLength: 150, maxLength: 3000 });
    const piece = fc.oneof(
      longWord,
      longWord.map((text) => `"${text}"`),
      fc.string({ unit: fc.constantFrom(...'aB_7 .-*\\"é😀'.split("")), maxLength: 600 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const goal = pieces.join(" ");
        const terms = queryTerms(goal);
        const args = searchArgs(terms, DEFAULTS);
        const bytes = args.reduce((sum, arg) => sum + Buffer.byteLength(arg) + 1, 0);
        // Linux takes 128 KiB per argument and 2 MiB in all; Windows 32,767 UTF-16 units in all.
        expect(bytes).toBeLessThan(24 * 1024);
        for (const term of terms) {
          expect([...term.text].length).toBeLessThanOrEqual(MAX_TERM_LENGTH);
          // Compiling happens at first use: exercise it, as the snippet scorer does.
          expect(() => termRegExp(term).test(goal.slice(0, 5000))).not.toThrow();
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("rustPattern against the real rg", () => {
  const dir = mkdtempSync(join(tmpdir(), "ocp-rg-terms-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("escapes every regex meta character: rg finds the literal, and only where it is", async () => {
    const rg = (await findRipgrep()).path;
    const punctuation = fc.constantFrom(..."\\.+*?()|[]{}^$#&-~/'\"`!@%=:;,<>".split(""));
    const literal = fc
      .array(fc.oneof(punctuation, fc.constantFrom("a", "B", "7", "_", " ", "é")), { minLength: 2, maxLength: 12 })
      .map((chars) =>
        chars
          .join("")
          .replace(/^ +| +$/g, "")
          .replace(/ +/g, " "),
      )
      .filter((text) => [...text].length >= 2);
    fc.assert(
      fc.property(literal, (text) => {
        const term = { text, source: "phrase" as const, caseSensitive: true, wholeWord: false, weight: 1 };
        const file = join(dir, "probe.txt");
        writeFileSync(file, `before\nxx${text}yy\nafter\n`);
        const found = spawnSync(rg, ["--no-config", "-n", "-e", rustPattern(term), "--", file], { encoding: "utf8" });
        expect(found.status, found.stderr).toBe(0);
        expect(found.stdout).toBe(`2:xx${text}yy\n`);
      }),
      { numRuns: 60 },
    );
  });
});
