// Tree-sitter queries for Ruby: classes, modules, methods, singleton methods, constants, require / require_relative.
import type { LanguageQueries } from "./types.js";

/** Ruby definitions and imports; `require_relative "x"` becomes the relative spec `./x`. */
export const rubyQueries: LanguageQueries = {
  definitions: `
(class name: [(constant) (scope_resolution)] @name) @definition.class
(module name: [(constant) (scope_resolution)] @name) @definition.module
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.constant
`,
  imports: `
(call method: (identifier) @_m (#eq? @_m "require") arguments: (argument_list . (string (string_content) @import.spec)))
(call method: (identifier) @_m (#eq? @_m "require_relative") arguments: (argument_list . (string (string_content) @import.spec.relative)))
`,
  normalizeImport: (spec, kind) => (kind === "relative" && !spec.startsWith(".") ? `./${spec}` : spec),
};
