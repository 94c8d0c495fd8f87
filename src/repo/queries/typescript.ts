// Tree-sitter queries for TypeScript and TSX (one grammar family): classes, interfaces, types, enums, functions, top-level consts, imports.
import type { LanguageQueries } from "./types.js";

/** Values that make a binding or class field a function. */
export const FUNCTION_VALUE = "[(arrow_function) (function_expression) (generator_function)]";

/** Import, re-export, require() and import() patterns shared by the JavaScript and TypeScript grammars. */
export const jsImports = `
(import_statement (import_clause (named_imports (import_specifier name: (_) @import.name))) source: (string (string_fragment) @import.spec))
(import_statement (import_clause (identifier) @import.name.default) source: (string (string_fragment) @import.spec))
(import_statement (import_clause (namespace_import)) @import.name.all source: (string (string_fragment) @import.spec))
(import_statement source: (string (string_fragment) @import.spec))
(export_statement (export_clause (export_specifier name: (_) @import.name)) source: (string (string_fragment) @import.spec))
(export_statement source: (string (string_fragment) @import.spec))
(call_expression function: (identifier) @_req (#eq? @_req "require") arguments: (arguments . (string (string_fragment) @import.spec)))
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.spec)))
`;

/** Definitions common to both grammars; the class name node type differs and is passed in. */
export function jsDefinitions(className: string): string {
  return `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (${className}) @name) @definition.class
(class_body (method_definition name: (_) @name) @definition.method)
(program (lexical_declaration (variable_declarator name: (identifier) @name value: ${FUNCTION_VALUE}) @definition.function))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: ${FUNCTION_VALUE}) @definition.function)))
(program (variable_declaration (variable_declarator name: (identifier) @name value: ${FUNCTION_VALUE}) @definition.function))
(program (lexical_declaration "const" (variable_declarator name: (identifier) @name) @definition.constant))
(program (export_statement declaration: (lexical_declaration "const" (variable_declarator name: (identifier) @name) @definition.constant)))
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
`;
}

/** TypeScript / TSX definitions and imports. */
export const typescriptQueries: LanguageQueries = {
  definitions:
    jsDefinitions("type_identifier") +
    `
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(abstract_method_signature name: (_) @name) @definition.method
(class_body (public_field_definition name: (_) @name value: ${FUNCTION_VALUE}) @definition.method)
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (identifier) @name) @definition.module
`,
  imports:
    jsImports +
    `
(import_require_clause source: (string (string_fragment) @import.spec))
`,
};
