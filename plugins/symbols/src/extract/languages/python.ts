/**
 * Python: classes, functions (methods inside classes; `@property` getters and
 * `@x.setter` setters), module variables and class attributes. Visibility follows
 * `__all__` when the module defines it, else the leading-underscore convention
 * (dunder names are public). The doc is the docstring, which lies inside the range.
 */
import type { Node, Tree } from "web-tree-sitter";
import { cleanDoc } from "../text.js";
import type { Definition, TreeSitterSpec } from "../tree-sitter.js";

const QUERY = `
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(module (expression_statement (assignment left: (identifier) @name) @definition.variable))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @definition.property)))
`;

const allNames = new WeakMap<Tree, ReadonlySet<string> | null>();

/** The names a module lists in `__all__ = [...]` (or a tuple), or null when it has none. */
function declaredAll(root: Node): ReadonlySet<string> | null {
  const known = allNames.get(root.tree);
  if (known !== undefined) return known;
  let names: Set<string> | null = null;
  for (const statement of root.namedChildren) {
    const assignment = statement?.type === "expression_statement" ? statement.firstNamedChild : null;
    if (assignment?.type !== "assignment" || assignment.childForFieldName("left")?.text !== "__all__") continue;
    const value = assignment.childForFieldName("right");
    if (value === null || (value.type !== "list" && value.type !== "tuple")) continue;
    names = new Set();
    for (const item of value.namedChildren) {
      if (item?.type === "string") names.add(item.text.replace(/^[rRbBuU]*(["'])(.*)\1$/s, "$2"));
    }
  }
  allNames.set(root.tree, names);
  return names;
}

function decorators(definition: Definition): string[] {
  const parent = definition.node.parent;
  if (parent?.type !== "decorated_definition") return [];
  return parent.namedChildren.filter((child) => child?.type === "decorator").map((child) => child?.text ?? "");
}

function isPublicName(name: string): boolean {
  return !name.startsWith("_") || (name.startsWith("__") && name.endsWith("__"));
}

/** Python as the index reads it. */
export const python: TreeSitterSpec = {
  grammar: "python",
  query: QUERY,
  separator: ".",
  rangeNode: (definition) =>
    definition.node.parent?.type === "decorated_definition" ? definition.node.parent : definition.node,
  kindWithin(definition, containerKind) {
    if (definition.kind !== "function" || containerKind !== "class") return definition.kind;
    const marks = decorators(definition);
    if (marks.includes("@property")) return "getter";
    if (marks.some((mark) => /^@[\w.]+\.setter$/.test(mark))) return "setter";
    return "method";
  },
  exported(definition, container, root) {
    if (container !== undefined) return container.exported && isPublicName(definition.name);
    const all = declaredAll(root);
    return all !== null ? all.has(definition.name) : isPublicName(definition.name);
  },
  doc(definition) {
    const first = definition.node.childForFieldName("body")?.firstNamedChild;
    const literal = first?.type === "expression_statement" ? first.firstNamedChild : null;
    if (literal?.type !== "string") return undefined;
    return { text: cleanDoc(literal.text) };
  },
};
