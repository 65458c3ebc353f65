import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shellWord, shownText } from "./terminal-text.js";

const UNSAFE = /[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/u;

/** Names as a checkout may hold them: quotes, `$(…)`, spaces, controls, bidi overrides; never NUL. */
const name = fc
  .array(
    fc.oneof(
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 6 }),
      fc.constantFrom(
        "'",
        '"',
        "$(touch x)",
        "`id`",
        " ",
        "\\",
        "-",
        "!",
        "*",
        "~",
        "\n",
        "\u001b[2J",
        "\u202e",
        "\u2028",
      ),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((parts) => parts.join("").replaceAll("\0", ""))
  .filter((text) => text !== "");

describe("shellWord", () => {
  it("is read back by bash as exactly the name (./ before a leading dash), and shows no control character", () => {
    const names = fc.sample(name, 300);
    const words = names.map(shellWord);
    for (const word of words) expect(UNSAFE.test(word)).toBe(false);
    // One real shell for all of them: each word printed as bash reads it, NUL-separated.
    const script = `printf '%s\\0' ${words.join(" ")}`;
    const read = execFileSync("bash", ["-c", script], { env: { ...process.env, LC_ALL: "C.UTF-8" }, encoding: "utf8" });
    expect(read.split("\0").slice(0, -1)).toEqual(names.map((text) => (text.startsWith("-") ? `./${text}` : text)));
  });

  it("leaves a plain path bare and single-quotes one with spaces or quotes", () => {
    expect(shellWord("team-docs")).toBe("team-docs");
    expect(shellWord("../my providers/it's")).toBe("'../my providers/it'\\''s'");
    expect(shellWord("-rf")).toBe("./-rf");
  });
});

describe("shownText", () => {
  it("writes each control, separator and bidi character as its escape, and leaves clean text as it is", () => {
    fc.assert(
      fc.property(name, (text) => {
        const shown = shownText(text);
        expect(UNSAFE.test(shown)).toBe(false);
        if (!UNSAFE.test(text)) expect(shown).toBe(text);
      }),
    );
    expect(shownText("invoice\u202etxt.exe")).toBe("invoice\\u202etxt.exe");
    expect(shownText("\u001b[2Jwipe\n")).toBe("\\u001b[2Jwipe\\n");
  });
});
