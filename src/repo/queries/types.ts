// The shape of a language's tree-sitter queries and the capture names parse.ts reads from them.

/**
 * Queries for one grammar. Capture conventions:
 * - definitions: `@definition.<kind>` spans the symbol, `@name` names it, optional `@parent` names the
 *   enclosing type when it is not lexically enclosing (Go receivers, C++ `A::m`); `@scope` marks a container
 *   that is not itself a symbol (a Rust `impl`), named by `@name`.
 * - imports: `@import.spec` (or `@import.spec.<kind>`) is the module as written; `@import.name` adds an
 *   imported name from its text, `@import.name.<literal>` adds the literal (`default`, `all` → `*`).
 * - captures starting with `_` only feed predicates.
 */
export interface LanguageQueries {
  definitions: string;
  imports: string;
  /** Rewrites a captured spec by its kind (the `<kind>` of `@import.spec.<kind>`); undefined drops it. */
  normalizeImport?: (spec: string, kind: string | undefined) => string | undefined;
}
