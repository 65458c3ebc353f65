/**
 * Rust: functions (methods inside `impl` and `trait` blocks, whose type is the
 * container), structs, unions and their fields, enums and their variants, traits,
 * type aliases and associated types, constants, statics, modules and
 * `macro_rules!` macros. Exported means `pub` (not `pub(crate)`); trait items and
 * variants are as visible as their container, methods of a trait impl as the trait.
 * The doc is the run of `///` (or `/**` block) comments above; attributes count in the range.
 */
import type { Node } from "web-tree-sitter";
import { cleanDoc } from "../text.js";
import { commentsAbove, endRow, type TreeSitterSpec } from "../tree-sitter.js";

const QUERY = `
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.union
(enum_item name: (type_identifier) @name) @definition.enum
(enum_variant name: (identifier) @name) @definition.enum-member
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(associated_type name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(field_declaration name: (field_identifier) @name) @definition.property
`;

const isDocComment = (node: Node) =>
  (node.type === "line_comment" && node.text.startsWith("///") && !node.text.startsWith("////")) ||
  (node.type === "block_comment" && node.text.startsWith("/**") && node.text !== "/**/");
const isAttribute = (node: Node) => node.type === "attribute_item";
const isPub = (node: Node) =>
  node.namedChildren.some((child) => child?.type === "visibility_modifier" && child.text === "pub");

/** The type an `impl` block is for, without generics or path: `impl<T> fmt::Display for Wrapper<T>` → `Wrapper`. */
function implTarget(node: Node): string | undefined {
  let type = node.childForFieldName("type");
  while (type !== null) {
    if (type.type === "type_identifier" || type.type === "primitive_type") return type.text;
    type = type.childForFieldName("type") ?? type.childForFieldName("name");
  }
  return undefined;
}

/** Rust as the index reads it. */
export const rust: TreeSitterSpec = {
  grammar: "rust",
  query: QUERY,
  separator: "::",
  implicitContainer: (node) => (node.type === "impl_item" ? implTarget(node) : undefined),
  kindWithin(definition, containerKind) {
    const inType = containerKind === "implicit" || containerKind === "trait";
    return definition.kind === "function" && inType ? "method" : definition.kind;
  },
  exported(definition, container) {
    const kind = definition.kind;
    if (kind === "enum-member" || container?.kind === "trait") return container?.exported ?? true;
    // In `impl Trait for Type` the methods are the trait's: as public as it is, which this file may not show.
    const impl = definition.node.parent?.parent;
    if (kind === "method" && impl?.type === "impl_item" && impl.childForFieldName("trait") !== null) return true;
    // `pub` inside a private module is not visible outside the crate.
    return isPub(definition.node) && (container?.exported ?? true);
  },
  startRow(range) {
    // Attributes belong to the item; doc comments among them are the doc's, not the item's start.
    let start = range.startPosition.row;
    let above = start;
    for (let sibling = range.previousNamedSibling; sibling !== null; sibling = sibling.previousNamedSibling) {
      if (endRow(sibling) < above - 1 || !(isAttribute(sibling) || isDocComment(sibling))) break;
      above = sibling.startPosition.row;
      if (isAttribute(sibling)) start = above;
    }
    return start;
  },
  doc(_definition, range) {
    const comments = commentsAbove(range, isDocComment, isAttribute);
    if (comments.length === 0) return undefined;
    return {
      startLine: (comments[0] as Node).startPosition.row + 1,
      text: cleanDoc(comments.map((comment) => comment.text).join("\n")),
    };
  },
};
