/**
 * The tests of one open model family's counter, against the family package's own
 * tokenizer (`fromPreTrained().encode(text, { add_special_tokens: false })`), loaded
 * through the package's own entry point — not through our loader. One test file per
 * family calls {@link describeFamily}, so vitest can spread the families' vocabularies
 * (seconds to load, each) over its workers.
 *
 * Test-only (framework/tsconfig.json keeps test-support out of the build).
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { createTokenCounter } from "../tokens/counter.js";
import {
  type FamilyName,
  type FamilyTokenizer,
  familyTokenizer,
  isFamilyLoaded,
  unloadFamily,
} from "../tokens/families.js";
import { tokenizerSpec } from "../tokens/registry.js";
import { checkExact, checkPackerBudget, checkUpperBound } from "./tokenizer-properties.js";

const require = createRequire(import.meta.url);

/** A family package's entry point, as its readme documents it. */
interface FamilyPackage {
  fromPreTrained(params?: { tokenizerJSON?: { added_tokens?: unknown[] } }): FamilyTokenizer;
  tokenizerJSON: { added_tokens: { content: string; id: number; special?: boolean }[] };
}

/** Generated strings per property: thousands for exactness, fewer where each run packs a pool. */
const EXACT_RUNS = 2500;
const BOUND_RUNS = 1000;
const PACK_RUNS = 150;

/** Code points whose NFC form is longer in UTF-8 than they are (composition exclusions and singletons). */
function nfcLengthening(): string[] {
  const found: string[] = [];
  for (let point = 0x80; point <= 0x10ffff; point++) {
    if (point >= 0xd800 && point <= 0xdfff) continue;
    const text = String.fromCodePoint(point);
    if (Buffer.byteLength(text.normalize("NFC")) > Buffer.byteLength(text)) found.push(text);
  }
  return found;
}

/** Gemma's decoder spells `▁` as a space, whatever the text held: compare decoded text with that undone. */
const spaced = (text: string) => text.replaceAll("▁", " ");

/** Registers the tests of `name`'s counter. */
export function describeFamily(name: FamilyName): void {
  const pkg = tokenizerSpec(name).package as { name: string };
  describe(`${name} (${pkg.name})`, { timeout: 180_000 }, () => {
    const counter = createTokenCounter({ tokenizer: name });
    const fresh = createTokenCounter({ tokenizer: name, cacheSize: 0 });

    it("loads nothing until it first counts", () => {
      // Another test file in this worker, or a test before this one, may have counted in this
      // family (unit tests share their process): start from a process that has not, with a
      // counter that has not.
      unloadFamily(name);
      const unused = createTokenCounter({ tokenizer: name });
      expect(isFamilyLoaded(name)).toBe(false);
      expect(unused.upperBound("some text")).toBeGreaterThan(0);
      expect(unused.surelyFits("x", 100)).toBe(true);
      expect(isFamilyLoaded(name)).toBe(false);
      expect(unused.count("x")).toBeGreaterThan(0);
      expect(isFamilyLoaded(name)).toBe(true);
    });

    const own = (require(pkg.name) as FamilyPackage).fromPreTrained();
    const ownCount = (text: string) => own.encode(text, { add_special_tokens: false }).length;
    const ownJson = (require(pkg.name) as FamilyPackage).tokenizerJSON;
    const specials = ownJson.added_tokens.filter((token) => token.special === true);
    const specialIds = new Set(specials.map((token) => token.id));
    // Every special token is tried below; the generated strings mix in a handful.
    const sample = specials.slice(0, 12).map((token) => token.content);

    it("counts exactly what the package's own encode counts, on thousands of generated strings", () => {
      checkExact(fresh, ownCount, EXACT_RUNS);
    });

    it("counts every special token's text as plain text: several ordinary tokens, never the special one", () => {
      const plain = familyTokenizer(name);
      expect(specials.length).toBeGreaterThan(0);
      for (const { content } of specials) {
        // The package's own encode reads it as the one special token, even without add_special_tokens.
        expect(ownCount(content), content).toBe(1);
        const ids = plain.encode(content, { add_special_tokens: false });
        expect(ids.length, content).toBeGreaterThan(1);
        expect(fresh.count(content), content).toBe(ids.length);
        expect(
          ids.some((id) => specialIds.has(id)),
          content,
        ).toBe(false);
        expect(spaced(plain.decode(ids)), content).toBe(spaced(content));
      }
    });

    it("counts text holding special-token text as the package's own tokenizer does once those tokens are plain", () => {
      let ownPlain: FamilyTokenizer | undefined = (require(pkg.name) as FamilyPackage).fromPreTrained({
        tokenizerJSON: { added_tokens: ownJson.added_tokens.filter((token) => token.special !== true) },
      });
      const plainCount = (text: string) =>
        (ownPlain as FamilyTokenizer).encode(text, { add_special_tokens: false }).length;
      checkExact(fresh, plainCount, EXACT_RUNS, sample);
      const chat = `${sample.join("user\nhello ")} 日本語 👍🏽\n\n  x`;
      expect(fresh.count(chat)).toBe(plainCount(chat));
      expect(fresh.count(chat)).toBeGreaterThan(ownCount(chat));
      ownPlain = undefined;
    });

    it("keeps its upper bound: never below the count, subadditive, agreeing with surelyFits", () => {
      checkUpperBound(counter, BOUND_RUNS, sample);
    });

    it("keeps its upper bound on every code point NFC lengthens, alone, repeated and after a base", () => {
      const lengthening = nfcLengthening();
      expect(lengthening.length).toBeGreaterThan(50);
      for (const text of [...lengthening, lengthening.join(""), lengthening.join(" "), `a${lengthening.join("a")}`]) {
        expect(fresh.count(text), text).toBeLessThanOrEqual(counter.upperBound(text));
      }
      // Reordered marks block a composition: NFC makes this 5 bytes from 4.
      for (const text of ["\u00e1\u0323", "\u00e1\u0323".repeat(50)]) {
        expect(fresh.count(text)).toBeLessThanOrEqual(counter.upperBound(text));
      }
    });

    it("packs within budget in this tokenizer, every cost exact", () => {
      checkPackerBudget(counter, (text) => fresh.count(text), PACK_RUNS, sample);
    });
  });
}
