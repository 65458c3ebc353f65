import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type FileMatches, RgJsonCollector } from "./collect.js";
import { RgJsonStream } from "./rg-stream.js";

interface GenLine {
  number: number;
  data: string | Buffer;
  match: boolean;
  /** rg's `absolute_offset`; 0 when a test does not care. */
  offset?: number;
}
interface GenFile {
  path: string | Buffer;
  lines: GenLine[];
  binary: boolean;
}

/** rg's own JSON shape for a path or a line: text when UTF-8, base64 bytes otherwise. */
const data = (value: string | Buffer) =>
  typeof value === "string" ? { text: value } : { bytes: value.toString("base64") };

/** The messages rg writes for one file, in rg's field order. */
function messages(file: GenFile): string[] {
  const path = data(file.path);
  return [
    JSON.stringify({ type: "begin", data: { path } }),
    ...file.lines.map((line) =>
      JSON.stringify({
        type: line.match ? "match" : "context",
        data: {
          path,
          lines: data(line.data),
          line_number: line.number,
          absolute_offset: line.offset ?? 0,
          submatches: line.match ? [{ match: { text: "x" }, start: 0, end: 1 }] : [],
        },
      }),
    ),
    JSON.stringify({ type: "end", data: { path, binary_offset: file.binary ? 7 : null, stats: { matches: 1 } } }),
  ];
}

function collect(lines: string[], maxLineBytes: number, maxMatches = 1e9): RgJsonCollector {
  const collector = new RgJsonCollector({ maxLineBytes, maxMatches });
  for (const line of lines) collector.push(Buffer.from(line));
  return collector;
}

/** Feeds rg's stdout `bytes` to a collector through {@link RgJsonStream}, cut at `points` (ascending offsets). */
function collectStreamed(
  bytes: Buffer,
  points: number[],
  maxLineBytes: number,
  longLineCheck: number,
): RgJsonCollector {
  const collector = new RgJsonCollector({ maxLineBytes, maxMatches: 1e9 });
  const stream = new RgJsonStream(collector, { longLineCheck });
  let from = 0;
  for (const point of [...points, bytes.length]) {
    stream.write(bytes.subarray(from, point));
    from = point;
  }
  return collector;
}

const plain = (files: readonly FileMatches[]) =>
  files.map((file) => ({ ...file, pathBytes: file.pathBytes?.toString("hex"), lines: [...file.lines] }));

const lineText = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }).map((text) => `${text}\n`),
  fc.string({ unit: "grapheme-ascii", maxLength: 40 }).map((text) => `${text}\r\n`),
  fc.string({ unit: fc.constantFrom('"', "\\", "\u0001", "\t", "\r", "é", "🚀", "a", "/"), maxLength: 30 }),
  fc.uint8Array({ maxLength: 30 }).map((bytes) => Buffer.concat([Buffer.from([0xff]), Buffer.from(bytes)])),
);
const file = fc.record({
  path: fc.oneof(
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }).map((name) => `./${name}`),
    fc
      .uint8Array({ minLength: 1, maxLength: 8 })
      .map((bytes) => Buffer.concat([Buffer.from("./"), Buffer.from([0xfe]), Buffer.from(bytes)])),
  ),
  lines: fc
    .uniqueArray(fc.integer({ min: 1, max: 500 }), { maxLength: 12 })
    .chain((numbers) =>
      fc.tuple(
        ...numbers
          .sort((a, b) => a - b)
          .map((number) =>
            fc.record({ number: fc.constant(number), data: lineText, match: fc.boolean(), offset: fc.nat() }),
          ),
      ),
    ),
  binary: fc.boolean(),
});

describe("RgJsonCollector", () => {
  it("reads every line exactly: text, bytes decoded with U+FFFD, long lines blocked, binary files dropped", () => {
    fc.assert(
      fc.property(fc.array(file, { maxLength: 5 }), fc.integer({ min: 1, max: 60 }), (files, maxLineBytes) => {
        const collector = collect(files.flatMap(messages), maxLineBytes);
        const expected = files
          .filter((f) => !f.binary && f.lines.some((line) => line.match))
          .map((f) => {
            const bytes = typeof f.path === "string" ? undefined : f.path.subarray(2);
            return {
              path: typeof f.path === "string" ? f.path.replace(/^\.\//, "") : (bytes as Buffer).toString("utf8"),
              pathBytes: bytes?.toString("hex"),
              lines: f.lines.map((line) => {
                const raw = typeof line.data === "string" ? Buffer.from(line.data) : line.data;
                const text =
                  raw.length > maxLineBytes
                    ? undefined
                    : typeof line.data === "string"
                      ? line.data
                      : raw.toString("utf8");
                const offset = text === undefined ? -1 : line.offset;
                return [line.number, { text, lossy: typeof line.data !== "string", match: line.match, offset }];
              }),
              matchLines: f.lines.filter((line) => line.match).map((line) => line.number),
              lastLine: Math.max(...f.lines.map((line) => line.number)),
            };
          });
        // The collector gives its files ordered by path, then raw path bytes (two non-UTF-8 names can
        // decode alike), not as rg finished them; files equal in both keep their order.
        const byPath = [...expected].sort(
          (a, b) =>
            (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
            ((a.pathBytes ?? "") < (b.pathBytes ?? "") ? -1 : (a.pathBytes ?? "") > (b.pathBytes ?? "") ? 1 : 0),
        );
        expect(plain(collector.files)).toEqual(byPath);
        // The readers the ranking uses agree with the records, and with the lines rg did not return.
        for (const f of collector.files) {
          for (const [number, record] of f.lines) {
            expect(f.lines.text(number)).toBe(record.text);
            expect(f.lines.hasText(number)).toBe(record.text !== undefined);
            expect(f.lines.get(number)).toEqual(record);
          }
          expect(f.lines.get(0)).toBeUndefined();
          expect(f.lines.hasText(0)).toBe(false);
          expect(f.lines.text(f.lastLine + 1)).toBeUndefined();
        }
        expect(collector.matches).toBe(expected.reduce((sum, f) => sum + f.matchLines.length, 0));
        expect(collector.binary).toBe(files.filter((f) => f.binary).length);
      }),
    );
  });

  it("holds the lines of the files it keeps only: what rg prints past the match cap costs no memory", () => {
    // 2,000 files of 20 lines of 200 bytes, a cap of 100 match lines: five files are kept.
    const collector = new RgJsonCollector({ maxLineBytes: 1000, maxMatches: 100 });
    const text = `${"x".repeat(199)}\n`;
    for (let i = 0; i < 2000; i++) {
      const lines = Array.from({ length: 20 }, (_, n) => ({ number: n + 1, data: text, match: true }));
      for (const line of messages({ path: `./f${i}.ts`, lines, binary: false })) collector.push(Buffer.from(line));
    }
    expect(collector.files).toHaveLength(5);
    // rg printed ~8 MB of lines; the five files hold 5 × 20 × ~200 bytes, doubled at most by growth.
    expect(collector.heldBytes).toBeLessThan(5 * 20 * 210 * 2);
    expect(collector.heldBytes).toBeGreaterThanOrEqual(5 * 20 * 200);
  });

  it("leaves a line whose JSON string is invalid unread (it never ships) instead of throwing", () => {
    const path = '{"text":"./a.ts"}';
    const lines = [
      `{"type":"begin","data":{"path":${path}}}`,
      `{"type":"match","data":{"path":${path},"lines":{"text":"ok\\n"},"line_number":1,"absolute_offset":0,"submatches":[]}}`,
      // \\x is no JSON escape: rg never writes it, but a bad line must not fail the search.
      `{"type":"context","data":{"path":${path},"lines":{"text":"bad \\x\\n"},"line_number":2,"absolute_offset":3,"submatches":[]}}`,
      `{"type":"end","data":{"path":${path},"binary_offset":null,"stats":{}}}`,
    ];
    const collector = collect(lines, 100);
    expect(collector.files[0]?.lines.text(1)).toBe("ok\n");
    expect(collector.files[0]?.lines.text(2)).toBeUndefined();
  });

  it("gives the same answer when messages are written differently or interleaved (the fallback path)", () => {
    fc.assert(
      fc.property(
        fc.array(file, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 60 }),
        (files, maxLineBytes) => {
          const fast = collect(files.flatMap(messages), maxLineBytes);
          // A space after the type and escaped slashes defeat the byte-level reading; interleaving defeats "current file".
          const rewritten = files.map((f) =>
            messages(f).map((line) => line.replace('",', '", ').replaceAll("/", "\\/")),
          );
          const interleaved: string[] = [];
          for (let i = 0; rewritten.some((lines) => i < lines.length); i++) {
            for (const lines of rewritten) if (i < lines.length) interleaved.push(lines[i] as string);
          }
          const slow = collect(interleaved, maxLineBytes);
          // Same files in the same order: the order must not depend on how rg's output arrived.
          if (new Set(files.map((f) => data(f.path).text ?? data(f.path).bytes)).size === files.length) {
            expect(plain(slow.files)).toEqual(plain(fast.files));
          }
        },
      ),
    );
  });

  it("keeps exactly the best files that fit maxMatches, whatever order they arrive in, and never a half-read file", () => {
    const fileOf = (i: number, lines: number): GenFile => ({
      path: `./f${String(i).padStart(2, "0")}.ts`,
      lines: Array.from({ length: lines }, (_, n) => ({ number: n + 1, data: `x${n}\n`, match: true })),
      binary: false,
    });
    fc.assert(
      fc.property(
        fc.array(fc.record({ lines: fc.integer({ min: 1, max: 6 }), score: fc.integer({ min: 0, max: 3 }) }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.integer({ min: 1, max: 30 }),
        fc.infiniteStream(fc.nat()),
        (specs, cap, shuffle) => {
          const files = specs.map((spec, i) => ({ ...spec, file: fileOf(i, spec.lines) }));
          const scoreOf = new Map(files.map((f) => [String(f.file.path).slice(2), f.score]));
          const run = (order: typeof files) => {
            const collector = new RgJsonCollector({
              maxLineBytes: 100,
              maxMatches: cap,
              score: (file) => scoreOf.get(file.path) as number,
            });
            for (const line of order.flatMap((f) => messages(f.file)))
              expect(collector.push(Buffer.from(line))).toBe(true);
            return collector.files.map((file) => file.path);
          };
          const shuffled = [...files];
          const picks = shuffle.take(files.length);
          let i = 0;
          for (const pick of picks) {
            const j = i + (pick % (files.length - i));
            [shuffled[i], shuffled[j]] = [shuffled[j] as (typeof files)[number], shuffled[i] as (typeof files)[number]];
            i++;
          }
          // The expected set: in rank order (score, then path), the longest prefix that fits the cap.
          const ranked = [...files].sort(
            (a, b) => b.score - a.score || (String(a.file.path) < String(b.file.path) ? -1 : 1),
          );
          const expected: string[] = [];
          let held = 0;
          for (const f of ranked) {
            if (held + f.lines > cap) break;
            held += f.lines;
            expected.push(String(f.file.path).slice(2));
          }
          expect(run(shuffled)).toEqual(expected.sort());
          expect(run(files)).toEqual(expected.sort());
        },
      ),
    );
    const partial = new RgJsonCollector({ maxLineBytes: 100, maxMatches: 100 });
    for (const line of messages(fileOf(1, 2)).slice(0, -1)) partial.push(Buffer.from(line));
    expect(partial.files).toEqual([]);
  });

  it("reads a begin's path from its bytes only when it has no escape: quotes, backslashes and controls still decode", () => {
    // Each name as rg writes it inside a JSON string.
    const names = ["./plain/é🚀.ts", './q\\"uote.ts', "./back\\\\slash.ts", "./tab\\tand\\u0001.ts", "./x\\/y.ts"];
    const lines = names.flatMap((name) => {
      const path = `{"text":"${name}"}`;
      const line = `{"type":"match","data":{"path":${path},"lines":{"text":"a\\n"},"line_number":1,"absolute_offset":0,"submatches":[]}}`;
      const end = `{"type":"end","data":{"path":${path},"binary_offset":null,"stats":{}}}`;
      return [`{"type":"begin","data":{"path":${path}}}`, line, end];
    });
    const paths = collect(lines, 100).files.map((file) => file.path);
    expect(paths).toEqual(["back\\slash.ts", "plain/é🚀.ts", 'q"uote.ts', "tab\tand\u0001.ts", "x/y.ts"]);
  });

  it("reads a line's number and offset from its message's end even when its text imitates that end", () => {
    const path = '{"text":"./a.ts"}';
    const fake = '},"line_number":9,"absolute_offset":99,"submatches":[]}}';
    const lines = [
      `{"type":"begin","data":{"path":${path}}}`,
      `{"type":"context","data":{"path":${path},"lines":{"text":${JSON.stringify(`${fake}\n`)}},"line_number":3,"absolute_offset":40,"submatches":[]}}`,
      `{"type":"match","data":{"path":${path},"lines":{"text":"b\\n"},"line_number":4,"absolute_offset":98,"submatches":[{"match":{"text":"b"},"start":0,"end":1}]}}`,
      `{"type":"end","data":{"path":${path},"binary_offset":null,"stats":{}}}`,
    ];
    const [file] = collect(lines, 1000).files;
    expect([...(file?.lines ?? [])]).toEqual([
      [3, { text: `${fake}\n`, lossy: false, match: false, offset: 40 }],
      [4, { text: "b\n", lossy: false, match: true, offset: 98 }],
    ]);
  });

  it("skips lines that are not JSON", () => {
    const collector = collect(["not json", '{"type":"summary","data":{}}', "{"], 100);
    expect(collector.malformed).toBe(2);
    expect(collector.files).toEqual([]);
  });

  it("a stream split anywhere, long lines skipped as they arrive, gives what whole lines give", () => {
    const longText = fc
      .tuple(
        fc.string({ unit: fc.constantFrom("a", '"', "\\", "é", "\u0001"), minLength: 1, maxLength: 4 }),
        fc.integer({ min: 50, max: 400 }),
      )
      .map(([unit, times]) => `${unit.repeat(times)}\n`);
    const withLong = file.chain((f) =>
      fc.array(fc.tuple(fc.nat(f.lines.length), longText), { maxLength: 3 }).map((longs) => {
        const lines = f.lines.map((line) => ({ ...line }));
        for (const [i, text] of longs) if (lines[i] !== undefined) (lines[i] as GenLine).data = text;
        return { ...f, lines };
      }),
    );
    fc.assert(
      fc.property(
        fc.array(withLong, { maxLength: 4 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 16, max: 200 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (files, maxLineBytes, longLineCheck, cuts) => {
          const lines = files.flatMap(messages);
          const whole = collect(lines, maxLineBytes);
          const bytes = Buffer.from(lines.map((line) => `${line}\n`).join(""));
          const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          const streamed = collectStreamed(bytes, points, maxLineBytes, longLineCheck);
          expect(plain(streamed.files)).toEqual(plain(whole.files));
          expect(streamed.malformed).toBe(0);
        },
      ),
    );
  });

  it("keeps a short line whose head stops inside its line-number marker, and a skipped bytes line lossy", () => {
    // The property's seed 158416398: a one-byte non-UTF-8 line is `…,"lines":{"bytes":"/w=="},"line_number":42,…`
    // and the stream was cut after `"/w=="},`, past longLineCheck. With no whole marker in the head, the 7 bytes
    // `/w=="},` were taken for an unfinished value longer than 6 × maxLineBytes and the line was skipped as too
    // long: no text, and not lossy. Line 43 is the same trap for a text line. Line 44 (44 base64 bytes) really is
    // long: skipped, it must still be lossy, as it is when read whole. Every other single cut must agree too.
    const lines = messages({
      path: Buffer.from([0x2e, 0x2f, 0xfe]),
      lines: [
        { number: 42, data: Buffer.from([0xff]), match: false },
        { number: 43, data: "x", match: true },
        { number: 44, data: Buffer.alloc(31, 0xff), match: false },
      ],
      binary: false,
    });
    const bytes = Buffer.from(lines.map((line) => `${line}\n`).join(""));
    const seedCut = bytes.indexOf('"/w=="},') + 8;
    expect([...(collectStreamed(bytes, [seedCut], 1, 16).files[0]?.lines ?? [])]).toEqual([
      [42, { text: "\ufffd", lossy: true, match: false, offset: 0 }],
      [43, { text: "x", lossy: false, match: true, offset: 0 }],
      [44, { text: undefined, lossy: true, match: false, offset: -1 }],
    ]);
    const whole = plain(collect(lines, 1).files);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(plain(collectStreamed(bytes, [cut], 1, 16).files), `cut at ${cut}`).toEqual(whole);
    }
  });
});
