/**
 * TypeScript and JavaScript symbols, read with the TypeScript compiler that ts-morph
 * bundles: a syntax-only parse per file (no Project, no type checking, no JSDoc
 * parsing — the leading comment is read directly), which is what makes a full build
 * of thousands of files take seconds, not minutes.
 *
 * Reported: functions (overloads merged into one symbol), classes and their
 * constructors, methods, properties, getters and setters; interfaces and their
 * members; type aliases (members of an object-literal type too); enums and their
 * members; namespaces and ambient modules; top-level variables (`const f = () => …`
 * is a function); methods of top-level object literals; CommonJS `exports.x = …` and
 * `X.prototype.y = …`. Locals inside function bodies are not symbols.
 */
import { createRequire } from "node:module";
import type { ts as Ts } from "ts-morph";
import type { ExtractedSymbol, Language, SymbolKind } from "../model.js";
import { cleanDoc, oneLine } from "./text.js";

// The compiler ts-morph bundles, from the package that bundles it (resolved from ts-morph, whose
// dependency it is), without loading the rest of ts-morph. And require(), not import: importing
// a CommonJS bundle from ESM makes Node lex all of it for export names first. Each saves ~100 ms
// per thread that parses.
const fromTsMorph = createRequire(createRequire(import.meta.url).resolve("ts-morph"));
const ts = (fromTsMorph("@ts-morph/common") as { ts: typeof Ts }).ts;

type Node = Ts.Node;

/** Raw text read for one signature or doc comment: far more than either keeps, far less than a huge type. */
const MAX_RAW = 4000;

/** Where a declaration sits: its container's qualified name and what export status its members inherit. */
interface Scope {
  readonly prefix: string | undefined;
  /** Members declared here are visible outside the module (ambient declarations, exported containers). */
  readonly exportsAll: boolean;
  /** Members need an `export` keyword and an exported container to be visible. */
  readonly exported: boolean;
}

const SCRIPT_KINDS: Record<string, Ts.ScriptKind> = {
  typescript: ts.ScriptKind.TS,
  tsx: ts.ScriptKind.TSX,
  javascript: ts.ScriptKind.JS,
  jsx: ts.ScriptKind.JSX,
};

/** The symbols of one TypeScript/JavaScript file. Never throws on syntax errors: the parser recovers. */
export function extractTypeScript(text: string, fileName: string, language: Language): ExtractedSymbol[] {
  const sourceFile = ts.createSourceFile(
    fileName,
    text,
    { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
    false,
    SCRIPT_KINDS[language] ?? ts.ScriptKind.TS,
  );
  const collector = new Collector(sourceFile, text);
  // A declaration file without imports or exports declares globals: all of it is visible.
  const global = sourceFile.isDeclarationFile && !ts.isExternalModule(sourceFile);
  collector.statements(sourceFile.statements, { prefix: undefined, exportsAll: global, exported: true });
  collector.applyLocalExports();
  return collector.symbols;
}

function hasModifier(node: Node, kind: Ts.SyntaxKind): boolean {
  // The node's own list: ts.getModifiers() filters the decorators out into a new array on every call.
  const modifiers = (node as { modifiers?: readonly Node[] }).modifiers;
  if (modifiers === undefined) return false;
  for (const modifier of modifiers) if (modifier.kind === kind) return true;
  return false;
}

function nameText(name: Ts.PropertyName | Ts.BindingName | Ts.ModuleName | undefined, text: string): string {
  if (name === undefined) return "";
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name))
    return name.text;
  return text.slice(name.pos, name.end).trim();
}

function isFunctionLike(node: Node | undefined): node is Ts.ArrowFunction | Ts.FunctionExpression {
  return node !== undefined && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));
}

class Collector {
  readonly symbols: ExtractedSymbol[] = [];
  /** Names exported by `export { a, b as c }`, `export default a` or `module.exports = { a }`. */
  private readonly localExports = new Set<string>();
  /** The last symbol added in each scope, so consecutive overloads merge into one. */
  private readonly lastInScope = new Map<string, ExtractedSymbol>();
  /** Members that stay hidden even in an exported container (private, protected, `#x`, `_x` on a prototype). */
  private readonly hidden = new Set<ExtractedSymbol>();

  constructor(
    private readonly file: Ts.SourceFile,
    private readonly text: string,
  ) {}

  private line(offset: number): number {
    return this.file.getLineAndCharacterOfPosition(offset).line + 1;
  }

  /** Where the header starts: after any decorators, so a signature reads `class A`, not `@Injectable() class A`. */
  private headerStart(node: Node, start: number): number {
    const modifiers = (node as { modifiers?: readonly Node[] }).modifiers;
    let at = start;
    for (const modifier of modifiers ?? []) if (modifier.kind === ts.SyntaxKind.Decorator) at = modifier.end;
    while (at < this.text.length && /\s/.test(this.text[at] as string)) at++;
    return at;
  }

  /** The `/** … *\/` comment ending right above `node` (which starts at `start`), if any. */
  private docComment(node: Node, start: number): { startLine: number; text: string | undefined } | undefined {
    // Cheap test first: most declarations have no block comment in their leading trivia.
    if (!this.text.slice(node.pos, start).includes("*/")) return undefined;
    const ranges = ts.getLeadingCommentRanges(this.text, node.pos);
    const last = ranges?.[ranges.length - 1];
    if (last === undefined || last.kind !== ts.SyntaxKind.MultiLineCommentTrivia) return undefined;
    if (!this.text.startsWith("/**", last.pos) || last.end - last.pos <= 4) return undefined;
    const gap = this.text.slice(last.end, start);
    if (gap.indexOf("\n") !== gap.lastIndexOf("\n")) return undefined; // a blank line parts it from the declaration
    return {
      startLine: this.line(last.pos),
      text: cleanDoc(this.text.slice(last.pos, Math.min(last.end, last.pos + MAX_RAW))),
    };
  }

  /** Adds one symbol (or extends the overload before it); `rangeNode`, default `node`, gives its lines and doc (a variable uses its statement). */
  private add(
    node: Node,
    init: { name: string; kind: SymbolKind; scope: Scope; exported: boolean; headerEnd: number },
    rangeNode: Node = node,
  ): ExtractedSymbol | undefined {
    const { name, kind, scope } = init;
    if (name === "") return undefined;
    const qualifiedName = scope.prefix === undefined ? name : `${scope.prefix}.${name}`;
    const start = rangeNode.getStart(this.file);
    const startLine = this.line(start);
    const endLine = this.line(rangeNode.end);
    const scopeKey = scope.prefix ?? "";
    const previous = this.lastInScope.get(scopeKey);
    const overload = kind === "function" || kind === "method" || kind === "constructor";
    if (
      overload &&
      previous?.qualifiedName === qualifiedName &&
      previous.kind === kind &&
      previous.endLine <= startLine
    ) {
      previous.endLine = endLine;
      previous.exported ||= init.exported;
      return previous;
    }
    const doc = this.docComment(rangeNode, start);
    const headerStart = this.headerStart(rangeNode, start);
    const symbol: ExtractedSymbol = {
      name,
      qualifiedName,
      kind,
      container: scope.prefix,
      startLine,
      endLine,
      docStartLine: doc?.startLine,
      signature: oneLine(
        this.text.slice(headerStart, Math.min(Math.max(init.headerEnd, headerStart), headerStart + MAX_RAW)),
      ),
      doc: doc?.text,
      exported: init.exported,
    };
    this.symbols.push(symbol);
    this.lastInScope.set(scopeKey, symbol);
    return symbol;
  }

  private exportedHere(node: Node, scope: Scope): boolean {
    return scope.exportsAll || (scope.exported && hasModifier(node, ts.SyntaxKind.ExportKeyword));
  }

  /** Where a declaration's body starts (its header ends there), or its end when it has none. */
  private bodyStart(node: Node, fallback: Node): number {
    const body = (node as { body?: Node }).body;
    return body !== undefined ? body.getStart(this.file) : fallback.end;
  }

  statements(statements: readonly Ts.Statement[], scope: Scope): void {
    for (const statement of statements) this.statement(statement, scope);
  }

  private statement(node: Ts.Statement, scope: Scope): void {
    const exported = this.exportedHere(node, scope);
    if (ts.isFunctionDeclaration(node)) {
      const name = node.name?.text ?? "";
      this.add(node, { name, kind: "function", scope, exported, headerEnd: this.bodyStart(node, node) });
    } else if (ts.isClassDeclaration(node)) {
      if (node.name !== undefined) this.classLike(node, node.name.text, "class", scope, exported);
    } else if (ts.isInterfaceDeclaration(node)) {
      this.classLike(node, node.name.text, "interface", scope, exported);
    } else if (ts.isTypeAliasDeclaration(node)) {
      const symbol = this.add(node, { name: node.name.text, kind: "type", scope, exported, headerEnd: node.end });
      if (symbol !== undefined && ts.isTypeLiteralNode(node.type)) {
        this.members(node.type.members, this.inner(symbol, scope, exported));
      }
    } else if (ts.isEnumDeclaration(node)) {
      const headerEnd = node.members.pos - 1;
      const symbol = this.add(node, { name: node.name.text, kind: "enum", scope, exported, headerEnd });
      if (symbol === undefined) return;
      const inner = this.inner(symbol, scope, exported);
      for (const member of node.members) {
        const name = nameText(member.name, this.text);
        this.add(member, { name, kind: "enum-member", scope: inner, exported, headerEnd: member.end });
      }
    } else if (ts.isModuleDeclaration(node)) {
      this.module(node, scope, exported);
    } else if (ts.isVariableStatement(node)) {
      this.variables(node, scope, exported);
    } else if (ts.isExpressionStatement(node)) {
      this.commonJs(node, scope);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier === undefined && node.exportClause) {
      if (ts.isNamedExports(node.exportClause)) {
        for (const element of node.exportClause.elements)
          this.localExports.add((element.propertyName ?? element.name).text);
      }
    } else if (ts.isExportAssignment(node) && ts.isIdentifier(node.expression)) {
      this.localExports.add(node.expression.text);
    }
  }

  /** The scope of a container's members. */
  private inner(symbol: ExtractedSymbol, scope: Scope, exported: boolean): Scope {
    return { prefix: symbol.qualifiedName, exportsAll: false, exported: exported || scope.exportsAll };
  }

  private classLike(
    node: Ts.ClassLikeDeclaration | Ts.InterfaceDeclaration,
    name: string,
    kind: "class" | "interface",
    scope: Scope,
    exported: boolean,
  ): void {
    const symbol = this.add(node, { name, kind, scope, exported, headerEnd: node.members.pos - 1 });
    if (symbol !== undefined) this.members(node.members, this.inner(symbol, scope, exported));
  }

  /** The kind of a class or interface member and where its header ends, or undefined for what is not a symbol. */
  private memberKind(member: Ts.ClassElement | Ts.TypeElement): { kind: SymbolKind; headerEnd: number } | undefined {
    switch (member.kind) {
      case ts.SyntaxKind.MethodDeclaration:
      case ts.SyntaxKind.MethodSignature:
        return { kind: "method", headerEnd: this.bodyStart(member, member) };
      case ts.SyntaxKind.Constructor:
        return { kind: "constructor", headerEnd: this.bodyStart(member, member) };
      case ts.SyntaxKind.GetAccessor:
        return { kind: "getter", headerEnd: this.bodyStart(member, member) };
      case ts.SyntaxKind.SetAccessor:
        return { kind: "setter", headerEnd: this.bodyStart(member, member) };
      case ts.SyntaxKind.PropertyDeclaration:
      case ts.SyntaxKind.PropertySignature: {
        const value = ts.isPropertyDeclaration(member) ? member.initializer : undefined;
        if (isFunctionLike(value)) return { kind: "method", headerEnd: value.body.getStart(this.file) };
        return { kind: "property", headerEnd: value?.getStart(this.file) ?? member.end };
      }
      default:
        return undefined;
    }
  }

  private members(members: readonly (Ts.ClassElement | Ts.TypeElement)[], scope: Scope): void {
    for (const member of members) {
      const found = this.memberKind(member);
      if (found === undefined) continue;
      const hidden =
        hasModifier(member, ts.SyntaxKind.PrivateKeyword) ||
        hasModifier(member, ts.SyntaxKind.ProtectedKeyword) ||
        (member.name !== undefined && ts.isPrivateIdentifier(member.name));
      const name = found.kind === "constructor" ? "constructor" : nameText(member.name, this.text);
      const symbol = this.add(member, {
        name,
        kind: found.kind,
        scope,
        exported: scope.exported && !hidden,
        headerEnd: found.headerEnd,
      });
      if (hidden && symbol !== undefined) this.hidden.add(symbol);
    }
  }

  private module(node: Ts.ModuleDeclaration, scope: Scope, exported: boolean): void {
    const ambient = hasModifier(node, ts.SyntaxKind.DeclareKeyword) || this.file.isDeclarationFile;
    if (node.flags & ts.NodeFlags.GlobalAugmentation) {
      // `declare global { … }`: its declarations are globals, not members of anything.
      if (node.body && ts.isModuleBlock(node.body))
        this.statements(node.body.statements, { prefix: undefined, exportsAll: true, exported: true });
      return;
    }
    const kind = ts.isStringLiteral(node.name) ? "module" : "namespace";
    const symbol = this.add(node, {
      name: nameText(node.name, this.text),
      kind,
      scope,
      exported: exported || kind === "module",
      headerEnd: this.bodyStart(node, node),
    });
    if (symbol === undefined) return;
    const inner: Scope = { prefix: symbol.qualifiedName, exportsAll: ambient, exported: symbol.exported };
    if (node.body === undefined) return;
    if (ts.isModuleBlock(node.body)) this.statements(node.body.statements, inner);
    else if (ts.isModuleDeclaration(node.body)) this.module(node.body, inner, true); // namespace A.B { … }
  }

  private variables(node: Ts.VariableStatement, scope: Scope, exported: boolean): void {
    const declarations = node.declarationList.declarations;
    for (const declaration of declarations) {
      if (!ts.isIdentifier(declaration.name)) continue; // destructuring binds no single name
      const value = declaration.initializer;
      const kind: SymbolKind = isFunctionLike(value)
        ? "function"
        : value !== undefined && ts.isClassExpression(value)
          ? "class"
          : "variable";
      const headerEnd = isFunctionLike(value)
        ? value.body.getStart(this.file)
        : value !== undefined && ts.isClassExpression(value)
          ? value.members.pos - 1
          : (value?.getStart(this.file) ?? declaration.end);
      // One declaration: the statement's range (with `export const`) and its doc comment.
      const rangeNode = declarations.length === 1 ? node : declaration;
      const symbol = this.add(
        declaration,
        { name: declaration.name.text, kind, scope, exported, headerEnd },
        rangeNode,
      );
      if (symbol === undefined || value === undefined) continue;
      const inner = this.inner(symbol, scope, exported);
      if (ts.isClassExpression(value)) this.members(value.members, inner);
      else if (ts.isObjectLiteralExpression(value) && scope.prefix === undefined) this.objectMethods(value, inner);
    }
  }

  /** Function-valued members of a top-level object literal: `const api = { get() {…}, post: () => … }`. */
  private objectMethods(object: Ts.ObjectLiteralExpression, scope: Scope): void {
    for (const property of object.properties) {
      const name = nameText(property.name, this.text);
      if (ts.isMethodDeclaration(property)) {
        this.add(property, {
          name,
          kind: "method",
          scope,
          exported: scope.exported,
          headerEnd: this.bodyStart(property, property),
        });
      } else if (ts.isPropertyAssignment(property) && isFunctionLike(property.initializer)) {
        const headerEnd = property.initializer.body.getStart(this.file);
        this.add(property, { name, kind: "method", scope, exported: scope.exported, headerEnd });
      }
    }
  }

  /** `exports.x = …`, `module.exports.x = …`, `module.exports = { a, b }`, `X.prototype.y = …`. */
  private commonJs(node: Ts.ExpressionStatement, scope: Scope): void {
    if (scope.prefix !== undefined) return;
    const expression = node.expression;
    if (!ts.isBinaryExpression(expression) || expression.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return;
    const target = this.text.slice(expression.left.getStart(this.file), expression.left.end).replace(/\s+/g, "");
    const value = expression.right;
    if (target === "module.exports") {
      if (ts.isIdentifier(value)) this.localExports.add(value.text);
      else if (ts.isObjectLiteralExpression(value)) {
        for (const property of value.properties) {
          if (ts.isShorthandPropertyAssignment(property)) this.localExports.add(property.name.text);
          else if (ts.isPropertyAssignment(property) && ts.isIdentifier(property.initializer))
            this.localExports.add(property.initializer.text);
        }
      }
      return;
    }
    const kind: SymbolKind = isFunctionLike(value) ? "function" : ts.isClassExpression(value) ? "class" : "variable";
    const headerEnd = isFunctionLike(value) ? value.body.getStart(this.file) : value.getStart(this.file);
    const exported = /^(?:module\.)?exports\.([\p{L}_$][\p{L}\p{N}_$]*)$/u.exec(target);
    if (exported !== null) {
      this.add(node, { name: exported[1] as string, kind, scope, exported: true, headerEnd });
      return;
    }
    const method = /^([\p{L}_$][\p{L}\p{N}_$]*)\.prototype\.([\p{L}_$][\p{L}\p{N}_$]*)$/u.exec(target);
    if (method !== null) {
      const inner: Scope = { prefix: method[1], exportsAll: false, exported: true };
      const name = method[2] as string;
      const memberKind = kind === "function" ? "method" : "property";
      const symbol = this.add(node, {
        name,
        kind: memberKind,
        scope: inner,
        exported: !name.startsWith("_"),
        headerEnd,
      });
      if (symbol !== undefined && name.startsWith("_")) this.hidden.add(symbol);
    }
  }

  /** Marks top-level symbols named by `export { … }` and friends as exported, with their members. */
  applyLocalExports(): void {
    if (this.localExports.size === 0) return;
    const exportedContainers = new Set<string>();
    for (const symbol of this.symbols) {
      if (symbol.container === undefined && this.localExports.has(symbol.name) && !symbol.exported) {
        symbol.exported = true;
        exportedContainers.add(symbol.qualifiedName);
      }
    }
    for (const symbol of this.symbols) {
      // A member of a newly exported container is as visible as its own modifiers allow.
      if (symbol.container !== undefined && exportedContainers.has(symbol.container))
        symbol.exported = !this.hidden.has(symbol);
    }
  }
}
