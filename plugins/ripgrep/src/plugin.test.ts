/**
 * The plugin end to end in one process, on a real fixture tree with real rg:
 * what it returns, what it never returns, and what it never does.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type ContextFrame,
  type ContextQueryResult,
  createTokenCounter,
  type Provider,
  silentLogger,
  UserError,
} from "ocp-provider";
import { afterAll, describe, expect, it } from "vitest";
import { describeSearch } from "./plugin.js";
import { type RipgrepProviderOptions, ripgrepProvider } from "./provider.js";
import { findRipgrep } from "./rg-binary.js";
import { createFixtureTree, LATIN1_BYTES, linkFollowingRg, verifyAgainstDisk } from "./test-support/fixture-tree.js";

const tree = createFixtureTree();
const providers: Provider[] = [];
const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(providers.map((provider) => provider.close()));
  tree.remove();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});
const counter = createTokenCounter();

function provider(options: Partial<RipgrepProviderOptions> = {}): Provider {
  const made = ripgrepProvider({ root: tree.root, logger: silentLogger, ...options });
  providers.push(made);
  return made;
}

function ask(
  on: Provider,
  query: { goal?: string; query_text?: string; anchors?: string[]; max_tokens?: number; max_frames?: number },
) {
  return on.query({
    goal: query.goal ?? query.query_text ?? "",
    query_text: query.query_text,
    anchors: query.anchors ?? [],
    kinds: [],
    max_tokens: query.max_tokens ?? 20_000,
    max_frames: query.max_frames ?? 50,
  });
}

const paths = (result: ContextQueryResult) =>
  result.frames.map((frame) => frame.citation_label?.replace(/ L\d+(-\d+)?$/, ""));

/** Budget honesty, exact costs, and content + digest re-read from disk, for every frame. */
function checkHonest(result: ContextQueryResult, maxTokens: number, root = tree.root): void {
  const rootUri = `${pathToFileURL(realpathSync(root)).href}/`;
  expect(result.frames.reduce((sum, frame) => sum + frame.token_cost, 0)).toBeLessThanOrEqual(maxTokens);
  for (const frame of result.frames) {
    expect(frame.kind).toBe("snippet");
    expect(frame.token_cost).toBe(counter.count(frame.content));
    expect(frame.score).toBeGreaterThan(0);
    expect(frame.score).toBeLessThanOrEqual(1);
    expect(frame.title.trim()).not.toBe("");
    expect(frame.citation_label).toMatch(/ L\d+(-\d+)?$/);
    expect(frame.provenance[0]).toMatchObject({ type: "file", method: "ripgrep", by: "ripgrep", uri: frame.uri });
    expect(frame.uri?.startsWith(rootUri)).toBe(true);
    verifyAgainstDisk(frame as ContextFrame & { provenance: { range?: string; digest?: string }[] });
  }
}

function forbiddenIn(result: ContextQueryResult): string[] {
  const text = JSON.stringify(result);
  return tree.forbidden.filter((word) => text.includes(word));
}

describe("the ripgrep plugin on a fixture tree", () => {
  it("finds snippets everywhere it should and nowhere it must not", async () => {
    const result = await ask(provider(), { query_text: "budget" });
    checkHonest(result, 20_000);
    expect(forbiddenIn(result)).toEqual([]);
    const found = new Set(paths(result));
    for (const expected of [
      "src/config.ts",
      "src/packer.ts",
      "src/crlf.ts",
      "docs/unicode.md",
      "src/latin1.txt",
      "no-newline.ts",
      "src/n\uFFFDme-budget.txt",
    ]) {
      expect(found.has(expected), expected).toBe(true);
    }
  });

  it("ships CRLF lines byte for byte, and a last line without a newline as is", async () => {
    const result = await ask(provider(), { query_text: "crlfBudget lastLineBudget" });
    checkHonest(result, 20_000);
    const crlf = result.frames.find((frame) => frame.uri?.endsWith("/src/crlf.ts"));
    expect(crlf?.content).toBe(
      "// windows line endings\r\nexport const crlfBudget = 1;\r\nexport const other = 2;\r\n",
    );
    const last = result.frames.find((frame) => frame.uri?.endsWith("/no-newline.ts"));
    expect(last?.content).toBe("export const lastLineBudget = true; // no newline at the end");
  });

  it("decodes non-UTF-8 content with U+FFFD, says so, and keeps the digest verifiable", async () => {
    const result = await ask(provider(), { query_text: "latinBudget" });
    checkHonest(result, 20_000);
    const [frame] = result.frames;
    expect(frame?.content).toBe("// caf\uFFFD budget in latin-1\nconst latinBudget = 1;\n");
    expect(frame?.provenance[1]).toMatchObject({ type: "derivation", method: "utf-8-decode-with-replacement" });
    // Honest about what the digest covers: the shipped text, not the raw bytes (which are not UTF-8).
    const raw = `sha256:${createHash("sha256").update(LATIN1_BYTES).digest("hex")}`;
    expect(frame?.provenance[0]?.digest).not.toBe(raw);
  });

  it("cites a file whose name is not UTF-8 by an exact, percent-encoded URI", async () => {
    const result = await ask(provider(), { query_text: "odd name budget" });
    const frame = result.frames.find((f) => f.uri?.includes("%FF"));
    expect(frame?.uri).toMatch(/\/n%FFme-budget\.txt$/);
    expect(frame?.citation_label).toBe("src/n\uFFFDme-budget.txt L1");
    checkHonest({ ...result, frames: frame ? [frame] : [] }, 20_000);
  });

  it("searches unicode text in any script", async () => {
    for (const word of ["予算", "προϋπολογισμός", "Größe"]) {
      const result = await ask(provider(), { query_text: word });
      checkHonest(result, 20_000);
      expect(paths(result)).toEqual(["docs/unicode.md"]);
    }
  });

  it("gives context around a match up to the file's end, or the enclosing block, or the whole small file, as the budget holds", async () => {
    const text = readFileSync(join(tree.root, "src/config.ts"), "utf8");
    const lines = text.split("\n");
    const slice = (start: number, end: number) =>
      lines
        .slice(start - 1, end)
        .map((line) => `${line}\n`)
        .join("");
    // The match is on line 16 (`export function unrelatedHelper`); context 3 reaches the file's end (18).
    const window = slice(13, 18);
    // The block enclosing the window: from the statement line 13 belongs to (parseConfigFile, with its doc comment) to the end.
    const block = slice(9, 18);
    for (const [budget, citation, content] of [
      [counter.count(window), "src/config.ts L13-18", window],
      [counter.count(block), "src/config.ts L9-18", block],
      [20_000, "src/config.ts L1-18", text],
    ] as const) {
      const result = await ask(provider(), { query_text: "unrelatedHelper", max_tokens: budget });
      checkHonest(result, budget);
      expect(result.frames.map((f) => f.citation_label)).toEqual([citation]);
      expect(result.frames[0]?.content).toBe(content);
      expect(result.frames[0]?.provenance[0]?.range).toBe(citation.split(" ")[1]);
      expect(result.frames[0]?.title).toBe("src/config.ts L16: export function unrelatedHelper(): number {");
    }
  });

  it("keeps titles to one plain line: no control or bidi-override characters, long lines shortened", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocp-rg-title-"));
    scratch.push(dir);
    const line = `const access = "user\u202e // admin\u202c";\t\u0007 trojanSource(${"x".repeat(200)})\n`;
    writeFileSync(join(dir, "bidi.ts"), line);
    const result = await ask(provider({ root: dir }), { query_text: "trojanSource" });
    expect(result.frames[0]?.content).toBe(line);
    const title = result.frames[0]?.title ?? "";
    expect(title).toMatch(/^bidi\.ts L1: const access = "user \/\/ admin ";/);
    expect(title).not.toMatch(/\p{Cc}|[\u202a-\u202e]/u);
    expect([...title].length).toBeLessThanOrEqual("bidi.ts L1: ".length + 80);
  });

  it("takes regex syntax in a query literally", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocp-rg-literal-"));
    scratch.push(dir);
    writeFileSync(join(dir, "a.txt"), "first\nx = a.b*c(d\nlast\n");
    writeFileSync(join(dir, "b.txt"), "x = aXbbbc(d\n");
    const result = await ask(provider({ root: dir }), { query_text: '"a.b*c(d" "[unclosed"' });
    expect(result.frames.map((f) => f.citation_label)).toEqual(["a.txt L1-3"]);
  });

  it("returns nothing, not an error, for a query of stop-words only", async () => {
    expect(await ask(provider(), { goal: "how does it work?" })).toEqual({ frames: [], truncated: false });
  });
});

describe("root confinement", () => {
  it("ignores anchors outside the root and never returns what lies there", async () => {
    const secret = join(tree.outside, "secret.txt");
    const result = await ask(provider(), {
      query_text: "OUTSIDE_SECRET parseConfigFile",
      anchors: [
        "../outside/secret.txt",
        secret,
        pathToFileURL(secret).href,
        "link-to-secret.txt",
        "link-to-outside/secret.txt",
      ],
    });
    checkHonest(result, 20_000);
    expect(forbiddenIn(result)).toEqual([]);
    expect(paths(result)).toContain("src/config.ts");
    // Anchors never reach rg, and even as query text a path is only ever a pattern: rg's one path is ".".
    const { args, cwd } = describeSearch({ root: tree.root }, `${secret} ../outside/secret.txt`);
    expect(cwd).toBe(realpathSync(tree.root));
    expect(args.slice(args.indexOf("--"))).toEqual(["--", "."]);
    expect(args.filter((arg, i) => arg.includes("secret") && args[i - 1] !== "-e")).toEqual([]);
  });

  it("treats flag-like query text as text: no preprocessor runs, no ignore rule is lifted, no symlink followed", async () => {
    const queries = [
      "--pre=./pre.sh budget",
      '"--pre=./pre.sh" "--pre" budget',
      "--pre ./pre.sh --search-zip budget",
      "-e OUTSIDE_SECRET --files",
      "--no-ignore --hidden -uuu IGNORED_LOG HIDDEN_SETTING IGNORED_BY_GITIGNORE",
      '"-L" --follow OUTSIDE_SECRET "--binary" "-a" BINARY_FILE',
      '"--max-filesize=1G" HUGE_FILE',
    ];
    const on = provider();
    for (const text of queries) {
      const result = await ask(on, { query_text: text });
      checkHonest(result, 20_000);
      expect(forbiddenIn(result), text).toEqual([]);
    }
    const listed = await ask(on, { query_text: "--files" });
    // Had `--files` become a flag, rg would have printed paths, not matches.
    expect(listed.frames.length).toBeGreaterThan(0);
    for (const frame of listed.frames) expect(frame.content).toMatch(/files/i);
    expect(existsSync(tree.marker)).toBe(false);
  });
});

describe("confinement when rg reads through a link (its own check-then-open race, made certain)", () => {
  /** A logger keeping its warnings and debug lines. */
  function recording() {
    const lines: string[] = [];
    const add = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
    return { lines, logger: { error: add("error"), warn: add("warn"), info: add("info"), debug: add("debug") } };
  }

  it("ships nothing rg read through a link: a linked file and a linked directory are refused, with a warning", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocp-rg-follow-"));
    scratch.push(dir);
    const following = linkFollowingRg(dir, (await findRipgrep()).path);
    const { lines, logger } = recording();
    const result = await ask(provider({ rgPath: following, logger }), { query_text: "OUTSIDE_SECRET budget" });
    checkHonest(result, 20_000);
    expect(forbiddenIn(result)).toEqual([]);
    expect(result.frames.length).toBeGreaterThan(0);
    // rg did report the outside file under both links; the plugin refused each.
    const warnings = lines.filter((line) => line.startsWith("warn:"));
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/skipped link-to-secret\.txt: OCP_ERR_SYMLINK/),
        expect.stringMatching(/skipped link-to-outside\/secret\.txt: OCP_ERR_OUTSIDE_ROOT/),
      ]),
    );
  });

  it("drops a snippet whose file changed after rg read it: every digest verifies against the file as it is", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocp-rg-changed-"));
    scratch.push(dir);
    writeFileSync(join(dir, "stable.ts"), "export const steadyNeedle = 1;\n");
    writeFileSync(join(dir, "moving.ts"), "export const movingNeedle = 1;\n");
    const rewrite = `printf 'export const rewritten = 2;\\n' > moving.ts`;
    const bin = mkdtempSync(join(tmpdir(), "ocp-rg-bin-"));
    scratch.push(bin);
    const changing = linkFollowingRg(bin, (await findRipgrep()).path, rewrite);
    const result = await ask(provider({ root: dir, rgPath: changing }), { query_text: "steadyNeedle movingNeedle" });
    checkHonest(result, 20_000, dir);
    expect(paths(result)).toEqual(["stable.ts"]);
  });
});

describe("options", () => {
  it("searches hidden files when asked, never .git", async () => {
    const result = await ask(provider({ hidden: true }), { query_text: "HIDDEN_SETTING GIT_INTERNALS" });
    checkHonest(result, 20_000);
    expect(paths(result)).toEqual([".hidden/settings.ts"]);
  });

  it("resolves a root given through a symlink once: frames cite real paths, anchors count under either spelling", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocp-rg-link-"));
    scratch.push(dir);
    const link = join(dir, "linked-root");
    symlinkSync(tree.root, link);
    const on = provider({ root: link });
    const packer = (result: ContextQueryResult) =>
      result.frames.find((f) => f.citation_label?.startsWith("src/packer.ts"));
    const plain = await ask(on, { query_text: "packUnderBudget" });
    checkHonest(plain, 20_000);
    expect(packer(plain)?.uri).toBe(pathToFileURL(join(realpathSync(tree.root), "src", "packer.ts")).href);
    for (const spelling of [join(link, "src", "packer.ts"), join(realpathSync(tree.root), "src", "packer.ts")]) {
      const anchored = await ask(on, { query_text: "packUnderBudget", anchors: [spelling] });
      expect(packer(anchored)?.score).toBeGreaterThan(packer(plain)?.score as number);
    }
  });

  it("refuses unusable options when the plugin is defined", () => {
    expect(() => provider({ contextLines: -1 })).toThrow(/OCP_ERR_PLUGIN_INVALID|contextLines must be a whole number/);
    expect(() => provider({ root: join(tree.base, "nope") })).toThrow(/does not exist/);
    expect(() => provider({ root: join(tree.root, "src", "config.ts") })).toThrow(/is not a directory/);
    expect(() => provider({ maxConcurrentSearches: 0 })).toThrow(/maxConcurrentSearches must be a whole number ≥ 1/);
    expect(() => provider({ maxQueuedSearches: -1 })).toThrow(/maxQueuedSearches must be a whole number ≥ 0/);
    expect(() => provider({ queueTimeoutMs: 1.5 })).toThrow(/queueTimeoutMs must be a whole number ≥ 1/);
  });
});

describe("search slots", () => {
  /** An rg that takes `seconds` before it starts, and logs each start to a file. */
  async function slowRg(seconds: number): Promise<{ path: string; starts: () => number }> {
    const dir = mkdtempSync(join(tmpdir(), "ocp-rg-slow-"));
    scratch.push(dir);
    const log = join(dir, "starts.log");
    const path = join(dir, "slow-rg.sh");
    writeFileSync(
      path,
      `#!/bin/sh
echo start >> '${log}'
sleep ${seconds}
exec '${(await findRipgrep()).path}' "$@"
`,
    );
    chmodSync(path, 0o755);
    return { path, starts: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").length - 1 : 0) };
  }

  it("refuses a query past the queue at once with OCP_ERR_BUSY, and serves those within it", async () => {
    const rg = await slowRg(0.4);
    const on = provider({ rgPath: rg.path, maxConcurrentSearches: 1, maxQueuedSearches: 1 });
    await on.start();
    const timed = (text: string) =>
      ask(on, { query_text: text }).then(
        (result) => ({ at: performance.now(), result, error: undefined }),
        (error: Error) => ({ at: performance.now(), result: undefined, error }),
      );
    const first = timed("parseConfigFile");
    const second = timed("crlfBudget");
    const refused = await timed("parseConfigFile");
    expect(refused.error).toBeInstanceOf(UserError);
    expect(refused.error?.message).toMatch(/^OCP_ERR_BUSY: plugin 'ripgrep' is busy: 1 searches running and 1 waiting/);
    // At once: before either search ahead of it (each over 400 ms) has answered.
    const served = await Promise.all([first, second]);
    expect(served.every((reply) => refused.at < reply.at)).toBe(true);
    expect(served.map((reply) => paths(reply.result as ContextQueryResult)[0])).toEqual([
      "src/config.ts",
      "src/crlf.ts",
    ]);
    expect(rg.starts()).toBe(2);
  });

  it("refuses a query that waited queueTimeoutMs, without starting rg for it", async () => {
    const rg = await slowRg(2);
    const on = provider({ rgPath: rg.path, maxConcurrentSearches: 1, queueTimeoutMs: 200 });
    await on.start();
    let answered = false;
    const first = ask(on, { query_text: "budget" }).finally(() => {
      answered = true;
    });
    const waited = await ask(on, { query_text: "budget" }).catch((error: Error) => error);
    // Refused when its wait was over: while the search ahead of it (over 2 s) still ran.
    expect(answered).toBe(false);
    expect(waited).toBeInstanceOf(UserError);
    expect((waited as Error).message).toMatch(/^OCP_ERR_BUSY: .*no search slot came free within \d+ ms/);
    checkHonest(await first, 20_000);
    expect(rg.starts()).toBe(1);
  });
});

describe("bounds", () => {
  it("stops at its own timeout and answers with what it has, truncated", async () => {
    // An rg that prints everything and then hangs: only the timeout can end it.
    const dir = mkdtempSync(join(tmpdir(), "ocp-rg-hang-"));
    scratch.push(dir);
    const hanging = join(dir, "rg-then-hang.sh");
    writeFileSync(hanging, `#!/bin/sh\n'${(await findRipgrep()).path}' "$@"\nexec sleep 30\n`);
    chmodSync(hanging, 0o755);
    const whole = await ask(provider(), { query_text: "budget" });
    expect(whole.truncated).toBe(false);
    const result = await ask(provider({ rgPath: hanging, timeoutMs: 300 }), { query_text: "budget" });
    expect(result.truncated).toBe(true);
    expect(result.frames).toEqual(whole.frames);
    checkHonest(result, 20_000);
  });

  it("stops at the match cap and reports the rest as dropped", async () => {
    const whole = await ask(provider(), { query_text: "budget" });
    const result = await ask(provider({ maxMatches: 1 }), { query_text: "budget" });
    expect(result.truncated).toBe(true);
    expect(result.dropped_estimate).toBeGreaterThanOrEqual(1);
    expect(result.frames.length).toBeLessThan(whole.frames.length);
    checkHonest(result, 20_000);
  });

  it("answers a goal holding words of 7,000 characters and 200 KiB from its other terms", async () => {
    const on = provider();
    const plain = await ask(on, { goal: "budget parseConfigFile packer" });
    expect(plain.frames.length).toBeGreaterThan(0);
    const long = await ask(on, {
      goal: `budget ${"x".repeat(7000)} parseConfigFile ${"y".repeat(200 * 1024)} packer ${"Zq".repeat(5000)}`,
    });
    expect(long).toEqual(plain);
  });

  it("folds a file's windows into one region: the whole small file ships, never beside a window of itself", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocp-rg-fold-"));
    scratch.push(dir);
    const body = (name: string, from: number, count: number) =>
      Array.from({ length: count }, (_, i) => `  const ${name}${from + i} = ${from + i};\n`).join("");
    // Three windows far apart (over 60 lines), each a match of the query in its own function.
    const text =
      `export function first() {\n  const retryBudget = 1;\n${body("a", 0, 40)}}\n\n` +
      `export function second() {\n  const retryBudget = 2;\n${body("b", 0, 40)}}\n\n` +
      `export function third() {\n  const retryBudget = 3;\n${body("c", 0, 40)}}\n`;
    writeFileSync(join(dir, "fold.ts"), text);
    writeFileSync(join(dir, "other.ts"), "export const retry = 1;\n");
    const on = provider({ root: dir, contextLines: 2 });
    for (const budget of [400, 1200, 20_000]) {
      const result = await ask(on, { query_text: "retryBudget", max_tokens: budget, max_frames: 20 });
      checkHonest(result, budget, dir);
      const fold = result.frames.filter((f) => f.citation_label?.startsWith("fold.ts"));
      // One region: its window, a block or the whole file — no second frame of the file beside it.
      expect(fold).toHaveLength(1);
    }
    const whole = await ask(on, { query_text: "retryBudget", max_tokens: 20_000, max_frames: 20 });
    expect(whole.frames[0]?.content).toBe(text);
  });

  it("caps snippets per file and never ships a line over the line limit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocp-rg-cap-"));
    scratch.push(dir);
    writeFileSync(
      // Too long to be a view whole, its needles too far apart to fold into one region.
      join(dir, "many.ts"),
      Array.from({ length: 700 }, (_, i) => (i % 100 === 0 ? `needle ${i}\n` : `filler ${i}\n`)).join(""),
    );
    writeFileSync(join(dir, "long.ts"), `short needle\n${"y".repeat(300)} needle\nshort tail\n`);
    const result = await ask(provider({ root: dir, perFileMaxSnippets: 2, maxLineBytes: 200, contextLines: 1 }), {
      query_text: "needle",
    });
    checkHonest(result, 20_000, dir);
    expect(result.frames.filter((f) => f.citation_label?.startsWith("many.ts"))).toHaveLength(2);
    expect(result.frames.find((f) => f.citation_label?.startsWith("long.ts"))?.content).toBe("short needle\n");
    expect(result.truncated).toBe(true);
  });

  it("keeps every budget, down to zero, with exact costs", async () => {
    const on = provider();
    for (const [maxTokens, maxFrames] of [
      [5000, 10],
      [200, 3],
      [25, 5],
      [1, 1],
      [0, 5],
    ] as const) {
      const result = await ask(on, {
        query_text: "budget config tokens",
        max_tokens: maxTokens,
        max_frames: maxFrames,
      });
      expect(result.frames.length).toBeLessThanOrEqual(maxFrames);
      checkHonest(result, maxTokens);
    }
  });
});

describe("ranking", () => {
  const dir = mkdtempSync(join(tmpdir(), "ocp-rg-rank-"));
  scratch.push(dir);
  const file = (path: string, content: string) => {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  file("lib/whole.ts", "const retry = 1;\n");
  file("lib/substring.ts", "const retryable = 1;\n");
  file("lib/both.ts", "const retry = policy;\n");
  file("net/retry.ts", "export const attempts = 3; // retry\n");
  file("net/other.ts", "export const attempts = 3; // retry\n");
  file("app/open.ts", "backoff here\n");
  file("app/sibling.ts", "backoff here\n");
  file("far/away.ts", "backoff here\n");
  file("calls/a.ts", "backoff then scheduleRetry()\n");
  file("calls/b.ts", "backoff then somethingElse()\n");
  const order = async (query: string, anchors: string[] = []) =>
    paths(await ask(provider({ root: dir }), { query_text: query, anchors }));

  it("puts more of the query first, then whole words over substrings", async () => {
    const ranked = await order("retry policy");
    expect(ranked[0]).toBe("lib/both.ts");
    expect(ranked.indexOf("lib/whole.ts")).toBeLessThan(ranked.indexOf("lib/substring.ts"));
  });

  it("prefers a file whose name matches", async () => {
    const ranked = await order("retry");
    expect(ranked.indexOf("net/retry.ts")).toBeLessThan(ranked.indexOf("net/other.ts"));
  });

  it("prefers the anchored file, then its directory, and snippets that mention an anchor symbol", async () => {
    expect((await order("backoff", ["app/open.ts"])).slice(0, 2)).toEqual(["app/open.ts", "app/sibling.ts"]);
    expect((await order("backoff", [join(dir, "far/")]))[0]).toBe("far/away.ts");
    expect((await order("backoff", ["scheduleRetry"]))[0]).toBe("calls/a.ts");
  });

  it("is deterministic: the same query gives the same frames, run after run", async () => {
    const on = provider({ root: tree.root });
    const first = await ask(on, { query_text: "budget config", max_tokens: 3000 });
    for (let i = 0; i < 5; i++) expect(await ask(on, { query_text: "budget config", max_tokens: 3000 })).toEqual(first);
    const scores = first.frames.map((frame) => frame.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });
});

it("reads the fixture it claims to (the secret really is outside the root)", () => {
  expect(readFileSync(join(tree.outside, "secret.txt"), "utf8")).toContain("OUTSIDE_SECRET");
  expect(readFileSync(join(tree.root, "link-to-secret.txt"), "utf8")).toContain("OUTSIDE_SECRET");
});
