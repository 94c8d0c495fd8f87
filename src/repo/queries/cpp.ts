// Tree-sitter queries for C++: the C set plus classes, namespaces, in-class and out-of-class (`A::m`) methods, aliases.
import { cDefinitions, cImports, functionDeclarators } from "./c.js";
import type { LanguageQueries } from "./types.js";

const QUALIFIED = `(function_declarator declarator: (qualified_identifier scope: (_) @parent name: (_) @name))`;

/** C++ definitions and includes. */
export const cppQueries: LanguageQueries = {
  definitions: [
    cDefinitions,
    `(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class`,
    `(namespace_definition name: (_) @name) @definition.module`,
    ...functionDeclarators("field_identifier").map((d) => `(function_definition declarator: ${d}) @definition.method`),
    ...functionDeclarators("field_identifier").map((d) => `(field_declaration declarator: ${d}) @definition.method`),
    `(function_definition declarator: ${QUALIFIED}) @definition.method`,
    `(function_definition declarator: (pointer_declarator declarator: ${QUALIFIED})) @definition.method`,
    `(function_definition declarator: (reference_declarator ${QUALIFIED})) @definition.method`,
    `(function_definition declarator: (reference_declarator (function_declarator declarator: (identifier) @name))) @definition.function`,
    `(alias_declaration name: (type_identifier) @name) @definition.type`,
  ].join("\n"),
  imports: cImports,
};
