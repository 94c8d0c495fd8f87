// Tree-sitter queries for Java: classes, records, interfaces, enums, methods, constructors, static final constants, imports.
import type { LanguageQueries } from "./types.js";

/** Java definitions and imports (`import a.b.*` gives the spec `a.b` with the name `*`). */
export const javaQueries: LanguageQueries = {
  definitions: `
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(field_declaration (modifiers) @_mods (#match? @_mods "static") (#match? @_mods "final") declarator: (variable_declarator name: (identifier) @name)) @definition.constant
`,
  imports: `
(import_declaration [(scoped_identifier) (identifier)] @import.spec)
(import_declaration [(scoped_identifier) (identifier)] @import.spec (asterisk) @import.name.all)
`,
};
