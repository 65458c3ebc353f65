/**
 * What a client sends never shapes the provider's log: every message is one line with
 * its control, separator and bidi characters escaped — whichever plugin or part of the
 * framework logs it. And a plugin that finds the query unusable answers it as invalid.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeLine, hasUnsafeDisplayText } from "./display-text.js";
import { InvalidQueryError, UserError } from "./errors.js";
import { createLogger } from "./logger.js";
import { definePlugin } from "./plugin.js";
import { defineProvider } from "./provider.js";

const NASTY = [
  "\n",
  "\r\n",
  "\t",
  "\u0000",
  "\u001b[2J",
  "\u009b31m",
  "\u2028",
  "\u2029",
  "\u200f",
  "\u202e",
  "\u2066",
];
const anyText = fc
  .array(fc.oneof(fc.string({ unit: "binary", maxLength: 6 }), fc.constantFrom(...NASTY)), { maxLength: 12 })
  .map((parts) => parts.join(""));

/** Reads the escapes back: for text without backslashes of its own, the original. */
const readEscapes = (text: string) =>
  text.replace(/\\(n|r|t|u([0-9a-f]{4}))/g, (_, kind: string, hex?: string) =>
    kind === "n"
      ? "\n"
      : kind === "r"
        ? "\r"
        : kind === "t"
          ? "\t"
          : String.fromCharCode(Number.parseInt(hex as string, 16)),
  );

describe("escapeLine", () => {
  it("leaves no unsafe character, and loses nothing: the escapes read back to the text", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const line = escapeLine(text);
        expect(hasUnsafeDisplayText(line), JSON.stringify(line)).toBe(false);
        if (!text.includes("\\")) expect(readEscapes(line)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it("returns a clean string as it is", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 40 }).filter((text) => !hasUnsafeDisplayText(text)),
        (text) => {
          expect(escapeLine(text)).toBe(text);
        },
      ),
    );
  });

  it("spells what it escapes as JavaScript would", () => {
    expect(escapeLine("a\nb\r\tc\u001b[2J\u202eC:\\tmp")).toBe("a\\nb\\r\\tc\\u001b[2J\\u202eC:\\tmp");
  });
});

/** A logger whose lines are collected, and the lines. */
function capture() {
  const writes: string[] = [];
  return {
    writes,
    logger: createLogger({ name: "p", level: "debug", stream: { write: (text) => writes.push(text) } }),
  };
}

describe("the logger", () => {
  it("writes every message as exactly one line, escaped", () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom("error", "warn", "info", "debug") as fc.Arbitrary<"error">, (text, at) => {
        const { writes, logger } = capture();
        logger[at](text);
        expect(writes).toHaveLength(1);
        const written = writes[0] as string;
        expect(written.endsWith("\n")).toBe(true);
        expect(hasUnsafeDisplayText(written.slice(0, -1)), JSON.stringify(written)).toBe(false);
        expect(written).toBe(`[p] ${at}: ${escapeLine(text)}\n`);
      }),
    );
  });
});

const forged = "x\u001b[2J\n[p] error: forged line\u202e";
const query = (goal: string) => ({ goal, kinds: [], anchors: [], max_frames: 3, max_tokens: 500 });

describe("what a query carries into the log", () => {
  it("stays on its line, whichever plugin or framework part logs it", async () => {
    const { writes, logger } = capture();
    const provider = defineProvider({
      name: "p",
      version: "1.0.0",
      dataFlow: { reads: true, writes: false, egress: false },
      logger,
      plugins: [
        definePlugin({
          name: "chatty",
          kinds: ["doc"],
          search: (q, ctx) => {
            ctx.log.info(`searching for ${q.goal}`);
            return [{ content: "ok", relevance: 1, title: "T" }];
          },
        }),
        definePlugin({
          name: "refuses",
          kinds: ["doc"],
          search: (q) => {
            throw new UserError(`nothing about ${q.goal}`);
          },
        }),
        definePlugin({
          name: "crashes",
          kinds: ["doc"],
          search: (q) => {
            throw new Error(`cannot search ${q.goal}`);
          },
        }),
      ],
    });
    await provider.query(query(forged));
    await provider.close();
    const logged = writes.join("");
    expect(logged).toContain("x\\u001b[2J\\n[p] error: forged line\\u202e");
    expect(logged).not.toContain("\u001b");
    expect(logged.split("\n").filter((line) => line.startsWith("[p] error: forged"))).toEqual([]);
    for (const write of writes) expect(write.indexOf("\n")).toBe(write.length - 1);
  });
});

describe("a plugin's InvalidQueryError", () => {
  const provider = (searches: ((goal: string) => never | { content: string; relevance: number }[])[]) =>
    defineProvider({
      name: "p",
      version: "1.0.0",
      dataFlow: { reads: true, writes: false, egress: false },
      logger: capture().logger,
      plugins: searches.map((search, i) =>
        definePlugin({ name: `p${i}`, kinds: ["doc"], search: (q) => search(q.goal) }),
      ),
    });
  const invalid = () => {
    throw new InvalidQueryError("as_of: '2024-02-30' is not a usable time");
  };

  it("answers the query as invalid when every plugin found it so", async () => {
    const error = await provider([invalid, invalid])
      .query(query("g"))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidQueryError);
    expect((error as Error).message).toMatch(/^invalid query: as_of: '2024-02-30'/);
    expect((error as Error).message).not.toMatch(/invalid query: invalid query/);
  });

  it("is not the whole answer when another plugin answered, or failed for its own reasons", async () => {
    const answered = await provider([invalid, () => [{ content: "still here", relevance: 1 }]]).query(query("g"));
    expect(answered.frames.map((frame) => frame.content)).toEqual(["still here"]);
    const broken = () => {
      throw new UserError("index is being rebuilt");
    };
    const error = await provider([invalid, broken])
      .query(query("g"))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UserError);
    expect(error).not.toBeInstanceOf(InvalidQueryError);
  });
});
