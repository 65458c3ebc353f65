import { describe, expect, it } from "vitest";
import { fold } from "./fold.js";

describe("fold", () => {
  it("lower-cases and drops diacritics, keeping everything else", () => {
    expect(fold("Zoë Müller, Café Ångström in Kraków — Ærø & São Tomé")).toBe(
      "zoe muller, cafe angstrom in krakow — ærø & sao tome",
    );
    expect(fold("Plain ASCII, 42 words!")).toBe("plain ascii, 42 words!");
    expect(fold("東京 Ελλάδα")).toBe("東京 ελλαδα");
  });
});
