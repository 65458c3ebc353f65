import { describe, expect, it } from "vitest";
import { useColor } from "./color.js";

const tty = { isTTY: true };
const pipe = { isTTY: false };

describe("useColor", () => {
  it("colours a terminal, not a pipe, not TERM=dumb", () => {
    expect(useColor(tty, {})).toBe(true);
    expect(useColor(pipe, {})).toBe(false);
    expect(useColor(tty, { TERM: "dumb" })).toBe(false);
  });

  it("NO_COLOR (not empty) turns it off, even with FORCE_COLOR", () => {
    expect(useColor(tty, { NO_COLOR: "1" })).toBe(false);
    expect(useColor(pipe, { NO_COLOR: "1", FORCE_COLOR: "1" })).toBe(false);
    expect(useColor(tty, { NO_COLOR: "" })).toBe(true);
  });

  it("FORCE_COLOR turns it on without a terminal; 0 and false turn it off", () => {
    expect(useColor(pipe, { FORCE_COLOR: "1" })).toBe(true);
    expect(useColor(pipe, { FORCE_COLOR: "" })).toBe(true);
    expect(useColor(tty, { FORCE_COLOR: "0" })).toBe(false);
    expect(useColor(tty, { FORCE_COLOR: "false" })).toBe(false);
  });
});
