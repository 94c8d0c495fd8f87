// Tree-sitter queries for JavaScript (and JSX): classes, methods, functions, top-level bindings, import/require.
import type { LanguageQueries } from "./types.js";
import { FUNCTION_VALUE, jsDefinitions, jsImports } from "./typescript.js";

/** JavaScript definitions and imports. */
export const javascriptQueries: LanguageQueries = {
  definitions:
    jsDefinitions("identifier") +
    `(class_body (field_definition property: (_) @name value: ${FUNCTION_VALUE}) @definition.method)\n`,
  imports: jsImports,
};
