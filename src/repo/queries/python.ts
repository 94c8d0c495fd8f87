// Tree-sitter queries for Python: classes, functions/methods (decorators included in the span), module-level assignments, imports.
import type { LanguageQueries } from "./types.js";

/** Python definitions and imports. */
export const pythonQueries: LanguageQueries = {
  definitions: `
(decorated_definition definition: (class_definition name: (identifier) @name)) @definition.class
(decorated_definition definition: (function_definition name: (identifier) @name)) @definition.function
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable)
`,
  imports: `
(import_statement name: (dotted_name) @import.spec)
(import_statement name: (aliased_import name: (dotted_name) @import.spec))
(import_from_statement module_name: (_) @import.spec name: (dotted_name) @import.name)
(import_from_statement module_name: (_) @import.spec name: (aliased_import name: (dotted_name) @import.name))
(import_from_statement module_name: (_) @import.spec (wildcard_import) @import.name.all)
`,
};
