import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fold } from "./fold.js";
import { MAX_GOAL_CHARS, queryTerms } from "./search.js";

describe("queryTerms", () => {
  it("reads a goal's first MAX_GOAL_CHARS characters, cut between words: what follows changes nothing", () => {
    // Goals of few distinct words, up to several times what is read: their terms run out before their text.
    const goal = fc
      .array(
        fc.oneof(
          fc.constantFrom("the", "what", "Deploy", "release", "branch", "İstanbul", "2024"),
          fc.integer({ min: 0, max: 20 }),
        ),
        {
          maxLength: 4000,
          size: "max",
        },
      )
      .map((words) => words.map(String).join(" "));
    const more = fc
      .array(fc.stringMatching(/^[a-z]{3,9}$/), { minLength: 1, maxLength: 5 })
      .map((w) => ` ${w.join(" ")}`);
    fc.assert(
      fc.property(goal, more, (text, tail) => {
        const terms = queryTerms(text);
        expect(new Set(terms).size).toBe(terms.length);
        if (text.length > MAX_GOAL_CHARS) {
          const head = text.slice(0, MAX_GOAL_CHARS).replace(/\s\S*$/, "");
          expect(queryTerms(text + tail)).toEqual(queryTerms(head));
        } else if (terms.length < 32 && text.length + tail.length <= MAX_GOAL_CHARS) {
          // A goal shorter than that is read whole: the tail's first term is among its terms (the
          // tail's first word may be a stop word, "the", which is no term anywhere).
          expect(queryTerms(text + tail)).toEqual(expect.arrayContaining(queryTerms(tail).slice(0, 1)));
        }
      }),
      { endOnFailure: true },
    );
  });

  it("never cuts a word at a combining mark: folded, a goal's terms hold the folded goal's", () => {
    // Letters whose lower case or decomposition carries a combining mark, among plain ones.
    const letter = fc.constantFrom(..."aeiosntİIıßÉéèëÅåøÖöüçÇŞşĞğŁłÑñ");
    const word = fc.array(letter, { minLength: 1, maxLength: 8 }).map((letters) => letters.join(""));
    const goal = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(" "));
    fc.assert(
      fc.property(goal, (text) => {
        const folded = new Set(queryTerms(text).map(fold));
        for (const term of queryTerms(fold(text))) expect(folded).toContain(term);
        expect(queryTerms(text).length).toBeLessThanOrEqual(text.split(" ").length);
      }),
    );
    expect(queryTerms("Where is the İstanbul office?").map(fold)).toEqual(["istanbul", "office"]);
  });
});
