/**
 * The heart of the codemods: find the `defineProvider({ ... plugins: [...] })` call in
 * a provider file and add an import and a plugin call to it.
 *
 * ts-morph parses and locates; the edit itself is a few text insertions at the exact
 * positions found, so every other byte of the file — formatting, comments, quotes —
 * stays as it was. A second run finds the import and the call and changes nothing.
 */
import {
  type ArrayLiteralExpression,
  type CallExpression,
  type Expression,
  Node,
  type ObjectLiteralExpression,
  Project,
  type SourceFile,
  SyntaxKind,
} from "ts-morph";
import { CREATE_ERROR_CODES, CreateError } from "../errors.js";

/** A plugin to wire into a provider. */
export interface PluginWiring {
  /** Where the plugin factory is imported from (`ocp-plugin-ripgrep`, `./plugins/tickets.js`). */
  module: string;
  /** The factory's exported name (`ripgrep`). */
  exportName: string;
  /** The factory call's arguments as source text (`{ root: "." }`), written with the file's quote style; may be empty. */
  args: (quote: string) => string;
}

/** What {@link wirePlugin} did. */
export interface WireResult {
  /** The new file text (identical to the input when nothing changed). */
  text: string;
  /** True if the file changed. */
  changed: boolean;
  /** What was added, for a person: `import`, `plugin`. */
  added: ("import" | "plugin")[];
}

/** Replace `length` characters at `at` (0: insert) with `text`. */
interface Edit {
  at: number;
  text: string;
  length?: number;
}

function parse(text: string, fileName: string): SourceFile {
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: true } });
  return project.createSourceFile(fileName.replace(/^.*[\\/]/, ""), text, { overwrite: true });
}

/** The local names `defineProvider` goes by in this file: `defineProvider`, an alias, or `ns.defineProvider`. */
function defineProviderCalls(file: SourceFile): CallExpression[] {
  const names = new Set<string>();
  const namespaces = new Set<string>();
  for (const declaration of file.getImportDeclarations()) {
    if (declaration.getModuleSpecifierValue() !== "ocp-provider") continue;
    for (const named of declaration.getNamedImports()) {
      if (named.getName() === "defineProvider") names.add(named.getAliasNode()?.getText() ?? "defineProvider");
    }
    const namespace = declaration.getNamespaceImport();
    if (namespace !== undefined) namespaces.add(namespace.getText());
  }
  return file.getDescendantsOfKind(SyntaxKind.CallExpression).filter((call) => {
    const callee = call.getExpression();
    if (Node.isIdentifier(callee)) return names.has(callee.getText());
    if (Node.isPropertyAccessExpression(callee)) {
      return callee.getName() === "defineProvider" && namespaces.has(callee.getExpression().getText());
    }
    return false;
  });
}

function noProvider(fileName: string, why: string): CreateError {
  return new CreateError(CREATE_ERROR_CODES.NO_PROVIDER, `${fileName}: ${why}`);
}

/** Follows `plugins: list` / `{ plugins }` to `const list = [...]` in the same file. */
function arrayOf(expression: Expression | undefined, fileName: string): ArrayLiteralExpression {
  let node: Node | undefined = expression;
  for (let hops = 0; node !== undefined && hops < 4; hops++) {
    if (Node.isArrayLiteralExpression(node)) return node;
    if (Node.isAsExpression(node) || Node.isSatisfiesExpression(node) || Node.isParenthesizedExpression(node)) {
      node = node.getExpression();
      continue;
    }
    if (Node.isIdentifier(node)) {
      // A module-level `const plugins = [...]` (a shorthand property's symbol is the property's, not the variable's).
      node = node.getSourceFile().getVariableDeclaration(node.getText())?.getInitializer();
      continue;
    }
    break;
  }
  throw noProvider(
    fileName,
    "the plugins of defineProvider() are not an array literal in this file; add the plugin by hand",
  );
}

function pluginsArray(call: CallExpression, fileName: string): ArrayLiteralExpression {
  const options = call.getArguments()[0];
  if (!Node.isObjectLiteralExpression(options)) {
    throw noProvider(
      fileName,
      "defineProvider() is not given an object literal ({ name, version, dataFlow, plugins })",
    );
  }
  const property = (options as ObjectLiteralExpression).getProperty("plugins");
  if (Node.isPropertyAssignment(property)) return arrayOf(property.getInitializer(), fileName);
  if (Node.isShorthandPropertyAssignment(property)) return arrayOf(property.getNameNode(), fileName);
  throw noProvider(fileName, "defineProvider({ ... }) has no plugins property");
}

/** The file's quote character and whether its statements end with semicolons, judged by its imports. */
function styleOf(file: SourceFile): { quote: string; semicolon: string } {
  const first = file.getImportDeclarations()[0];
  if (first === undefined) return { quote: '"', semicolon: ";" };
  return {
    quote: first.getModuleSpecifier().getText().startsWith("'") ? "'" : '"',
    semicolon: first.getText().trimEnd().endsWith(";") ? ";" : "",
  };
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const end = text.indexOf("\n", at);
  return end === -1 ? text.length : end;
}

function indentAt(text: string, at: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, at)))?.[0] ?? "";
}

/** One level of the file's indentation: a tab, or its smallest run of leading spaces (default two). */
function indentUnit(text: string): string {
  if (/^\t/m.test(text)) return "\t";
  const widths = [...text.matchAll(/^( +)\S/gm)].map((match) => match[1]?.length ?? 0).filter((width) => width > 0);
  return " ".repeat(widths.length > 0 ? Math.min(...widths) : 2);
}

/** The edits that append `call` to `array`, written the way the array is already written. */
function appendEdits(text: string, array: ArrayLiteralExpression, call: string): Edit[] {
  const elements = array.getElements();
  const open = array.getStart();
  const close = array.getEnd() - 1;
  const last = elements.at(-1);
  if (last === undefined) {
    const inner = text.slice(open + 1, close);
    const indent = indentAt(text, open);
    if (inner.trim() === "") {
      const body = inner.includes("\n") ? `\n${indent}${indentUnit(text)}${call},\n${indent}` : call;
      return [{ at: open + 1, length: inner.length, text: body }];
    }
    // Only comments inside: the plugin goes on its own line after them.
    const before = inner.trimEnd();
    return [
      {
        at: open + 1 + before.length,
        length: inner.length - before.length,
        text: `\n${indent}${indentUnit(text)}${call},\n${indent}`,
      },
    ];
  }
  const afterLast = last.getEnd();
  // The list's own trailing comma, possibly after comments.
  const commaMatch = /^(?:\s|\/\*[\s\S]*?\*\/|\/\/[^\n]*\n)*,/.exec(text.slice(afterLast, close));
  const trailingComma = commaMatch !== null;
  const multiline = text.slice(open, last.getStart()).includes("\n");
  if (!multiline) {
    // `[a, b]` → `[a, b, call]`; `[a, b,]` → `[a, b, call,]`
    return trailingComma
      ? [{ at: afterLast + (commaMatch?.[0].length ?? 0), text: ` ${call},` }]
      : [{ at: afterLast, text: `, ${call}` }];
  }
  // One element per line: the new one goes on its own line after the last one's line
  // (after any comment there), indented like it, with a trailing comma iff the list has one.
  const indent = indentAt(text, last.getStart());
  const commaEnd = afterLast + (commaMatch?.[0].length ?? 0);
  const insertAt = Math.min(lineEnd(text, commaEnd), close);
  const edits: Edit[] = trailingComma ? [] : [{ at: afterLast, text: "," }];
  const closeOnSameLine = insertAt === close;
  edits.push({
    at: insertAt,
    text: `\n${indent}${call}${trailingComma ? "," : ""}${closeOnSameLine ? `\n${indentAt(text, open)}` : ""}`,
  });
  return edits;
}

/** The local name `exportName` is imported under from `module`, if it is. */
function importedName(file: SourceFile, module: string, exportName: string): string | undefined {
  for (const declaration of file.getImportDeclarations()) {
    if (declaration.getModuleSpecifierValue() !== module || declaration.isTypeOnly()) continue;
    for (const named of declaration.getNamedImports()) {
      if (named.getName() === exportName && !named.isTypeOnly()) return named.getAliasNode()?.getText() ?? exportName;
    }
  }
  return undefined;
}

function callsOf(array: ArrayLiteralExpression, name: string): boolean {
  return array.getElements().some((element) => {
    const inner = Node.isSpreadElement(element) ? element.getExpression() : element;
    return Node.isCallExpression(inner) && inner.getExpression().getText() === name;
  });
}

/** Adds `import { exportName } from "module"` and `exportName(args)` to the provider's plugins. Idempotent. */
export function wirePlugin(text: string, fileName: string, plugin: PluginWiring): WireResult {
  const file = parse(text, fileName);
  const calls = defineProviderCalls(file);
  if (calls.length === 0) {
    throw noProvider(
      fileName,
      'no defineProvider({ ... }) call: edit the file that defines the provider (import { defineProvider } from "ocp-provider")',
    );
  }
  if (calls.length > 1) throw noProvider(fileName, `${calls.length} defineProvider() calls: add the plugin by hand`);
  const array = pluginsArray(calls[0] as CallExpression, fileName);
  const { quote, semicolon } = styleOf(file);
  const edits: Edit[] = [];
  const added: WireResult["added"] = [];
  let local = importedName(file, plugin.module, plugin.exportName);
  if (local === undefined) {
    local = plugin.exportName;
    const imports = file.getImportDeclarations();
    const line = `import { ${plugin.exportName} } from ${quote}${plugin.module}${quote}${semicolon}`;
    const after = imports.at(-1);
    // After the last import's line, so a comment ending that line stays with it.
    edits.push(
      after === undefined ? { at: 0, text: `${line}\n` } : { at: lineEnd(text, after.getEnd()), text: `\n${line}` },
    );
    added.push("import");
  }
  if (!callsOf(array, local)) {
    edits.push(...appendEdits(text, array, `${local}(${plugin.args(quote)})`));
    added.push("plugin");
  }
  let next = text;
  // Back to front, so earlier positions stay valid; edits at one position keep their listed order.
  const ordered = edits.map((edit, order) => ({ ...edit, order })).sort((a, b) => b.at - a.at || b.order - a.order);
  for (const edit of ordered) {
    next = next.slice(0, edit.at) + edit.text + next.slice(edit.at + (edit.length ?? 0));
  }
  return { text: next, changed: next !== text, added };
}
