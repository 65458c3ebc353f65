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
 * is a function); methods of top-level object literals; CommonJS-era JavaScript:
 * `exports.x = …`, `module.exports = …` (and its aliases, `var app = exports =
 * module.exports = {}`), `X.prototype.y = …`, `X.prototype = { … }`, `X.y = …` on a
 * top-level binding, chained assignments, and the declarations inside an immediately
 * invoked function (`(function () { … })()`, `!function () { … }()`, a UMD or AMD
 * factory). Locals inside function bodies are not symbols.
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

/** Without parentheses, `!`, `void` and type assertions around it: `(function () {…})` → the function. */
function unwrap(node: Ts.Expression): Ts.Expression {
  let at = node;
  for (;;) {
    if (ts.isParenthesizedExpression(at) || ts.isAsExpression(at) || ts.isNonNullExpression(at)) at = at.expression;
    else if (ts.isPrefixUnaryExpression(at) && at.operator === ts.SyntaxKind.ExclamationToken) at = at.operand;
    else if (ts.isVoidExpression(at)) at = at.expression;
    else return at;
  }
}

function isAssignment(node: Ts.Expression): node is Ts.BinaryExpression {
  return ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken;
}

/**
 * The bodies a top-level call runs as module code: an immediately invoked function
 * (`(function () {…})()`, `(() => {…})()`, `(function () {…}).call(this)`), and the
 * function arguments of such a call or of AMD's `define(…)` (a UMD or AMD factory).
 */
function moduleBodies(expression: Ts.Expression): Ts.Block[] {
  const call = unwrap(expression);
  if (!ts.isCallExpression(call)) return [];
  let callee = unwrap(call.expression);
  // `(function () {…}).call(this)`, `.apply(this, arguments)`
  if (
    ts.isPropertyAccessExpression(callee) &&
    (callee.name.text === "call" || callee.name.text === "apply") &&
    isFunctionLike(unwrap(callee.expression))
  ) {
    callee = unwrap(callee.expression);
  }
  const invoked = isFunctionLike(callee);
  if (!invoked && !(ts.isIdentifier(callee) && callee.text === "define")) return [];
  const bodies: Ts.Block[] = [];
  const take = (node: Ts.Expression) => {
    const fn = unwrap(node);
    if (isFunctionLike(fn) && ts.isBlock(fn.body)) bodies.push(fn.body);
  };
  if (invoked) take(callee);
  for (const argument of call.arguments) take(argument);
  return bodies;
}

/** `require("x")`, `require("x").y`, `require("debug")("app")`: an import, which defines nothing here. */
function isRequire(node: Ts.Expression | undefined): boolean {
  let at = node !== undefined ? unwrap(node) : undefined;
  while (at !== undefined) {
    if (ts.isCallExpression(at)) {
      if (ts.isIdentifier(at.expression) && at.expression.text === "require") return true;
      at = unwrap(at.expression);
    } else if (ts.isPropertyAccessExpression(at) || ts.isElementAccessExpression(at)) at = unwrap(at.expression);
    else return false;
  }
  return false;
}

/** A name bound at the top of a module, and whether it is `module.exports` under another name. */
interface Binding {
  readonly symbol: ExtractedSymbol | undefined;
  readonly exportsAlias: boolean;
}

class Collector {
  readonly symbols: ExtractedSymbol[] = [];
  /** Top-level names (declarations, and aliases of `module.exports`), for `X.y = …` assignments. */
  private readonly bindings = new Map<string, Binding>();
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
    if (scope.prefix === undefined) {
      // Function declarations are hoisted: `Route.prototype.x = …` may come before `function Route`.
      for (const statement of statements) {
        if (
          ts.isFunctionDeclaration(statement) &&
          statement.name !== undefined &&
          !this.bindings.has(statement.name.text)
        )
          this.bindings.set(statement.name.text, { symbol: undefined, exportsAlias: false });
      }
    }
    for (const statement of statements) this.statement(statement, scope);
  }

  /** Remembers a top-level binding for later `X.y = …` assignments. */
  private bind(name: string, symbol: ExtractedSymbol | undefined, exportsAlias = false): void {
    const known = this.bindings.get(name);
    this.bindings.set(name, {
      symbol: symbol ?? known?.symbol,
      exportsAlias: exportsAlias || known?.exportsAlias === true,
    });
  }

  private statement(node: Ts.Statement, scope: Scope): void {
    const exported = this.exportedHere(node, scope);
    if (ts.isFunctionDeclaration(node)) {
      const name = node.name?.text ?? "";
      const symbol = this.add(node, { name, kind: "function", scope, exported, headerEnd: this.bodyStart(node, node) });
      if (scope.prefix === undefined && symbol !== undefined) this.bind(name, symbol);
    } else if (ts.isClassDeclaration(node)) {
      if (node.name !== undefined) {
        const symbol = this.classLike(node, node.name.text, "class", scope, exported);
        if (scope.prefix === undefined && symbol !== undefined) this.bind(node.name.text, symbol);
      }
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
  ): ExtractedSymbol | undefined {
    const symbol = this.add(node, { name, kind, scope, exported, headerEnd: node.members.pos - 1 });
    if (symbol !== undefined) this.members(node.members, this.inner(symbol, scope, exported));
    return symbol;
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
      const name = declaration.name.text;
      if (isRequire(declaration.initializer)) continue;
      // `var app = exports = module.exports = {}`: the value is the chain's last, and `app` is what the module exports.
      let value = declaration.initializer !== undefined ? unwrap(declaration.initializer) : undefined;
      let exportsAlias = false;
      while (value !== undefined && isAssignment(value) && scope.prefix === undefined) {
        const target = this.targetText(value.left);
        if (target === "exports" || target === "module.exports" || target === `exports.${name}`) exportsAlias = true;
        if (target === `module.exports.${name}`) exportsAlias = true;
        value = unwrap(value.right);
      }
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
      const visible = exported || exportsAlias;
      const symbol = this.add(declaration, { name, kind, scope, exported: visible, headerEnd }, rangeNode);
      if (symbol === undefined || value === undefined) continue;
      if (scope.prefix === undefined) this.bind(name, symbol, exportsAlias);
      const inner = this.inner(symbol, scope, visible);
      if (ts.isClassExpression(value)) this.members(value.members, inner);
      else if (ts.isObjectLiteralExpression(value) && scope.prefix === undefined) this.objectMethods(value, inner);
      else if (scope.prefix === undefined) {
        // The module pattern: `var Lib = (function () { function Lib() {…} …; return Lib; })()`.
        for (const body of moduleBodies(value)) this.statements(body.statements, this.moduleScope(scope));
      }
    }
  }

  /** The scope of the code inside an immediately invoked function at the top of a module: the module's own. */
  private moduleScope(scope: Scope): Scope {
    return { prefix: undefined, exportsAll: scope.exportsAll, exported: scope.exported };
  }

  /** An assignment target as written, whitespace dropped: `module.exports.x`, `Foo.prototype.bar`. */
  private targetText(node: Ts.Expression): string {
    return this.text.slice(node.getStart(this.file), node.end).replace(/\s+/g, "");
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

  /**
   * CommonJS-era assignments at the top of a module (each target of a chain `a = b = …`):
   * `exports.x = …`, `module.exports.x = …`, `module.exports = …`, `X.prototype.y = …`,
   * `X.prototype = { … }` and `X.y = …` where `X` is bound at the top of the module.
   * And the bodies of immediately invoked functions, read as module code.
   */
  private commonJs(node: Ts.ExpressionStatement, scope: Scope): void {
    if (scope.prefix !== undefined) return;
    const targets: Ts.Expression[] = [];
    let value = node.expression;
    while (isAssignment(value)) {
      targets.push(value.left);
      value = value.right;
    }
    if (targets.length === 0) {
      for (const body of moduleBodies(node.expression)) this.statements(body.statements, this.moduleScope(scope));
      return;
    }
    value = unwrap(value);
    for (const target of targets) this.assignment(node, this.targetText(target), value, scope);
  }

  /** One target of a top-level assignment statement `node` whose value is `value`. */
  private assignment(node: Ts.ExpressionStatement, target: string, value: Ts.Expression, scope: Scope): void {
    const kind: SymbolKind = isFunctionLike(value) ? "function" : ts.isClassExpression(value) ? "class" : "variable";
    const headerEnd = isFunctionLike(value) ? value.body.getStart(this.file) : value.getStart(this.file);
    if (target === "module.exports" || target === "exports") {
      this.moduleExports(node, value, scope);
      return;
    }
    const exported = /^(?:module\.)?exports\.([\p{L}_$][\p{L}\p{N}_$]*)$/u.exec(target);
    if (exported !== null) {
      const symbol = this.add(node, { name: exported[1] as string, kind, scope, exported: true, headerEnd });
      if (symbol !== undefined && ts.isObjectLiteralExpression(value)) {
        this.objectMethods(value, this.inner(symbol, scope, true));
      }
      return;
    }
    const prototype = /^([\p{L}_$][\p{L}\p{N}_$]*)\.prototype$/u.exec(target);
    if (prototype !== null) {
      // `View.prototype = { lookup: function () {…}, render() {…} }`: methods of View.
      if (ts.isObjectLiteralExpression(value)) this.prototypeObject(prototype[1] as string, value);
      return;
    }
    const method = /^([\p{L}_$][\p{L}\p{N}_$]*)\.prototype\.([\p{L}_$][\p{L}\p{N}_$]*)$/u.exec(target);
    if (method !== null) {
      this.member(node, method[1] as string, method[2] as string, kind, headerEnd, true);
      return;
    }
    // `app.init = function init() {…}` where `app` is bound here: a member of it, as visible as it is.
    const member = /^([\p{L}_$][\p{L}\p{N}_$]*)\.([\p{L}_$][\p{L}\p{N}_$]*)$/u.exec(target);
    const binding = member !== null ? this.bindings.get(member[1] as string) : undefined;
    if (member !== null && binding !== undefined) {
      const visible = binding.exportsAlias || binding.symbol?.exported === true;
      this.member(node, member[1] as string, member[2] as string, kind, headerEnd, visible);
    }
  }

  /** `module.exports = …`: what it names is exported; a named function or class, or an object of functions, is a symbol. */
  private moduleExports(node: Ts.ExpressionStatement, value: Ts.Expression, scope: Scope): void {
    if (ts.isIdentifier(value)) {
      this.localExports.add(value.text);
      return;
    }
    if ((isFunctionLike(value) || ts.isClassExpression(value)) && value.name !== undefined) {
      const named = value.name as Ts.Identifier;
      const kind = ts.isClassExpression(value) ? "class" : "function";
      const headerEnd = ts.isClassExpression(value) ? value.members.pos - 1 : value.body.getStart(this.file);
      const symbol = this.add(node, { name: named.text, kind, scope, exported: true, headerEnd });
      if (symbol !== undefined && ts.isClassExpression(value))
        this.members(value.members, this.inner(symbol, scope, true));
      return;
    }
    if (!ts.isObjectLiteralExpression(value)) return;
    for (const property of value.properties) {
      if (ts.isShorthandPropertyAssignment(property)) this.localExports.add(property.name.text);
      else if (ts.isPropertyAssignment(property) && ts.isIdentifier(property.initializer))
        this.localExports.add(property.initializer.text);
    }
    // `module.exports = { create: function () {…}, parse(text) {…} }`: exported functions.
    for (const property of value.properties) {
      const name = nameText(property.name, this.text);
      if (ts.isMethodDeclaration(property)) {
        this.add(property, {
          name,
          kind: "function",
          scope,
          exported: true,
          headerEnd: this.bodyStart(property, property),
        });
      } else if (ts.isPropertyAssignment(property) && isFunctionLike(property.initializer)) {
        const headerEnd = property.initializer.body.getStart(this.file);
        this.add(property, { name, kind: "function", scope, exported: true, headerEnd });
      }
    }
  }

  /** Methods of `X.prototype = { … }`. */
  private prototypeObject(owner: string, object: Ts.ObjectLiteralExpression): void {
    for (const property of object.properties) {
      const name = nameText(property.name, this.text);
      if (ts.isMethodDeclaration(property)) {
        this.member(property, owner, name, "function", this.bodyStart(property, property), true);
      } else if (ts.isPropertyAssignment(property)) {
        const value = unwrap(property.initializer);
        const headerEnd = isFunctionLike(value) ? value.body.getStart(this.file) : value.getStart(this.file);
        this.member(property, owner, name, isFunctionLike(value) ? "function" : "variable", headerEnd, true);
      }
    }
  }

  /** `owner.name`, a method when its value is a function (else a property); a `_name` stays hidden. */
  private member(node: Node, owner: string, name: string, kind: SymbolKind, headerEnd: number, visible: boolean): void {
    const inner: Scope = { prefix: owner, exportsAll: false, exported: true };
    const memberKind = kind === "function" ? "method" : "property";
    const hidden = name.startsWith("_");
    const symbol = this.add(node, { name, kind: memberKind, scope: inner, exported: visible && !hidden, headerEnd });
    if (symbol !== undefined && hidden) this.hidden.add(symbol);
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
