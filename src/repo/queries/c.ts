// Tree-sitter queries for C: functions (definitions and prototypes), structs, unions, enums, typedefs, macros, #include.
import type { LanguageQueries } from "./types.js";

/** Declarator shapes that lead to a function name, for `function_definition` and `declaration`. */
export function functionDeclarators(nameType: string): string[] {
  const fn = `(function_declarator declarator: (${nameType}) @name)`;
  return [
    fn,
    `(pointer_declarator declarator: ${fn})`,
    `(pointer_declarator declarator: (pointer_declarator declarator: ${fn}))`,
  ];
}

/** Definitions shared by the C and C++ grammars. */
export const cDefinitions = [
  ...functionDeclarators("identifier").map((d) => `(function_definition declarator: ${d}) @definition.function`),
  ...functionDeclarators("identifier").map((d) => `(declaration declarator: ${d}) @definition.function`),
  `(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct`,
  `(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct`,
  `(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum`,
  `(type_definition declarator: (type_identifier) @name) @definition.type`,
  // A bare `#define X` (include guards, feature flags) is not worth a symbol.
  `(preproc_def name: (identifier) @name value: (_)) @definition.constant`,
  `(preproc_function_def name: (identifier) @name) @definition.function`,
].join("\n");

/** `#include "x.h"` gives the spec `x.h`; `#include <x.h>` keeps its brackets: `<x.h>`. */
export const cImports = `
(preproc_include path: (string_literal (string_content) @import.spec))
(preproc_include path: (system_lib_string) @import.spec)
`;

/** C definitions and includes. */
export const cQueries: LanguageQueries = { definitions: cDefinitions, imports: cImports };
