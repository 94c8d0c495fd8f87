// Tree-sitter queries for Go: functions, methods (parent = receiver type), structs, interfaces, types, package-level consts/vars, imports.
import type { LanguageQueries } from "./types.js";

const RECEIVER = `[
  (type_identifier) @parent
  (pointer_type (type_identifier) @parent)
  (generic_type type: (type_identifier) @parent)
  (pointer_type (generic_type type: (type_identifier) @parent))
]`;

/** Go definitions and imports. */
export const goQueries: LanguageQueries = {
  definitions: `
(function_declaration name: (identifier) @name) @definition.function
(method_declaration receiver: (parameter_list (parameter_declaration type: ${RECEIVER})) name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
`,
  imports: `
(import_spec path: (interpreted_string_literal) @import.spec)
`,
};
