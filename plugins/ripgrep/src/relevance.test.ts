/**
 * Which files a budget cites, end to end with real rg over scratch trees shaped like
 * the cases `ocp eval` mines: a goal that names its module by a word every file uses,
 * and a budget that must be shared among many files rather than spent on one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type ContextFrame, type Provider, silentLogger } from "ocp-provider";
import { afterAll, describe, expect, it } from "vitest";
import { ripgrepProvider } from "./provider.js";

const roots: string[] = [];
const providers: Provider[] = [];
afterAll(async () => {
  await Promise.all(providers.map((provider) => provider.close()));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function makeTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "ocp-ripgrep-relevance-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

async function ask(root: string, goal: string, maxTokens: number): Promise<ContextFrame[]> {
  const provider = ripgrepProvider({ root, logger: silentLogger });
  providers.push(provider);
  const result = await provider.query({ goal, kinds: [], anchors: [], max_tokens: maxTokens, max_frames: 20 });
  return result.frames;
}

/** The root-relative file a frame cites. */
function fileOf(frame: ContextFrame, root: string): string {
  const uri = frame.provenance[0]?.uri ?? "";
  return decodeURIComponent(new URL(uri).pathname).slice(root.length + 1);
}

describe("ripgrep relevance", () => {
  it("ranks first the file a goal names, when the name is a word every file uses", async () => {
    // A web framework's `context` (and its `env`): in every file's text, so their text weight is ~0,
    // and the other files hold more of the goal's words; but only one file is named by one.
    const files: Record<string, string> = {
      "src/context.ts": [
        "export class Context {",
        "  env: unknown = undefined",
        "  constructor(env: unknown) { this.env = env }",
        "}",
        "",
      ].join("\n"),
    };
    for (let i = 0; i < 30; i++) {
      files[`src/module${i}.ts`] = [
        `import type { Context } from "./context"`,
        `// restore the field on the context when the handler is done`,
        `export function handler${i}(context: Context) {`,
        `  const initializer = context.env`,
        `  return initializer`,
        `}`,
        "",
      ].join("\n");
    }
    const root = makeTree(files);
    const frames = await ask(root, "perf(context): restore the `env` field initializer", 2048);
    expect(frames.length).toBeGreaterThan(0);
    expect(fileOf(frames[0] as ContextFrame, root)).toBe("src/context.ts");
  });

  it("shares a small budget among many matching files instead of spending it on one", async () => {
    // One long file matching all along, and twelve small ones matching once each.
    const long: string[] = [];
    for (let i = 0; i < 400; i++) {
      long.push(i % 6 === 0 ? `export function retryUpload${i}(request) { return retry(request) }` : `  // step ${i}`);
    }
    const files: Record<string, string> = { "src/uploads.ts": `${long.join("\n")}\n` };
    for (let i = 0; i < 12; i++) {
      files[`src/part${i}.ts`] = `// part ${i}\nexport function upload${i}(request) {\n  return send(request)\n}\n`;
    }
    const root = makeTree(files);
    const frames = await ask(root, "retry the upload request", 2048);
    const cited = new Set(frames.map((frame) => fileOf(frame, root)));
    expect(cited.has("src/uploads.ts")).toBe(true);
    expect(cited.size).toBeGreaterThanOrEqual(10);
    // Windows are sized to the budget: 2048 tokens hold windows of 20 lines at most.
    for (const frame of frames) {
      const range = /^L(\d+)-(\d+)$/.exec(frame.provenance[0]?.range ?? "");
      expect(range).not.toBeNull();
      expect(Number(range?.[2]) - Number(range?.[1]) + 1).toBeLessThanOrEqual(20);
    }
  });

  it("matches a goal's words in file names whatever case the goal writes them in", async () => {
    // "LaTeX" is searched case-sensitively in text (smart case), but the module is latex.py;
    // the other writers hold more of the goal's words.
    const writer = (words: string) =>
      `class Translator:\n    def visit_target(self, node):\n        # ${words}\n        pass\n`;
    const root = makeTree({
      "sphinx/writers/latex.py": writer("escape for latex"),
      "sphinx/writers/text.py": writer("revisit and trim the target"),
      "sphinx/writers/texinfo.py": writer("revisit and trim the target"),
      "sphinx/writers/manpage.py": writer("revisit and trim the target"),
    });
    const frames = await ask(root, "LaTeX: revisit and trim visit_target()", 2048);
    expect(fileOf(frames[0] as ContextFrame, root)).toBe("sphinx/writers/latex.py");
  });

  it("ranks the code that says a message above the translation catalogs that repeat it", async () => {
    const message = "source encodings other than UTF-8 are deprecated";
    // The code says it once, far from any definition line.
    const body = Array.from({ length: 30 }, (_, i) => `    step${i}(config)`).join("\n");
    const files: Record<string, string> = {
      "sphinx/config.py": `def check_encoding(config):\n${body}\n    if config.source_encoding != 'utf-8':\n        warn('${message}')\n`,
    };
    // Each catalog holds it twice (msgid and msgstr) beside the reference to the code.
    for (const language of ["de", "es", "fr", "it", "ja", "nl", "pl", "pt", "ru", "zh"]) {
      files[`sphinx/locale/${language}/LC_MESSAGES/sphinx.po`] =
        `#: sphinx/config.py:3\nmsgid "${message}"\nmsgstr "${message} (${language})"\n`;
    }
    const root = makeTree(files);
    const frames = await ask(root, "Deprecate support for source encodings other than UTF-8", 2048);
    expect(fileOf(frames[0] as ContextFrame, root)).toBe("sphinx/config.py");
  });

  it("ranks first the line that declares the identifier a goal asks where is defined, above files that quote the question", async () => {
    // A generated ripgrep project: its README, package.json and test quote its sample question
    // (every word of it), while the definition, in a test helper, holds the name alone.
    const goal = "where is skippedChecks defined?";
    const root = makeTree({
      "README.md": `# notes\n\nnpm run query -- "${goal}"  # ask it one question\n\nSkipped checks are listed.\n`,
      "package.json": `{\n  "scripts": {\n    "inspect": "ocp inspect stdio --query \\"${goal}\\" -- node src/main.ts"\n  }\n}\n`,
      "test/provider.test.ts": [
        `import { conformanceReport, skippedChecks } from "./conformance.js";`,
        `it("skips nothing", async () => {`,
        `  const report = await conformanceReport({ goals: ["conformanceReport skippedChecks"] });`,
        `  expect(skippedChecks(report)).toEqual([]);`,
        `  const { frames } = await ask("${goal}");`,
        `});`,
        "",
      ].join("\n"),
      "test/conformance.ts": [
        `/** The checks the suite skipped, by name. */`,
        `export function skippedChecks(report: ConformanceReport): string[] {`,
        `  return report.checks.filter((check) => check.status === "skipped").map((check) => check.name);`,
        `}`,
        "",
      ].join("\n"),
      "src/provider.ts": `// binary, hidden and very large files are skipped\nexport const provider = 1;\n`,
    });
    const frames = await ask(root, goal, 1024);
    expect(fileOf(frames[0] as ContextFrame, root)).toBe("test/conformance.ts");
    expect(frames[0]?.content).toContain("export function skippedChecks");
    // Without the question, the name alone: the files that use it still rank as before (no definition boost).
    const plain = await ask(root, "skippedChecks", 1024);
    expect(plain.map((frame) => fileOf(frame, root))).toContain("test/provider.test.ts");
  });
});
