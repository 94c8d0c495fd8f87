// Symbol and import extraction: tree-sitter queries per language (grammars loaded once), regex fallback that never throws.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

import { Language, type Node, Parser, Query, type QueryMatch } from "web-tree-sitter";
import { z } from "zod";

import { detectLanguage, LanguageId, TREE_SITTER_GRAMMARS } from "./languages.js";
import { type LanguageQueries, QUERIES } from "./queries/index.js";
import { regexParse } from "./regex-parse.js";
import { assembleSymbols, CodeSymbol, ImportRef, POS, type RawDefinition, SymbolKind } from "./symbols.js";

export { CodeSymbol, ImportRef, SymbolKind } from "./symbols.js";

export const ParsedFile = z.object({
  path: z.string(),
  language: LanguageId.nullable(),
  symbols: z.array(CodeSymbol),
  imports: z.array(ImportRef),
  /** Which extractor produced the result. */
  parser: z.enum(["tree-sitter", "regex"]),
  /** Why tree-sitter was not used for a language that has a grammar (load or parse failure, or the budget). */
  fallbackReason: z.string().optional(),
  /** The file's shape or its parse time went over the per-file budget, so it was indexed lexically. */
  overBudget: z.boolean().optional(),
});
export type ParsedFile = z.infer<typeof ParsedFile>;

export interface ParserOptions {
  /** Directory holding `tree-sitter-<grammar>.wasm` files; defaults to the tree-sitter-wasms package's `out/`. */
  grammarDir?: string;
  /** Per-file budget for tree-sitter (parse plus query matching), in milliseconds. */
  budgetMs?: number;
  /** Files with a longer line are not given to tree-sitter. */
  maxLineChars?: number;
  /** Files whose brackets nest deeper are not given to tree-sitter. */
  maxNesting?: number;
}

/**
 * The per-file parse budget. Tree-sitter's error recovery and query matching can take time quadratic in a
 * pathological line (a 128 KB run of nested parentheses took 13 s of query matching), so a file must pass a shape
 * check first and is then parsed and matched under a deadline; a file that fails either is indexed lexically.
 */
export const PARSE_BUDGET = {
  budgetMs: 2000,
  maxLineChars: 32 * 1024,
  maxNesting: 256,
} as const;

/** Why a file's shape rules tree-sitter out (a line too long, brackets nested too deep), or undefined. */
export function shapeOverBudget(
  content: string,
  maxLineChars: number = PARSE_BUDGET.maxLineChars,
  maxNesting: number = PARSE_BUDGET.maxNesting,
): string | undefined {
  let lineStart = 0;
  let depth = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i);
    if (c === 10) {
      if (i - lineStart > maxLineChars) return `a line of ${i - lineStart} characters (at most ${maxLineChars})`;
      lineStart = i + 1;
    } else if (c === 40 || c === 91 || c === 123) {
      // ( [ {
      if (++depth > maxNesting) return `brackets nested deeper than ${maxNesting}`;
    } else if ((c === 41 || c === 93 || c === 125) && depth > 0) depth--;
  }
  if (content.length - lineStart > maxLineChars)
    return `a line of ${content.length - lineStart} characters (at most ${maxLineChars})`;
  return undefined;
}

/** Thrown inside extraction when the deadline passed: the file goes to the lexical fallback and is counted. */
class OverBudget extends Error {}

/** A parser instance: owns the web-tree-sitter parser, the loaded grammars and compiled queries. */
export interface RepoParser {
  /**
   * Extracts symbols and imports from one file. `language` defaults to detection from the path (and content).
   * Never rejects: a grammar that fails to load or a parse that fails falls back to regexes.
   */
  parseFile(path: string, content: string, language?: LanguageId | null): Promise<ParsedFile>;
  /**
   * Loads the grammars of these languages now. Call it with the languages of a scan before parsing a batch:
   * a grammar loaded after parsing has started can take up to a second longer (web-tree-sitter's async
   * instantiation waits behind background compilation), one loaded up front takes milliseconds.
   */
  preload(languages: readonly LanguageId[]): Promise<void>;
  /** Frees the parser, queries and cached languages. The instance must not be used afterwards. */
  dispose(): void;
}

interface LoadedLanguage {
  language: Language;
  /** Definitions and imports compiled as one query, so each tree is walked once. */
  query: Query;
  queries: LanguageQueries;
}

function defaultGrammarDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("tree-sitter-wasms/package.json")), "out");
}

const QUOTED = /^(["'`])([\s\S]*)\1$/;

/**
 * Creates a parser. Nothing is loaded until the first file of a language is parsed; then web-tree-sitter is
 * initialized once, the grammar loaded once and its queries compiled once, all cached on this instance.
 */
export function createParser(options: ParserOptions = {}): RepoParser {
  let grammarDir = options.grammarDir;
  const budgetMs = options.budgetMs ?? PARSE_BUDGET.budgetMs;
  const maxLineChars = options.maxLineChars ?? PARSE_BUDGET.maxLineChars;
  const maxNesting = options.maxNesting ?? PARSE_BUDGET.maxNesting;
  let init: Promise<Parser> | undefined;
  const loaded = new Map<LanguageId, Promise<LoadedLanguage>>();
  // web-tree-sitter's Language.load is not safe to run concurrently (its dynamic linker keeps global state),
  // so grammar loads are chained one after another.
  let loadChain: Promise<unknown> = Promise.resolve();
  let disposed = false;

  const parser = (): Promise<Parser> => {
    init ??= Parser.init().then(() => new Parser());
    return init;
  };

  const load = (lang: LanguageId): Promise<LoadedLanguage> => {
    let p = loaded.get(lang);
    if (!p) {
      p = loadChain.then(async () => {
        const grammar = TREE_SITTER_GRAMMARS[lang];
        const queries = QUERIES[lang];
        if (!grammar || !queries) throw new Error(`no tree-sitter grammar for ${lang}`);
        await parser();
        grammarDir ??= defaultGrammarDir();
        const language = await Language.load(join(grammarDir, `tree-sitter-${grammar}.wasm`));
        return { language, query: new Query(language, `${queries.definitions}\n${queries.imports}`), queries };
      });
      loadChain = p.catch(() => undefined);
      loaded.set(lang, p);
    }
    return p;
  };

  const fallback = (
    path: string,
    content: string,
    language: LanguageId | null,
    reason?: string,
    overBudget = false,
  ): ParsedFile => {
    let result: { symbols: CodeSymbol[]; imports: ImportRef[] };
    try {
      result = regexParse(content, language);
    } catch {
      result = { symbols: [], imports: [] };
    }
    return {
      path,
      language,
      ...result,
      parser: "regex",
      ...(reason ? { fallbackReason: reason } : {}),
      ...(overBudget ? { overBudget: true } : {}),
    };
  };

  return {
    async parseFile(path, content, language) {
      const lang = language === undefined ? detectLanguage(path, content) : language;
      if (disposed) return fallback(path, content, lang, "parser disposed");
      if (!lang || !TREE_SITTER_GRAMMARS[lang]) return fallback(path, content, lang);
      const shape = shapeOverBudget(content, maxLineChars, maxNesting);
      if (shape) return fallback(path, content, lang, `over budget: ${shape}`, true);
      let entry: LoadedLanguage;
      let ts: Parser;
      try {
        entry = await load(lang);
        ts = await parser();
      } catch (err) {
        return fallback(path, content, lang, `grammar load failed: ${errorText(err)}`);
      }
      try {
        return { path, language: lang, ...extract(ts, entry, content, budgetMs), parser: "tree-sitter" };
      } catch (err) {
        if (err instanceof OverBudget) return fallback(path, content, lang, `over budget: ${err.message}`, true);
        return fallback(path, content, lang, `tree-sitter failed: ${errorText(err)}`);
      }
    },

    async preload(languages) {
      const wanted = [...new Set(languages)].filter((l) => TREE_SITTER_GRAMMARS[l]);
      await Promise.all(wanted.map((l) => load(l).catch(() => undefined)));
    },

    dispose() {
      if (disposed) return;
      disposed = true;
      for (const p of loaded.values()) {
        p.then((l) => l.query.delete()).catch(() => undefined);
      }
      init?.then((p) => p.delete()).catch(() => undefined);
      loaded.clear();
    },
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Most in-progress matches a query keeps; beyond it tree-sitter drops the oldest, and the file counts as over budget. */
const MATCH_LIMIT = 4096;

/**
 * Parses one file with the shared parser and runs the language's queries under one deadline (tree-sitter's
 * progress callbacks cancel either step); the tree is always freed. Throws `OverBudget` when the deadline passes.
 */
function extract(
  ts: Parser,
  entry: LoadedLanguage,
  content: string,
  budgetMs: number,
): { symbols: CodeSymbol[]; imports: ImportRef[] } {
  const deadline = performance.now() + budgetMs;
  let late = false;
  const check = () => (late ||= performance.now() >= deadline);
  ts.setLanguage(entry.language);
  const tree = ts.parse(content, null, { progressCallback: check });
  if (!tree) {
    // A cancelled parse keeps its state for resumption; the next file must start afresh.
    ts.reset();
    if (late) throw new OverBudget(`parsing took over ${budgetMs} ms`);
    throw new Error("parse returned no tree");
  }
  try {
    const defs: QueryMatch[] = [];
    const imps: QueryMatch[] = [];
    const matches = entry.query.matches(tree.rootNode, { progressCallback: check, matchLimit: MATCH_LIMIT });
    if (late) throw new OverBudget(`query matching took over ${budgetMs} ms`);
    if (entry.query.didExceedMatchLimit()) throw new OverBudget(`over ${MATCH_LIMIT} matches in progress`);
    for (const m of matches) {
      (m.captures.some((c) => c.name.startsWith("import.")) ? imps : defs).push(m);
    }
    const lines = content.split(/\r?\n/);
    return { symbols: assembleSymbols(definitions(defs), lines), imports: imports(entry.queries, imps) };
  } finally {
    tree.delete();
  }
}

const pos = (n: Node, end = false) => {
  const p = end ? n.endPosition : n.startPosition;
  return p.row * POS + p.column;
};

/** Runs the definitions query; when several patterns name the same node, the earliest pattern wins. */
function definitions(matches: readonly QueryMatch[]): RawDefinition[] {
  const byName = new Map<string, RawDefinition & { pattern: number }>();
  for (const m of matches) {
    let def: Node | undefined;
    let nameNode: Node | undefined;
    let kind: SymbolKind | undefined;
    let scope = false;
    let parent: string | undefined;
    for (const c of m.captures) {
      if (c.name === "name") nameNode = c.node;
      else if (c.name === "parent") parent = c.node.text;
      else if (c.name === "scope") {
        def = c.node;
        scope = true;
      } else if (c.name.startsWith("definition.")) {
        const k = SymbolKind.safeParse(c.name.slice("definition.".length));
        if (k.success) {
          def = c.node;
          kind = k.data;
        }
      }
    }
    if (!def || !nameNode || (!kind && !scope)) continue;
    const key = `${scope ? "s" : "d"}${nameNode.startIndex}`;
    const prev = byName.get(key);
    if (prev && prev.pattern <= m.patternIndex) continue;
    const end = def.endPosition;
    // A node that ends at column 0 ends with the previous line's newline.
    const endRow = end.column === 0 && end.row > def.startPosition.row ? end.row - 1 : end.row;
    byName.set(key, {
      pattern: m.patternIndex,
      kind: kind ?? "class",
      scope,
      name: nameNode.text,
      start: pos(def),
      end: pos(def, true),
      startRow: def.startPosition.row,
      endRow,
      nameRow: nameNode.startPosition.row,
      parent,
    });
  }
  return [...byName.values()];
}

/** Runs the imports query, grouping matches that share a spec node (one import statement, several names). */
function imports(queries: LanguageQueries, matches: readonly QueryMatch[]): ImportRef[] {
  const groups = new Map<number, { spec: string; kind: string | undefined; names: string[]; row: number }>();
  for (const m of matches) {
    let specNode: Node | undefined;
    let kind: string | undefined;
    const names: string[] = [];
    let row = Number.POSITIVE_INFINITY;
    for (const c of m.captures) {
      if (c.name.startsWith("_")) continue;
      row = Math.min(row, c.node.startPosition.row);
      if (c.name === "import.spec" || c.name.startsWith("import.spec.")) {
        specNode = c.node;
        kind = c.name.length > "import.spec".length ? c.name.slice("import.spec.".length) : undefined;
      } else if (c.name === "import.name") names.push(c.node.text);
      else if (c.name.startsWith("import.name.")) {
        const literal = c.name.slice("import.name.".length);
        names.push(literal === "all" ? "*" : literal);
      }
    }
    if (!specNode) continue;
    let g = groups.get(specNode.startIndex);
    if (!g) {
      g = { spec: specNode.text, kind, names: [], row };
      groups.set(specNode.startIndex, g);
    }
    g.row = Math.min(g.row, row);
    for (const n of names) if (!g.names.includes(n)) g.names.push(n);
  }
  const out: ImportRef[] = [];
  for (const g of groups.values()) {
    const unquoted = g.spec.replace(QUOTED, "$2").trim();
    const spec = queries.normalizeImport ? queries.normalizeImport(unquoted, g.kind) : unquoted;
    if (!spec) continue;
    out.push({ spec, ...(g.names.length > 0 ? { names: g.names } : {}), line: g.row + 1 });
  }
  return out.sort((a, b) => a.line - b.line);
}
