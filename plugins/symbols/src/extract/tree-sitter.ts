/**
 * Symbols from tree-sitter tag queries (web-tree-sitter 0.25 + the tree-sitter-wasms
 * grammars). Each language is a {@link TreeSitterSpec}: a query whose captures are
 * `@name` and `@definition.<kind>`, plus the few rules a query cannot state
 * (containers that are not symbols, visibility, doc comments). The runner here turns
 * matches into symbols with containers, qualified names, 1-based ranges and
 * signatures; definitions inside function bodies are locals and are left out.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Language, type Node, Parser, Query } from "web-tree-sitter";
import { type ExtractedSymbol, SYMBOL_KINDS, type SymbolKind } from "../model.js";
import { oneLine } from "./text.js";

/** A definition the query found, before containers are resolved. */
export interface Definition {
  /** The node the `@definition.<kind>` capture named. */
  readonly node: Node;
  readonly name: string;
  kind: SymbolKind;
  /** A container named by the query itself (a Go method's receiver type). */
  readonly receiver?: string;
}

/** A doc comment: its text, and where it starts when it sits above the declaration (not a docstring inside). */
export interface DocComment {
  readonly startLine?: number;
  readonly text: string | undefined;
}

/** The kind of what encloses a definition: a symbol's kind, `implicit` for a non-symbol container, or nothing. */
export type ContainerKind = SymbolKind | "implicit" | undefined;

/** What a language adds to its query. */
export interface TreeSitterSpec {
  /** The grammar file in tree-sitter-wasms (`tree-sitter-<grammar>.wasm`). */
  readonly grammar: string;
  /** Tag query: `@name` plus one `@definition.<kind>` per pattern; `@receiver` names a container. */
  readonly query: string;
  /** Between a container and a member in qualified names: `.` or `::`. */
  readonly separator: string;
  /** The node whose lines the symbol covers (a decorated definition, a one-spec declaration); default the node. */
  rangeNode?(definition: Definition): Node;
  /** The name of an enclosing node that contains members without being a symbol (a Rust `impl` block). */
  implicitContainer?(node: Node): string | undefined;
  /** The kind of a definition inside a container of kind `containerKind` (functions in classes are methods). */
  kindWithin?(definition: Definition, containerKind: ContainerKind): SymbolKind;
  /** Whether the definition is visible outside its module. */
  exported(definition: Definition, container: ExtractedSymbol | undefined, root: Node): boolean;
  /** The doc comment of a definition, if any. */
  doc?(definition: Definition, rangeNode: Node): DocComment | undefined;
  /** The node whose text up to its body is the signature; default the definition's node. */
  signatureNode?(definition: Definition, rangeNode: Node): Node;
  /** Where the range starts when attributes sit before the node (Rust `#[derive]`); default the range node's start. */
  startRow?(rangeNode: Node): number;
}

const require = createRequire(import.meta.url);
let initialised: Promise<void> | undefined;
const languages = new Map<string, Promise<{ language: Language; query: Query; parser: Parser }>>();

/** Loads a grammar and compiles its query once per thread. */
function load(spec: TreeSitterSpec): Promise<{ language: Language; query: Query; parser: Parser }> {
  let loaded = languages.get(spec.grammar);
  if (loaded === undefined) {
    loaded = (async () => {
      initialised ??= Parser.init();
      await initialised;
      const dir = join(dirname(require.resolve("tree-sitter-wasms/package.json")), "out");
      const language = await Language.load(join(dir, `tree-sitter-${spec.grammar}.wasm`));
      const parser = new Parser();
      parser.setLanguage(language);
      return { language, query: new Query(language, spec.query), parser };
    })();
    languages.set(spec.grammar, loaded);
    // A failed load is retried next time rather than cached.
    loaded.catch(() => languages.delete(spec.grammar));
  }
  return loaded;
}

const FUNCTION_KINDS: ReadonlySet<SymbolKind> = new Set(["function", "method", "constructor", "getter", "setter"]);

/** The symbols of one file; throws only when the grammar cannot be loaded or the parser gives up. */
export async function extractWithTreeSitter(text: string, spec: TreeSitterSpec): Promise<ExtractedSymbol[]> {
  const { query, parser } = await load(spec);
  parser.reset();
  const tree = parser.parse(text);
  if (tree === null) throw new Error("tree-sitter returned no tree");
  try {
    return collect(tree.rootNode, query, spec);
  } finally {
    tree.delete();
  }
}

function collect(root: Node, query: Query, spec: TreeSitterSpec): ExtractedSymbol[] {
  // Per node: its definitions (a Go `var a, b int` names two) and the pattern that found them.
  const definitions = new Map<number, { pattern: number; list: Definition[] }>();
  for (const match of query.matches(root)) {
    let node: Node | undefined;
    let kind: SymbolKind | undefined;
    let nameNode: Node | undefined;
    let receiver: string | undefined;
    for (const capture of match.captures) {
      if (capture.name === "name") nameNode = capture.node;
      else if (capture.name === "receiver") receiver = capture.node.text;
      else if (capture.name.startsWith("definition.")) {
        const captured = capture.name.slice("definition.".length) as SymbolKind;
        if (SYMBOL_KINDS.includes(captured)) {
          node = capture.node;
          kind = captured;
        }
      }
    }
    if (node === undefined || kind === undefined || nameNode === undefined) continue;
    // Patterns are ordered specific-first: the lowest pattern that matches a node decides its kind.
    const known = definitions.get(node.id);
    if (known !== undefined && known.pattern < match.patternIndex) continue;
    const list = namesOf(node, nameNode)
      .filter((name) => name !== "")
      .map((name): Definition => ({ node: node as Node, name, kind: kind as SymbolKind, receiver }));
    if (known !== undefined && known.pattern === match.patternIndex) {
      // The same pattern again on the same node: another declarator (`String path, backup;`).
      for (const definition of list)
        if (!known.list.some((other) => other.name === definition.name)) known.list.push(definition);
    } else if (list.length > 0) definitions.set(node.id, { pattern: match.patternIndex, list });
  }

  const symbols: ExtractedSymbol[] = [];
  const resolved = new Map<Definition, ExtractedSymbol | null>();

  /** The symbol for a definition, or null when it is a local (inside a function body). */
  function resolve(definition: Definition): ExtractedSymbol | null {
    const known = resolved.get(definition);
    if (known !== undefined) return known;
    let container: ExtractedSymbol | undefined;
    let containerName = definition.receiver;
    let local = false;
    for (let parent = definition.node.parent; parent !== null && containerName === undefined; parent = parent.parent) {
      const enclosing = definitions.get(parent.id)?.list[0];
      if (enclosing !== undefined) {
        const symbol = resolve(enclosing);
        if (symbol === null || FUNCTION_KINDS.has(symbol.kind)) local = true;
        else container = symbol;
        break;
      }
      const implicit = spec.implicitContainer?.(parent);
      if (implicit !== undefined) containerName = implicit;
    }
    if (local) {
      resolved.set(definition, null);
      return null;
    }
    const qualifier = container?.qualifiedName ?? containerName;
    const containerKind: ContainerKind = container?.kind ?? (qualifier !== undefined ? "implicit" : undefined);
    definition.kind = spec.kindWithin?.(definition, containerKind) ?? definition.kind;
    const rangeNode = spec.rangeNode?.(definition) ?? definition.node;
    const doc = spec.doc?.(definition, rangeNode);
    const startRow = spec.startRow?.(rangeNode) ?? rangeNode.startPosition.row;
    const symbol: ExtractedSymbol = {
      name: definition.name,
      qualifiedName: qualifier === undefined ? definition.name : `${qualifier}${spec.separator}${definition.name}`,
      kind: definition.kind,
      container: qualifier,
      startLine: startRow + 1,
      endLine: endRow(rangeNode) + 1,
      docStartLine: doc?.startLine,
      signature: signature(spec.signatureNode?.(definition, rangeNode) ?? definition.node),
      doc: doc?.text,
      exported: false,
    };
    symbol.exported = spec.exported(definition, container, root);
    resolved.set(definition, symbol);
    symbols.push(symbol);
    return symbol;
  }

  for (const { list } of definitions.values()) for (const definition of list) resolve(definition);
  return symbols.sort((a, b) => a.startLine - b.startLine || a.endLine - b.endLine);
}

/** Every name a definition node declares: `var a, b int` declares two; a query match only ever names the first. */
function namesOf(node: Node, nameNode: Node): string[] {
  if (nameNode.parent?.id !== node.id) return [nameNode.text];
  const field = node.childrenForFieldName("name").filter((child) => child?.type === nameNode.type);
  return field.length > 1 ? field.map((child) => child?.text ?? "") : [nameNode.text];
}

/** The last row a node covers: a node ending at column 0 ends on the row before. */
export function endRow(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row - 1 : end.row;
}

/** The header of a definition: its text up to the body, on one line. */
function signature(node: Node): string {
  const body = node.childForFieldName("body");
  const text = node.text;
  if (body !== null && body.startIndex > node.startIndex)
    return oneLine(text.slice(0, body.startIndex - node.startIndex));
  const newline = text.indexOf("\n");
  return oneLine(newline === -1 ? text : text.slice(0, newline));
}

/**
 * The run of comments right above `node` (no blank line between), oldest first,
 * skipping nodes `skip` accepts (Rust attributes); `isDoc` picks which comments count.
 */
export function commentsAbove(
  node: Node,
  isDoc: (comment: Node) => boolean,
  skip: (sibling: Node) => boolean = () => false,
): Node[] {
  const comments: Node[] = [];
  let row = node.startPosition.row;
  for (let sibling = node.previousNamedSibling; sibling !== null; sibling = sibling.previousNamedSibling) {
    if (endRow(sibling) < row - 1) break;
    if (isDoc(sibling)) comments.unshift(sibling);
    else if (!skip(sibling)) break;
    row = sibling.startPosition.row;
  }
  return comments;
}
