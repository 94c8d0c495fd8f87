// Tree-sitter queries for Rust: fns (methods inside impl/trait), structs, enums, traits, types, consts, inline mods, use and `mod x;`.
import type { LanguageQueries } from "./types.js";

/** Rust definitions and imports; `mod x;` becomes the spec `mod x`. */
export const rustQueries: LanguageQueries = {
  definitions: `
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(macro_definition name: (identifier) @name) @definition.function
(impl_item type: [
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name)
  (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
]) @scope
`,
  imports: `
(use_declaration argument: [(scoped_identifier) (identifier) (crate) (self) (super)] @import.spec)
(use_declaration argument: (use_as_clause path: (_) @import.spec))
(use_declaration argument: (scoped_use_list path: (_) @import.spec list: (use_list [(identifier) (self)] @import.name)))
(use_declaration argument: (scoped_use_list path: (_) @import.spec list: (use_list (use_as_clause path: (_) @import.name))))
(use_declaration argument: (scoped_use_list path: (_) @import.spec list: (use_list (scoped_identifier) @import.name)))
(use_declaration argument: (scoped_use_list path: (_) @import.spec list: (use_list (scoped_use_list path: (_) @import.name))))
(use_declaration argument: (use_wildcard (_) @import.spec) @import.name.all)
(mod_item name: (identifier) @import.spec.mod !body)
`,
  normalizeImport: (spec, kind) => (kind === "mod" ? `mod ${spec}` : spec),
};
