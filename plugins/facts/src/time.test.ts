import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FACT_ERRORS } from "./errors.js";
import { formatDay, formatTime, MAX_TIME, MIN_TIME, parseTime } from "./time.js";

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const anyTime = fc.integer({ min: MIN_TIME, max: MAX_TIME });

/** `ms` written as local time at `offsetMinutes` east of UTC: another spelling of the same instant. */
function withOffset(ms: number, offsetMinutes: number): string {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

describe("times", () => {
  it("formats every representable instant as RFC 3339 UTC that parses back to it", () => {
    fc.assert(
      fc.property(anyTime, (ms) => {
        const text = formatTime(ms);
        expect(text).toMatch(RFC3339_UTC);
        expect(parseTime(text, "t")).toBe(ms);
      }),
    );
  });

  it("reads any UTC offset as the same instant", () => {
    const offset = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });
    const inRange = fc.integer({ min: MIN_TIME + 86_400_000, max: MAX_TIME - 86_400_000 });
    fc.assert(
      fc.property(inRange, offset, (ms, minutes) => {
        expect(parseTime(withOffset(ms, minutes), "t")).toBe(ms);
      }),
    );
  });

  it("floors fractions to the millisecond, accepts lower-case t/z and bare dates", () => {
    expect(parseTime("2024-01-01T00:00:00.123999999Z", "t")).toBe(Date.UTC(2024, 0, 1) + 123);
    expect(parseTime("2024-01-01T00:00:00.5Z", "t")).toBe(Date.UTC(2024, 0, 1) + 500);
    expect(parseTime("2024-01-01t10:00:00z", "t")).toBe(Date.UTC(2024, 0, 1, 10));
    expect(parseTime("2024-02-29", "t")).toBe(Date.UTC(2024, 1, 29));
    expect(parseTime("0001-01-01", "t")).toBe(new Date("0001-01-01T00:00:00Z").getTime());
    expect(parseTime(new Date("2024-05-01T00:00:00Z"), "t")).toBe(Date.UTC(2024, 4, 1));
  });

  it.each([
    ["2023-02-29", /2023-02 has no day 29/],
    ["2024-04-31", /has no day 31/],
    ["2024-00-10", /month 00/],
    ["2024-01-01T24:00:00Z", /hour 24/],
    ["2024-01-01T10:60:00Z", /minute 60/],
    ["2016-12-31T23:59:60Z", /leap seconds/],
    ["2024-01-01T10:00:00", /UTC offset/],
    ["2024-01-01T10:00:00+24:00", /offset \+24:00/],
    ["2024-01-01 10:00:00Z", /RFC 3339/],
    ["10000-01-01", /RFC 3339/],
    ["0000-01-01T00:00:00+00:01", /outside the years/],
    ["", /RFC 3339/],
    ["now", /RFC 3339/],
  ])("refuses %j with a message naming the problem", (text, message) => {
    expect(() => parseTime(text, "valid_from")).toThrow(
      expect.objectContaining({ code: FACT_ERRORS.BAD_TIME, message: expect.stringMatching(message) }),
    );
    expect(() => parseTime(text, "valid_from")).toThrow(/^valid_from: /);
  });

  it("refuses an invalid Date and a non-string", () => {
    expect(() => parseTime(new Date("nope"), "at")).toThrow(/invalid/);
    expect(() => parseTime(42 as unknown as string, "at")).toThrow(/RFC 3339/);
  });

  it("shows midnight UTC as a date for citations, anything else in full", () => {
    expect(formatDay(Date.UTC(2024, 0, 1))).toBe("2024-01-01");
    expect(formatDay(Date.UTC(2024, 0, 1, 9, 30))).toBe("2024-01-01T09:30:00Z");
    expect(formatTime(Date.UTC(2024, 0, 1, 0, 0, 0, 7))).toBe("2024-01-01T00:00:00.007Z");
  });
});
