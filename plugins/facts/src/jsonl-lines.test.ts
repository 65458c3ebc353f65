import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type JsonlLine, MAX_LINE, splitLines } from "./jsonl-lines.js";

async function collect(chunks: readonly string[], max?: number): Promise<JsonlLine[]> {
  const lines: JsonlLine[] = [];
  for await (const line of splitLines(Readable.from(chunks), max)) lines.push(line);
  return lines;
}

/** The lines readline finds (as the import once read them), numbered. */
async function readlineLines(chunks: readonly string[]): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: Readable.from(chunks), crlfDelay: Number.POSITIVE_INFINITY })) {
    lines.push(line);
  }
  return lines;
}

/** Text cut into chunks at arbitrary places: a \r\n may be split between two. */
const chunked = fc
  .array(fc.constantFrom("a", "bc", "\n", "\r", "\r\n", "é", "😀", " ", '{"id":1}'), { maxLength: 60 })
  .chain((pieces) => {
    const text = pieces.join("");
    return fc.uniqueArray(fc.nat({ max: text.length }), { maxLength: 6 }).map((cuts) => {
      const at = [0, ...cuts.sort((a, b) => a - b), text.length];
      return at.slice(1).map((end, i) => text.slice(at[i], end));
    });
  });

describe("splitLines", () => {
  it("ends lines where readline does (\\n, \\r\\n across chunks, a lone \\r), whatever the chunking", async () => {
    await fc.assert(
      fc.asyncProperty(chunked, async (chunks) => {
        const expected = (await readlineLines(chunks)).map((text, i) => ({ number: i + 1, text }));
        expect(await collect(chunks)).toEqual(expected);
      }),
    );
  });

  it("holds at most `max` characters of a line: a longer one comes out as its length alone", async () => {
    await fc.assert(
      fc.asyncProperty(chunked, fc.integer({ min: 0, max: 12 }), async (chunks, max) => {
        const expected = (await readlineLines(chunks)).map((text, i) =>
          text.length > max ? { number: i + 1, length: text.length } : { number: i + 1, text },
        );
        expect(await collect(chunks, max)).toEqual(expected);
      }),
    );
  });

  it("reads a line far over the bound, streamed, without keeping it, and goes on with the next", async () => {
    const mebibyte = "x".repeat(1 << 20);
    async function* stream() {
      yield '{"id":1}\n';
      for (let i = 0; i < 40; i++) yield mebibyte; // 40 MiB on one line
      yield '\n{"id":2}';
    }
    const lines: JsonlLine[] = [];
    for await (const line of splitLines(stream())) lines.push(line);
    expect(lines).toEqual([
      { number: 1, text: '{"id":1}' },
      { number: 2, length: 40 << 20 },
      { number: 3, text: '{"id":2}' },
    ]);
    expect(MAX_LINE).toBe(1_048_576);
  });
});
