import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAnchors, proximity, symbolRegExp } from "./anchors.js";

const ROOT = join("/", "work", "project");
const REAL_ROOT = join("/", "private", "work", "project");

describe("parseAnchors", () => {
  it("keeps files inside the root, relative or absolute or as file: URIs, and their directories", () => {
    const anchors = parseAnchors(
      [
        "src/config.ts",
        "./src/../lib/a.py",
        join(ROOT, "docs", "guide.md"),
        pathToFileURL(join(REAL_ROOT, "x", "y.rs")).href,
      ],
      [ROOT, REAL_ROOT],
    );
    expect([...anchors.files].sort()).toEqual(["docs/guide.md", "lib/a.py", "src/config.ts", "x/y.rs"]);
    expect([...anchors.dirs].sort()).toEqual(["docs", "lib", "src", "x"]);
    expect(anchors.outside).toBe(0);
  });

  it("ignores anchors that lead outside the root", () => {
    const anchors = parseAnchors(
      [
        "../secret.txt",
        "src/../../secret.txt",
        "..",
        "/etc/passwd",
        join(ROOT, "..", "other", "file.ts"),
        "file:///etc/shadow",
        "..\\windows\\style.txt",
      ],
      [ROOT],
    );
    expect(anchors.files.size).toBe(0);
    expect(anchors.dirs.size).toBe(0);
    expect(anchors.outside).toBe(7);
  });

  it("reads identifiers as symbols, and names with an extension as both a file and a symbol", () => {
    const anchors = parseAnchors(
      ["parseConfig", "Config.load", "crate::budget::check", "helper()", "config.ts", "two words"],
      [ROOT],
    );
    expect(anchors.symbols).toEqual(["Config.load", "config.ts", "crate::budget::check", "helper", "parseConfig"]);
    expect([...anchors.files]).toEqual(["Config.load", "config.ts"]);
  });

  it("treats a trailing slash as a directory whose whole tree is close", () => {
    const anchors = parseAnchors(["src/plugins/"], [ROOT]);
    expect(proximity("src/plugins/a.ts", anchors)).toBe(0.5);
    expect(proximity("src/plugins/deep/b.ts", anchors)).toBe(0.5);
    expect(proximity("src/other.ts", anchors)).toBe(0);
  });
});

describe("proximity", () => {
  it("is 1 for an anchored file, 0.5 beside one, 0 elsewhere", () => {
    const anchors = parseAnchors(["src/config.ts"], [ROOT]);
    expect(proximity("src/config.ts", anchors)).toBe(1);
    expect(proximity("src/packer.ts", anchors)).toBe(0.5);
    expect(proximity("src/sub/packer.ts", anchors)).toBe(0);
    expect(proximity("config.ts", anchors)).toBe(0);
  });
});

describe("symbolRegExp", () => {
  it("finds a symbol or its last segment as a whole word", () => {
    const regex = symbolRegExp(parseAnchors(["Config.load", "parseConfigFile", "self->budget"], [ROOT]));
    expect(regex?.test("$this->budget = 3")).toBe(true);
    expect(regex?.test("await Config.load(path)")).toBe(true);
    expect(regex?.test("this.load()")).toBe(true);
    expect(regex?.test("const x = parseConfigFile(p)")).toBe(true);
    expect(regex?.test("parseConfigFiles")).toBe(false);
    expect(regex?.test("download()")).toBe(false);
    expect(symbolRegExp(parseAnchors(["src/a.ts/"], [ROOT]))).toBeUndefined();
  });
});
