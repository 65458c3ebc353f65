/**
 * Java: classes, records, interfaces, annotation types, enums and their constants,
 * methods, constructors, fields and interface constants. Exported means `public`
 * in an exported container (interface members are public by default); the doc is
 * the `/** … *\/` comment right above the declaration.
 */
import type { Node } from "web-tree-sitter";
import { cleanDoc } from "../text.js";
import { commentsAbove, type TreeSitterSpec } from "../tree-sitter.js";

const QUERY = `
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(enum_constant name: (identifier) @name) @definition.enum-member
(method_declaration name: (identifier) @name) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.property
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant
`;

const isJavadoc = (node: Node) => node.type === "block_comment" && node.text.startsWith("/**") && node.text !== "/**/";

function isPublic(node: Node): boolean {
  const modifiers = node.namedChildren.find((child) => child?.type === "modifiers");
  return modifiers?.children.some((child) => child?.type === "public") ?? false;
}

/** Java as the index reads it. */
export const java: TreeSitterSpec = {
  grammar: "java",
  query: QUERY,
  separator: ".",
  exported(definition, container) {
    if (definition.kind === "enum-member") return container?.exported ?? false;
    const implicitlyPublic = container?.kind === "interface";
    return (implicitlyPublic || isPublic(definition.node)) && (container?.exported ?? true);
  },
  doc(_definition, range) {
    const comments = commentsAbove(range, isJavadoc);
    const last = comments[comments.length - 1];
    if (last === undefined) return undefined;
    return { startLine: last.startPosition.row + 1, text: cleanDoc(last.text) };
  },
};
