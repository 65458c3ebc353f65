/**
 * Go: functions, methods (their receiver type is the container, wherever it is
 * declared), structs and their fields, interfaces and their methods, other named
 * types and aliases, package-level constants and variables. Exported means
 * capitalised; the doc is the run of comments right above the declaration.
 */
import type { Node } from "web-tree-sitter";
import { cleanDoc } from "../text.js";
import { commentsAbove, type TreeSitterSpec } from "../tree-sitter.js";

const RECEIVER = `[
  (type_identifier) @receiver
  (pointer_type (type_identifier) @receiver)
  (generic_type type: (type_identifier) @receiver)
  (pointer_type (generic_type type: (type_identifier) @receiver))]`;

const QUERY = `
(function_declaration name: (identifier) @name) @definition.function
(method_declaration receiver: (parameter_list (parameter_declaration type: ${RECEIVER})) name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(field_declaration name: (field_identifier) @name) @definition.property
(method_spec name: (field_identifier) @name) @definition.method
`;

const SPECS = new Set(["type_spec", "type_alias", "const_spec", "var_spec"]);

/** `type X struct {…}` with one spec covers the `type` keyword too; a spec in a `type (…)` group only itself. */
function rangeNode(node: Node): Node {
  const parent = node.parent;
  if (!SPECS.has(node.type) || parent === null) return node;
  const specs = parent.namedChildren.filter((child) => child !== null && SPECS.has(child.type));
  return specs.length === 1 ? parent : node;
}

/** Go as the index reads it. */
export const go: TreeSitterSpec = {
  grammar: "go",
  query: QUERY,
  separator: ".",
  rangeNode: (definition) => rangeNode(definition.node),
  // `type Server struct`, `const MaxConns = 64`: the keyword belongs to a one-spec declaration's header.
  signatureNode: (_definition, range) => range,
  exported: (definition) => /^\p{Lu}/u.test(definition.name),
  doc(_definition, range) {
    const comments = commentsAbove(range, (node) => node.type === "comment");
    if (comments.length === 0) return undefined;
    return {
      startLine: (comments[0] as Node).startPosition.row + 1,
      text: cleanDoc(comments.map((comment) => comment.text).join("\n")),
    };
  },
};
