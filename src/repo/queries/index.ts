// The query set for each tree-sitter language.
import type { LanguageId } from "../languages.js";
import { cQueries } from "./c.js";
import { cppQueries } from "./cpp.js";
import { goQueries } from "./go.js";
import { javaQueries } from "./java.js";
import { javascriptQueries } from "./javascript.js";
import { pythonQueries } from "./python.js";
import { rubyQueries } from "./ruby.js";
import { rustQueries } from "./rust.js";
import type { LanguageQueries } from "./types.js";
import { typescriptQueries } from "./typescript.js";

export type { LanguageQueries } from "./types.js";

/** Queries by language id, for the languages with a tree-sitter grammar. */
export const QUERIES: Partial<Record<LanguageId, LanguageQueries>> = {
  python: pythonQueries,
  typescript: typescriptQueries,
  tsx: typescriptQueries,
  javascript: javascriptQueries,
  go: goQueries,
  rust: rustQueries,
  java: javaQueries,
  c: cQueries,
  cpp: cppQueries,
  ruby: rubyQueries,
};
