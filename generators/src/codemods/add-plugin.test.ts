import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { Project, SyntaxKind, ts } from "ts-morph";
import { afterAll, describe, expect, it } from "vitest";
import { CREATE_ERROR_CODES } from "../errors.js";
import { addDependency, addPlugin } from "./add-plugin.js";
import { wirePlugin } from "./wire-plugin.js";

const tmp = mkdtempSync(join(tmpdir(), "ocp-codemod-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let counter = 0;

/** Writes `text` to a fresh file, runs addPlugin, and returns the new text. */
async function edit(text: string, plugin: "ripgrep" | "symbols" | "facts" = "ripgrep") {
  const file = join(tmp, `provider-${++counter}.ts`);
  writeFileSync(file, text);
  const result = await addPlugin(file, plugin);
  return { file, result, text: readFileSync(file, "utf8") };
}

const PLAIN = `import { defineProvider } from "ocp-provider";
import { notes } from "./plugins/notes.js";

export default defineProvider({
  name: "team",
  version: "1.0.0",
  dataFlow: { reads: true, writes: false, egress: false },
  plugins: [notes()],
});
`;

describe("addPlugin", () => {
  it("adds the import after the last import and the call to a plain file", async () => {
    const { text, result } = await edit(PLAIN);
    expect(result.added).toEqual(["import", "plugin"]);
    expect(text).toBe(`import { defineProvider } from "ocp-provider";
import { notes } from "./plugins/notes.js";
import { ripgrep } from "ocp-plugin-ripgrep";

export default defineProvider({
  name: "team",
  version: "1.0.0",
  dataFlow: { reads: true, writes: false, egress: false },
  plugins: [notes(), ripgrep({ root: "." })],
});
`);
  });

  it("keeps comments, quotes, semicolon-free style, tabs and a multi-line list's trailing comma", async () => {
    const odd = `// The team's provider.
import {defineProvider as provide} from 'ocp-provider'
import {notes} from './plugins/notes.js' // our notes

/* keep me */
const provider = provide({
\tname: 'team', version: '1.0.0',
\tdataFlow: {reads: true, writes: false, egress: false},
\tplugins: [
\t\t// first the notes
\t\tnotes(),   // trailing comment
\t],
})

export default provider
`;
    const { text } = await edit(odd, "facts");
    expect(text).toBe(`// The team's provider.
import {defineProvider as provide} from 'ocp-provider'
import {notes} from './plugins/notes.js' // our notes
import { facts } from 'ocp-plugin-facts'

/* keep me */
const provider = provide({
\tname: 'team', version: '1.0.0',
\tdataFlow: {reads: true, writes: false, egress: false},
\tplugins: [
\t\t// first the notes
\t\tnotes(),   // trailing comment
\t\tfacts({ db: 'facts.db' }),
\t],
})

export default provider
`);
  });

  it("adds a comma to a multi-line list without a trailing one, and closes a list that ends on the last line", async () => {
    const { text } = await edit(`import { defineProvider } from "ocp-provider";
import { notes } from "./notes.js";
export default defineProvider({ name: "a", version: "1", dataFlow: { reads: true, writes: false, egress: false },
  plugins: [
    notes() /* why */
  ] });
`);
    expect(text).toContain(`  plugins: [
    notes(), /* why */
    ripgrep({ root: "." })
  ] });`);
    const { text: tight } = await edit(`import { defineProvider } from "ocp-provider";
import { a, b } from "./p.js";
export default defineProvider({ name: "a", version: "1", dataFlow: { reads: true, writes: false, egress: false }, plugins: [
  a(),
  b()] });
`);
    expect(tight).toContain(`plugins: [
  a(),
  b(),
  ripgrep({ root: "." })
] });`);
  });

  it("fills an empty list, follows `plugins: list` to its array, and handles a namespace import", async () => {
    const { text: empty } = await edit(`import { defineProvider } from "ocp-provider";
export default defineProvider({ name: "a", version: "1", dataFlow: { reads: true, writes: false, egress: false }, plugins: [] });
`);
    expect(empty).toContain(`plugins: [ripgrep({ root: "." })] });`);
    const { text: indirect } = await edit(`import * as ocp from "ocp-provider";
import { notes } from "./notes.js";
const plugins = [notes()];
export default ocp.defineProvider({ name: "a", version: "1", dataFlow: { reads: true, writes: false, egress: false }, plugins });
`);
    expect(indirect).toContain(`const plugins = [notes(), ripgrep({ root: "." })];`);
  });

  it("changes nothing on a second run: the file stays byte-identical", async () => {
    const first = await edit(PLAIN, "symbols");
    const again = await addPlugin(first.file, "symbols");
    expect(again.changed).toBe(false);
    expect(again.added).toEqual([]);
    expect(readFileSync(first.file, "utf8")).toBe(first.text);
  });

  it("recognises an existing import under an alias and only adds the call", async () => {
    const { text, result } = await edit(`import { defineProvider } from "ocp-provider";
import { ripgrep as rg } from "ocp-plugin-ripgrep";
export default defineProvider({ name: "a", version: "1", dataFlow: { reads: true, writes: false, egress: false }, plugins: [] });
`);
    expect(result.added).toEqual(["plugin"]);
    expect(text).toContain(`plugins: [rg({ root: "." })]`);
  });

  it("refuses a file without defineProvider, and a provider whose plugins it cannot see, leaving both untouched", async () => {
    const cases = [
      `import { definePlugin } from "ocp-provider";\nexport const p = definePlugin({ name: "x", kinds: ["doc"], search: () => [] });\n`,
      `// defineProvider({ plugins: [] }) in a comment is not a call\nexport default {};\n`,
      `import { defineProvider } from "not-ocp";\nexport default defineProvider({ plugins: [] });\n`,
      `import { defineProvider } from "ocp-provider";\nimport { list } from "./list.js";\nexport default defineProvider({ name: "a", version: "1", dataFlow: { reads: true, writes: false, egress: false }, plugins: list });\n`,
      `import { defineProvider } from "ocp-provider";\nexport default defineProvider(options);\n`,
    ];
    for (const source of cases) {
      const file = join(tmp, `none-${++counter}.ts`);
      writeFileSync(file, source);
      await expect(addPlugin(file, "ripgrep")).rejects.toMatchObject({ code: CREATE_ERROR_CODES.NO_PROVIDER });
      expect(readFileSync(file, "utf8")).toBe(source);
    }
    await expect(addPlugin(join(tmp, "missing.ts"), "ripgrep")).rejects.toMatchObject({
      code: CREATE_ERROR_CODES.CODEMOD_TARGET,
    });
  });

  it("wires a local plugin with no arguments (what generate plugin uses)", () => {
    const result = wirePlugin(PLAIN, "provider.ts", {
      module: "./plugins/tickets.js",
      exportName: "tickets",
      args: () => "",
    });
    expect(result.text).toContain(`import { tickets } from "./plugins/tickets.js";`);
    expect(result.text).toContain("plugins: [notes(), tickets()],");
  });
});

describe("wirePlugin on any layout of the plugins list", () => {
  const gap = fc.constantFrom("", " ", "\n", "\n  ", "\n\t\t", " /* c */ ", " // c\n  ");
  const layout = fc.record({
    count: fc.integer({ min: 0, max: 4 }),
    gaps: fc.array(gap, { minLength: 10, maxLength: 10 }),
    trailingComma: fc.boolean(),
  });

  it("adds exactly one call, keeps every other element and comment, and is idempotent", () => {
    fc.assert(
      fc.property(layout, ({ count, gaps, trailingComma }) => {
        const elements = Array.from({ length: count }, (_, i) => `p${i}()`);
        let list = `[${gaps[0]}`;
        elements.forEach((element, i) => {
          list += `${element}${gaps[i + 1]}${i < count - 1 || (trailingComma && count > 0) ? "," : ""}${gaps[i + 5]}`;
        });
        list += "]";
        const source = `import { defineProvider } from "ocp-provider";\nexport default defineProvider({ name: "a", version: "1", dataFlow: { reads: true, writes: false, egress: false }, plugins: ${list} });\n`;
        const once = wirePlugin(source, "p.ts", { module: "m", exportName: "added", args: () => "" });
        const twice = wirePlugin(once.text, "p.ts", { module: "m", exportName: "added", args: () => "" });
        expect(twice.changed).toBe(false);
        const file = new Project({ useInMemoryFileSystem: true }).createSourceFile("p.ts", once.text);
        expect(ts.transpileModule(once.text, { reportDiagnostics: true }).diagnostics).toEqual([]);
        const array = file.getFirstDescendantByKindOrThrow(SyntaxKind.ArrayLiteralExpression);
        expect(array.getElements().map((element) => element.getText())).toEqual([...elements, "added()"]);
        // Everything that was there is still there, in order (only whitespace inside `[ ]` may go).
        let at = 0;
        for (const char of source.replace(/\s/g, "")) {
          at = once.text.indexOf(char, at) + 1;
          expect(at).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("addDependency", () => {
  it("adds the package once, sorted, keeping the file's indentation", async () => {
    const manifest = join(tmp, "package.json");
    writeFileSync(
      manifest,
      `{\n    "name": "x",\n    "dependencies": { "zod": "4.0.0", "ocp-provider": "^0.1.0" }\n}\n`,
    );
    expect(await addDependency(manifest, "ocp-plugin-ripgrep", "^0.1.0")).toBe(true);
    const text = readFileSync(manifest, "utf8");
    expect(Object.keys(JSON.parse(text).dependencies)).toEqual(["ocp-plugin-ripgrep", "ocp-provider", "zod"]);
    expect(text).toContain('\n    "name": "x"');
    expect(await addDependency(manifest, "ocp-plugin-ripgrep", "^0.1.0")).toBe(false);
    expect(readFileSync(manifest, "utf8")).toBe(text);
  });

  it("takes the project's override when it has one: a project made from a clone installs ours from tarballs", async () => {
    const manifest = join(tmp, "local.json");
    const tarball = "file:.ocp-packages/ocp-plugin-facts-0.1.0.tgz";
    writeFileSync(manifest, JSON.stringify({ name: "x", overrides: { "ocp-plugin-facts": tarball } }));
    expect(await addDependency(manifest, "ocp-plugin-facts")).toBe(true);
    expect(await addDependency(manifest, "ocp-plugin-symbols")).toBe(true);
    expect(JSON.parse(readFileSync(manifest, "utf8")).dependencies).toEqual({
      "ocp-plugin-facts": tarball,
      "ocp-plugin-symbols": "^0.1.0",
    });
  });
});
