// Language identification by file name (with a content sniff for `.h`) and test-file conventions per language.
import { z } from "zod";

/** Language ids memcards knows. The first ten have tree-sitter grammars; the rest use the regex fallback. */
export const LanguageId = z.enum([
  "python",
  "typescript",
  "tsx",
  "javascript",
  "go",
  "rust",
  "java",
  "c",
  "cpp",
  "ruby",
  "kotlin",
  "csharp",
  "php",
  "scala",
  "swift",
  "shell",
  "lua",
  "dart",
  "elixir",
  "haskell",
  "r",
  "perl",
  "objc",
  "sql",
  "markdown",
  "text",
  "json",
  "yaml",
  "toml",
  "html",
  "css",
  "dockerfile",
  "makefile",
]);
export type LanguageId = z.infer<typeof LanguageId>;

/** Languages parsed with tree-sitter; the value is the grammar's wasm name in tree-sitter-wasms. */
export const TREE_SITTER_GRAMMARS: Partial<Record<LanguageId, string>> = {
  python: "python",
  typescript: "typescript",
  tsx: "tsx",
  javascript: "javascript",
  go: "go",
  rust: "rust",
  java: "java",
  c: "c",
  cpp: "cpp",
  ruby: "ruby",
};

/** Languages whose files hold code (symbols and imports are worth extracting). */
const CODE_LANGUAGES: ReadonlySet<LanguageId> = new Set<LanguageId>([
  "python",
  "typescript",
  "tsx",
  "javascript",
  "go",
  "rust",
  "java",
  "c",
  "cpp",
  "ruby",
  "kotlin",
  "csharp",
  "php",
  "scala",
  "swift",
  "shell",
  "lua",
  "dart",
  "elixir",
  "haskell",
  "r",
  "perl",
  "objc",
]);

const BY_EXTENSION: Record<string, LanguageId> = {
  py: "python",
  pyi: "python",
  pyw: "python",
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  go: "go",
  rs: "rust",
  java: "java",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  "c++": "cpp",
  hh: "cpp",
  hpp: "cpp",
  hxx: "cpp",
  ipp: "cpp",
  inl: "cpp",
  rb: "ruby",
  rake: "ruby",
  gemspec: "ruby",
  kt: "kotlin",
  kts: "kotlin",
  cs: "csharp",
  php: "php",
  scala: "scala",
  sc: "scala",
  swift: "swift",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
  lua: "lua",
  dart: "dart",
  ex: "elixir",
  exs: "elixir",
  hs: "haskell",
  r: "r",
  pl: "perl",
  pm: "perl",
  m: "objc",
  mm: "objc",
  sql: "sql",
  md: "markdown",
  mdx: "markdown",
  mdc: "markdown",
  markdown: "markdown",
  txt: "text",
  rst: "text",
  adoc: "text",
  json: "json",
  jsonc: "json",
  yaml: "yaml",
  yml: "yaml",
  toml: "toml",
  html: "html",
  htm: "html",
  css: "css",
  scss: "css",
  less: "css",
};

const BY_NAME: Record<string, LanguageId> = {
  Dockerfile: "dockerfile",
  Containerfile: "dockerfile",
  Makefile: "makefile",
  GNUmakefile: "makefile",
  Gemfile: "ruby",
  Rakefile: "ruby",
  ".cursorrules": "markdown",
  ".windsurfrules": "markdown",
  ".clinerules": "markdown",
};

/** Extension (lower case, without the dot) of the last path segment; "" when there is none. */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
}

/** The last path segment. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

const CPP_HEADER_HINT =
  /^\s*(class\s+\w+\s*[:{]|namespace\s+\w+|template\s*<|#include\s*<(iostream|string|vector|memory|map)>)/m;

/**
 * The language of a repo path, or null when unknown. A `.h` header is C unless its content (when given)
 * looks like C++ (classes, namespaces, templates).
 */
export function detectLanguage(path: string, content?: string): LanguageId | null {
  const base = baseName(path);
  const named = BY_NAME[base];
  if (named) return named;
  if (base.startsWith("Dockerfile.")) return "dockerfile";
  const ext = extensionOf(base);
  const lang = BY_EXTENSION[ext];
  if (!lang) return null;
  if (ext === "h" && content !== undefined && CPP_HEADER_HINT.test(content.slice(0, 20_000))) return "cpp";
  return lang;
}

/** True when the language holds code (not prose or data). */
export function isCodeLanguage(language: LanguageId | null): boolean {
  return language !== null && CODE_LANGUAGES.has(language);
}

const TEST_DIRS = new Set(["test", "tests", "__tests__", "spec", "specs"]);
const JS_TEST = /\.(test|spec)\.[cm]?[jt]sx?$/;

/**
 * True when the path is a test file by its language's conventions: `test_*.py`, `*_test.py`, `tests/`,
 * `*.test.ts`, `*.spec.js`, `__tests__/`, `*_test.go`, `src/test/java/`, `*Test.java`, `spec/*_spec.rb`,
 * Rust `tests/`, `test_*.c`… Non-code files (fixtures, data) are never tests.
 */
export function isTestPath(path: string, language: LanguageId | null): boolean {
  if (!isCodeLanguage(language)) return false;
  const segments = path.split("/");
  const base = segments[segments.length - 1] ?? "";
  const dirs = segments.slice(0, -1);
  const inTestDir = dirs.some((d) => TEST_DIRS.has(d));
  switch (language) {
    case "python":
      return /^test_.*\.pyi?$/.test(base) || /_test\.py$/.test(base) || base === "conftest.py" || inTestDir;
    case "typescript":
    case "tsx":
    case "javascript":
      return JS_TEST.test(base) || inTestDir;
    case "go":
      return base.endsWith("_test.go");
    case "java":
    case "kotlin":
    case "scala":
      return (
        path.includes("src/test/") ||
        /(Test|Tests|IT|Spec|Suite)\.(java|kt|kts|scala)$/.test(base) ||
        /^Test[A-Z]\w*\.(java|kt|scala)$/.test(base) ||
        inTestDir
      );
    case "rust":
      return dirs.includes("tests") || dirs.includes("benches") || base === "tests.rs" || base.endsWith("_test.rs");
    case "ruby":
      return /_spec\.rb$/.test(base) || /^test_.*\.rb$/.test(base) || /_test\.rb$/.test(base) || inTestDir;
    case "c":
    case "cpp":
    case "objc":
      return /^test_/.test(base) || /_(test|tests|unittest)\.(c|cc|cpp|cxx|m|mm)$/.test(base) || inTestDir;
    case "csharp":
      return /Tests?\.cs$/.test(base) || dirs.some((d) => /\.Tests?$/.test(d)) || inTestDir;
    case "php":
      return /Test\.php$/.test(base) || inTestDir;
    case "swift":
      return /Tests?\.swift$/.test(base) || dirs.some((d) => d.endsWith("Tests")) || inTestDir;
    case "elixir":
      return /_test\.exs$/.test(base) || inTestDir;
    case "dart":
      return /_test\.dart$/.test(base) || inTestDir;
    case "lua":
      return /_spec\.lua$/.test(base) || /^test_/.test(base) || inTestDir;
    default:
      return /^test_/.test(base) || /_test\.\w+$/.test(base) || inTestDir;
  }
}
