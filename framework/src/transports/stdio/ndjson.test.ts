import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type FrameEvent, LineSplitter } from "./ndjson.js";

const encode = (text: string) => new TextEncoder().encode(text);

/** Feeds `bytes` split at `cuts` and collects every event, end included. */
function frame(bytes: Uint8Array, cuts: number[], maxLineBytes = 1 << 20): FrameEvent[] {
  const splitter = new LineSplitter(maxLineBytes);
  const events: FrameEvent[] = [];
  let start = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    events.push(...splitter.push(bytes.subarray(start, cut)));
    start = cut;
  }
  events.push(...splitter.push(bytes.subarray(start)), ...splitter.end());
  return events;
}

/** The lines a correct splitter must produce, computed the obvious way on the whole text. */
function expectedLines(text: string): FrameEvent[] {
  return text
    .split("\n")
    .map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))
    .filter((line) => line.trim() !== "")
    .map((line) => ({ type: "line", text: line }));
}

describe("LineSplitter", () => {
  it("yields the same lines for any split of the byte stream", () => {
    const line = fc.string({ unit: "grapheme", maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, ""));
    const stream = fc.array(fc.tuple(line, fc.constantFrom("\n", "\r\n", "\n\n", "\r\n\r\n")), { maxLength: 12 });
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 20 }), (parts, rawCuts) => {
        const text = parts.map(([content, end]) => content + end).join("");
        const bytes = encode(text);
        const cuts = rawCuts.map((cut) => (bytes.length === 0 ? 0 : cut % bytes.length));
        expect(frame(bytes, cuts)).toEqual(expectedLines(text));
      }),
      { numRuns: 500 },
    );
  });

  it("does not mangle a multi-byte character split between chunks", () => {
    const bytes = encode('{"goal":"日本語 🎉"}\n');
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(frame(bytes, [cut])).toEqual([{ type: "line", text: '{"goal":"日本語 🎉"}' }]);
    }
  });

  it("strips CRLF, skips blank and whitespace-only lines, and keeps a last line without newline", () => {
    expect(frame(encode("a\r\n\r\n  \t\nb\n\nc"), [])).toEqual([
      { type: "line", text: "a" },
      { type: "line", text: "b" },
      { type: "line", text: "c" },
    ]);
  });

  it("reports an overlong line once and resynchronises at the next newline", () => {
    const long = "x".repeat(100);
    for (const cuts of [[], [10, 50, 99], [101, 102]]) {
      expect(frame(encode(`ok1\n${long}\nok2\n`), cuts, 64)).toEqual([
        { type: "line", text: "ok1" },
        { type: "overflow", limit: 64 },
        { type: "line", text: "ok2" },
      ]);
    }
  });

  it("accepts a line of exactly the limit, with or without CR", () => {
    const exact = "y".repeat(64);
    expect(frame(encode(`${exact}\n${exact}\r\n`), [], 64)).toEqual([
      { type: "line", text: exact },
      { type: "line", text: exact },
    ]);
    expect(frame(encode(`${exact}z\n`), [], 64)).toEqual([{ type: "overflow", limit: 64 }]);
  });

  it("does not keep a reference to the caller's chunk buffer", () => {
    const splitter = new LineSplitter(1024);
    const chunk = encode("abc");
    splitter.push(chunk);
    chunk.fill(0x7a);
    expect(splitter.push(encode("\n"))).toEqual([{ type: "line", text: "abc" }]);
  });
});
