import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { proseTerms } from "./prose.js";
import { goalHead, MAX_GOAL_CHARS, queryTerms } from "./terms.js";

const names = (text: string) => queryTerms(text).names.map((term) => term.qualified?.text ?? term.name);

describe("queryTerms", () => {
  it("keeps identifiers and drops English function words", () => {
    expect(names("Where is Config.retry defined?")).toEqual(["Config.retry"]);
    expect(names("how does the provider pack frames")).toEqual(["provider", "pack", "frames"]);
    expect(names("find parse_config and HTTPServer")).toEqual(["find", "parse_config", "HTTPServer"]);
  });

  it("keeps a function word written as code", () => {
    expect(names("what does `where` do")).toEqual(["where"]);
    expect(names("the Config::load() method")).toEqual(["Config.load"]);
  });

  it("reads kinds and file names as hints, not terms", () => {
    const terms = queryTerms("the Config class in config.ts");
    expect(terms.names.map((term) => term.name)).toEqual(["Config"]);
    expect([...terms.kinds]).toEqual(["class"]);
    expect([...terms.files]).toEqual(["config.ts"]);
  });

  it("searches a lone function word as written, but not a sentence of them", () => {
    expect(names("type")).toEqual(["type"]);
    expect(queryTerms("type").kinds.size).toBe(0);
    expect(names("what is in here")).toEqual([]);
  });

  it("runs consecutive terms together as phrases", () => {
    expect(queryTerms("pack frames budget").phrases).toEqual([
      { compact: "packframes", size: 2 },
      { compact: "framesbudget", size: 2 },
      { compact: "packframesbudget", size: 3 },
    ]);
  });

  it("takes at most twelve terms, without duplicates", () => {
    const many = Array.from({ length: 30 }, (_, i) => `name${i}`).join(" ");
    expect(queryTerms(many).names).toHaveLength(12);
    expect(names("retry retry Retry")).toEqual(["retry", "Retry"]);
  });
});

describe("what is read of a goal", () => {
  /** Goals of code and prose words, up to several times what is read. */
  const goal = fc
    .array(
      fc.oneof(
        fc.constantFrom("Config.retry", "parse_config", "HTTPServer", "the", "class", "config.ts", "frames", "pack"),
        fc.stringMatching(/^[a-zA-Z_]{1,12}$/),
        fc.constantFrom(" ", "\n", ", ", "`"),
      ),
      { maxLength: 6000, size: "max" },
    )
    .map((words) => words.join(" "));
  const tail = fc.string({ unit: "grapheme", maxLength: 80 });

  it("reads at most MAX_GOAL_CHARS characters, cut between words: what follows changes nothing", () => {
    fc.assert(
      fc.property(goal, tail, (text, more) => {
        const head = goalHead(text);
        expect(text.startsWith(head)).toBe(true);
        expect(head.length).toBeLessThanOrEqual(MAX_GOAL_CHARS);
        if (text.length <= MAX_GOAL_CHARS) expect(head).toBe(text);
        else {
          // However long the goal, the terms (names, phrases, kinds, files) and prose words come from its head.
          expect(queryTerms(text + more)).toEqual(queryTerms(head));
          expect(proseTerms(text + more)).toEqual(proseTerms(head));
        }
      }),
      { numRuns: 40, endOnFailure: true }, // shrinking goals of thousands of words takes minutes
    );
  });
});
