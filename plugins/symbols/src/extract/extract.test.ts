/**
 * Extraction against committed fixtures, one per language, with expectations checked
 * by hand against the fixture files (kind, qualified name, 1-based lines, exported).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ExtractedSymbol } from "../model.js";
import { countLines, extractFile, looksBinary } from "./extract.js";

const FIXTURES = new URL("../fixtures/", import.meta.url);

async function extract(path: string) {
  const result = await extractFile(readFileSync(new URL(path, FIXTURES)), path);
  expect(result.status).toBe("ok");
  return result.symbols;
}

/** `[kind, qualified name, start, end, exported]` per symbol, in file order. */
const rows = (symbols: readonly ExtractedSymbol[]) =>
  symbols.map((symbol) => [symbol.kind, symbol.qualifiedName, symbol.startLine, symbol.endLine, symbol.exported]);

const find = (symbols: readonly ExtractedSymbol[], qualified: string, kind?: string) => {
  const found = symbols.find(
    (symbol) => symbol.qualifiedName === qualified && (kind === undefined || symbol.kind === kind),
  );
  if (found === undefined) throw new Error(`no symbol ${qualified}`);
  return found;
};

describe("TypeScript (ts-morph's compiler)", () => {
  it("finds every declaration with exact ranges, containers and visibility", async () => {
    const symbols = await extract("typescript/config.ts");
    expect(rows(symbols)).toEqual([
      ["interface", "RetryPolicy", 4, 8, true],
      ["property", "RetryPolicy.attempts", 6, 6, true],
      ["method", "RetryPolicy.backoff", 7, 7, true],
      ["type", "Mode", 10, 10, true],
      ["type", "Limits", 12, 15, true],
      ["property", "Limits.maxBytes", 13, 13, true],
      ["method", "Limits.check", 14, 14, true],
      // The range starts at the decorator; the doc comment above it starts the frame.
      ["class", "Config", 22, 58, true],
      ["property", "Config.DEFAULT_PATH", 24, 24, true],
      ["property", "Config.cache", 25, 25, false],
      ["property", "Config.#secret", 26, 26, false],
      ["constructor", "Config.constructor", 28, 28, true],
      ["method", "Config.retry", 31, 41, true],
      ["getter", "Config.size", 43, 45, true],
      ["setter", "Config.size", 47, 49, true],
      ["method", "Config.reload", 51, 53, false],
      ["method", "Config.onChange", 55, 57, true],
      ["enum", "Level", 60, 63, true],
      ["enum-member", "Level.Low", 61, 61, true],
      ["enum-member", "Level.High", 62, 62, true],
      // Two overloads and the implementation: one symbol; the local function inside is not one.
      ["function", "parse", 65, 71, true],
      ["function", "loadConfig", 73, 73, true],
      ["variable", "internalTimeout", 75, 75, false],
      ["namespace", "Defaults", 77, 82, true],
      ["variable", "Defaults.retries", 78, 78, true],
      ["function", "Defaults.hidden", 79, 81, false],
      ["function", "sealed", 84, 84, false],
    ]);
  });

  it("reads doc comments, signatures and containers", async () => {
    const symbols = await extract("typescript/config.ts");
    const config = find(symbols, "Config");
    expect(config).toMatchObject({ docStartLine: 17, signature: "export class Config", container: undefined });
    expect(config.doc).toBe("The loaded configuration.\n\nRead once at startup.");
    expect(find(symbols, "Config.retry")).toMatchObject({
      container: "Config",
      docStartLine: 30,
      doc: "Retries `task` with the policy's backoff.",
      signature: "async retry<T>(task: () => Promise<T>, policy: RetryPolicy): Promise<T>",
    });
    expect(find(symbols, "parse").signature).toBe("export function parse(text: string): Config");
    expect(find(symbols, "loadConfig").signature).toBe("export const loadConfig = (path: string): Config =>");
    expect(find(symbols, "RetryPolicy.attempts")).toMatchObject({ docStartLine: 5, doc: "Attempts before giving up." });
    expect(find(symbols, "Mode").docStartLine).toBeUndefined();
  });
});

describe("JavaScript (CommonJS)", () => {
  it("finds prototype methods, exports.x and object-literal methods, with module.exports visibility", async () => {
    expect(rows(await extract("javascript/legacy.js"))).toEqual([
      ["function", "Queue", 4, 7, true],
      ["method", "Queue.push", 9, 11, true],
      ["method", "Queue._grow", 13, 15, false],
      ["function", "createQueue", 17, 19, true],
      ["variable", "helpers", 21, 27, true],
      ["method", "helpers.clamp", 22, 24, true],
      ["method", "helpers.double", 25, 25, true],
      ["class", "Stack", 29, 33, false],
      ["method", "Stack.pop", 30, 32, false],
    ]);
  });

  it("reads Express-era modules: exports aliases, members of bound names, prototype objects, IIFEs", async () => {
    const symbols = await extract("javascript/express-era.js");
    expect(rows(symbols)).toEqual([
      // `var app = exports = module.exports = {}`: app is what the module exports.
      ["variable", "app", 3, 3, true],
      ["method", "app.init", 6, 8, true],
      // A chain names the same function twice.
      ["method", "app.get", 10, 12, true],
      ["method", "app.route", 10, 12, true],
      ["method", "app._private", 14, 14, false],
      ["property", "app.locals", 16, 16, true],
      ["function", "View", 18, 20, false],
      ["method", "View.lookup", 23, 25, true],
      ["method", "View.render", 26, 28, true],
      ["function", "compile", 31, 33, true],
      ["function", "compileQuery", 31, 33, true],
      // Inside `(function () { … })()`: module code, so its functions are symbols.
      ["function", "helper", 36, 38, false],
      ["function", "wrapped", 40, 42, true],
      ["function", "bang", 46, 46, false],
      ["function", "arrowHelper", 50, 50, false],
      // The factory of a UMD wrapper.
      ["function", "Lib", 56, 56, false],
      ["property", "Lib.version", 57, 57, true],
      // `localName` is bound nowhere in the module: its members are not guessed at.
    ]);
    expect(find(symbols, "app.init")).toMatchObject({ docStartLine: 5, doc: "Sets up the application." });
    expect(find(symbols, "app.route").signature).toBe("app.get = app.route = function route(path)");
  });

  it("does not take require() bindings for definitions, and reads module.exports = function or object", async () => {
    const source = [
      'var debug = require("debug")("app");',
      'const merge = require("./utils").merge;',
      "module.exports = function createServer(options) {",
      "  return options;",
      "};",
      "module.exports = {",
      "  parse: function (text) { return text; },",
      "  format(value) { return value; },",
      "};",
      "var Cache = (function () {",
      "  function Cache() {}",
      "  Cache.prototype.get = function (key) { return key; };",
      "  return Cache;",
      "})();",
    ].join("\n");
    const result = await extractFile(Buffer.from(source), "server.js");
    expect(rows(result.symbols)).toEqual([
      ["function", "createServer", 3, 5, true],
      ["function", "parse", 7, 7, true],
      ["function", "format", 8, 8, true],
      ["variable", "Cache", 10, 14, false],
      ["function", "Cache", 11, 11, false],
      ["method", "Cache.get", 12, 12, true],
    ]);
  });
});

describe("Python (tree-sitter)", () => {
  it("finds classes, methods, properties and module variables; visibility follows __all__", async () => {
    const symbols = await extract("python/config.py");
    expect(rows(symbols)).toEqual([
      ["variable", "__all__", 4, 4, false],
      ["variable", "MAX_RETRIES", 6, 6, true],
      ["variable", "_cache", 7, 7, false],
      ["function", "_helper", 10, 11, false],
      ["class", "Config", 14, 45, true],
      ["property", "Config.path", 18, 18, true],
      ["property", "Config.retries", 19, 19, true],
      ["property", "Config._secret", 20, 20, false],
      ["method", "Config.__init__", 22, 23, true],
      // `attempt` inside `retry` is a local: not a symbol.
      ["method", "Config.retry", 25, 31, true],
      ["getter", "Config.name", 33, 35, true],
      ["setter", "Config.name", 37, 39, true],
      ["method", "Config._reload", 41, 42, false],
      ["class", "Config.Source", 44, 45, true],
      ["property", "Config.Source.kind", 45, 45, true],
      ["function", "load_config", 48, 54, true],
      ["function", "unlisted", 57, 58, false],
    ]);
    expect(find(symbols, "load_config")).toMatchObject({
      doc: "Reads a config file.\n\nRaises when missing.",
      signature: "async def load_config(path: str) -> Config",
      docStartLine: undefined,
    });
    expect(find(symbols, "Config.retry").container).toBe("Config");
  });
});

describe("Go (tree-sitter)", () => {
  it("finds functions, methods on receivers, structs, interfaces and package values", async () => {
    const symbols = await extract("go/server.go");
    expect(rows(symbols)).toEqual([
      ["constant", "MaxConns", 7, 7, true],
      ["constant", "modeFast", 10, 10, false],
      ["constant", "ModeSafe", 11, 11, true],
      ["variable", "defaultServer", 14, 14, false],
      ["variable", "backupServer", 14, 14, false],
      ["struct", "Server", 18, 23, true],
      ["property", "Server.Addr", 20, 20, true],
      ["property", "Server.port", 21, 21, false],
      ["property", "Server.Label", 22, 22, true],
      ["interface", "Handler", 26, 29, true],
      ["method", "Handler.Serve", 27, 27, true],
      ["method", "Handler.close", 28, 28, false],
      ["type", "ID", 32, 32, true],
      ["type", "count", 33, 33, false],
      ["method", "Server.Start", 37, 41, true],
      ["method", "Server.stop", 43, 43, false],
      // The type declared inside New is a local.
      ["function", "New", 46, 49, true],
    ]);
    expect(find(symbols, "Server")).toMatchObject({
      docStartLine: 16,
      doc: "Server serves one address. It is safe for concurrent use.",
      signature: "type Server struct",
    });
    expect(find(symbols, "Server.Start")).toMatchObject({ container: "Server", docStartLine: 36 });
    expect(find(symbols, "MaxConns").signature).toBe("const MaxConns = 64");
  });
});

describe("Rust (tree-sitter)", () => {
  it("finds items, impl methods under their type, trait items and variants; pub is exported", async () => {
    const symbols = await extract("rust/config.rs");
    expect(rows(symbols)).toEqual([
      ["constant", "MAX_RETRIES", 6, 6, true],
      ["variable", "COUNTER", 8, 8, false],
      // Attributes belong to the item; the doc comment above them starts the frame.
      ["struct", "Config", 11, 16, true],
      ["property", "Config::path", 14, 14, true],
      ["property", "Config::retries", 15, 15, false],
      ["enum", "Mode", 18, 21, true],
      ["enum-member", "Mode::Fast", 19, 19, true],
      ["enum-member", "Mode::Safe", 20, 20, true],
      ["trait", "Runner", 24, 30, true],
      ["type", "Runner::Output", 25, 25, true],
      ["method", "Runner::run", 26, 26, true],
      ["method", "Runner::name", 27, 29, true],
      ["method", "Config::new", 34, 37, true],
      ["method", "Config::reset", 39, 41, false],
      ["method", "Config::fmt", 45, 47, true],
      ["type", "Retries", 50, 50, true],
      ["module", "inner", 52, 54, false],
      ["function", "inner::helper", 53, 53, false],
      ["macro", "retry", 56, 60, false],
      ["function", "crate_only", 62, 62, false],
    ]);
    expect(find(symbols, "Config")).toMatchObject({ docStartLine: 10, doc: "The loaded configuration." });
    expect(find(symbols, "Config::new")).toMatchObject({
      container: "Config",
      signature: "pub fn new(path: &str) -> Self",
    });
  });
});

describe("Java (tree-sitter)", () => {
  it("finds classes, members, nested types and enum constants; public in a public container is exported", async () => {
    const symbols = await extract("java/Config.java");
    expect(rows(symbols)).toEqual([
      ["class", "Config", 6, 43, true],
      ["property", "Config.MAX_RETRIES", 8, 8, true],
      ["property", "Config.path", 9, 9, false],
      ["property", "Config.backup", 9, 9, false],
      ["constructor", "Config.Config", 11, 13, true],
      // The anonymous class's method inside retry is a local.
      ["method", "Config.retry", 18, 24, true],
      ["method", "Config.reload", 26, 26, false],
      ["interface", "Config.Listener", 28, 31, true],
      ["constant", "Config.Listener.PRIORITY", 29, 29, true],
      ["method", "Config.Listener.changed", 30, 30, true],
      ["enum", "Config.Mode", 33, 40, true],
      ["enum-member", "Config.Mode.FAST", 34, 34, true],
      ["enum-member", "Config.Mode.SAFE", 35, 35, true],
      ["method", "Config.Mode.isFast", 37, 39, true],
      ["class", "Config.Point", 42, 42, false],
      ["class", "Helper", 45, 47, false],
      ["method", "Helper.help", 46, 46, false],
    ]);
    expect(find(symbols, "Config.retry")).toMatchObject({
      docStartLine: 15,
      doc: "Retries a task.",
      signature: "@Deprecated public int retry(Runnable task)",
    });
  });
});

describe("files that are not code", () => {
  it("skips binary files and files that are not UTF-8, with a reason", async () => {
    const binary = await extractFile(Buffer.from([0x63, 0x6f, 0x6e, 0x73, 0x74, 0x00, 0x01]), "blob.ts");
    expect(binary).toMatchObject({ status: "binary", symbols: [] });
    expect(binary.hash).toMatch(/^[0-9a-f]{64}$/);
    const latin1 = await extractFile(Buffer.from("const caf\xe9 = 1;\n", "latin1"), "latin1.ts");
    expect(latin1).toMatchObject({ status: "not-utf8", symbols: [] });
    expect(looksBinary(Buffer.from("plain text\n"))).toBe(false);
  });

  it("extracts what it can from a file with syntax errors", async () => {
    const text = "export function ok(): number {\n  return 1;\n}\n\nexport class Broken {\n  method( {\n}\n";
    const result = await extractFile(Buffer.from(text), "broken.ts");
    expect(result.status).toBe("ok");
    expect(result.symbols.map((symbol) => symbol.qualifiedName)).toContain("ok");
    const python = await extractFile(Buffer.from("def good():\n    pass\n\ndef bad(:\n"), "broken.py");
    expect(python.symbols.map((symbol) => symbol.name)).toContain("good");
  });

  it("reports a file the parser gives up on as a parse error, not an exception", async () => {
    const depth = 20_000;
    const text = `export const deep = ${"(".repeat(depth)}1${")".repeat(depth)};\n`;
    const result = await extractFile(Buffer.from(text), "deep.ts");
    expect(result.status).toBe("parse-error");
    expect(result.problem).toMatch(/could not be parsed/);
  });

  it("counts lines as the framework does", () => {
    expect([countLines(""), countLines("a"), countLines("a\n"), countLines("a\nb"), countLines("a\r\nb\r\n")]).toEqual([
      0, 1, 1, 2, 2,
    ]);
  });
});
