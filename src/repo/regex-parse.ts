// Regex fallback: line-based definitions and imports for languages without a grammar, or when tree-sitter fails.
import type { LanguageId } from "./languages.js";
import {
  assembleSymbols,
  type CodeSymbol,
  type ImportRef,
  POS,
  type RawDefinition,
  type SymbolKind,
} from "./symbols.js";

/** How a definition's block ends: braces, indentation, an `end` keyword at the same indent, or its own line. */
type BlockStyle = "brace" | "indent" | "end" | "line";

interface DefRule {
  re: RegExp;
  /** Fixed kind, or the group whose text names the kind (class/interface/struct…). */
  kind: SymbolKind | "scope" | { group: string };
  /** Only lines without leading whitespace. */
  topLevel?: boolean;
  block?: BlockStyle;
}

interface ImportRule {
  re: RegExp;
  /** Turns the match into a spec (and names); default: the `spec` group. */
  map?: (m: RegExpMatchArray) => Array<{ spec: string; names?: string[] }>;
}

interface RegexLanguage {
  block: BlockStyle;
  defs: DefRule[];
  imports: ImportRule[];
}

const KEYWORD_KINDS: Record<string, SymbolKind> = {
  class: "class",
  interface: "interface",
  enum: "enum",
  record: "class",
  struct: "struct",
  trait: "trait",
  object: "class",
  protocol: "interface",
  namespace: "module",
  union: "struct",
  module: "module",
  mod: "module",
};

const NOT_METHOD = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "return",
  "function",
  "new",
  "else",
  "do",
  "sizeof",
]);

const names = (s: string | undefined) =>
  (s ?? "")
    .split(",")
    .map((n) =>
      n
        .trim()
        .split(/\s+as\s+/)[0]!
        .trim(),
    )
    .filter((n) => n.length > 0 && n !== "(" && n !== ")");

const quoted =
  (spec = "spec") =>
  (m: RegExpMatchArray): Array<{ spec: string; names?: string[] }> =>
    m.groups?.[spec] ? [{ spec: m.groups[spec] }] : [];

const JS: RegexLanguage = {
  block: "brace",
  defs: [
    {
      re: /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(?<name>[A-Za-z_$][\w$]*)/,
      kind: "function",
    },
    { re: /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+(?<name>[A-Za-z_$][\w$]*)/, kind: "class" },
    { re: /^\s*(?:export\s+)?(?:declare\s+)?interface\s+(?<name>[A-Za-z_$][\w$]*)/, kind: "interface" },
    {
      re: /^\s*(?:export\s+)?(?:declare\s+)?type\s+(?<name>[A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*=/,
      kind: "type",
      block: "line",
    },
    { re: /^\s*(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+(?<name>[A-Za-z_$][\w$]*)/, kind: "enum" },
    {
      re: /^(?:export\s+)?(?:const|let|var)\s+(?<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)/,
      kind: "function",
    },
    { re: /^(?:export\s+)?const\s+(?<name>[A-Za-z_$][\w$]*)/, kind: "constant", block: "line" },
    {
      re: /^\s+(?:(?:public|private|protected|static|async|readonly|override|abstract|get|set)\s+)*\*?(?<name>[A-Za-z_$#][\w$]*)\s*(?:<[^>]*>)?\s*\([^;]*\)\s*(?::\s*[^{;=]+)?\{\s*$/,
      kind: "method",
    },
  ],
  imports: [
    { re: /\bfrom\s+["'](?<spec>[^"']+)["']/, map: quoted() },
    { re: /^\s*import\s+["'](?<spec>[^"']+)["']/, map: quoted() },
    { re: /\brequire\(\s*["'](?<spec>[^"']+)["']\s*\)/, map: quoted() },
    { re: /\bimport\(\s*["'](?<spec>[^"']+)["']\s*\)/, map: quoted() },
  ],
};

const CLASS_LIKE_DECL =
  /^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|protected|internal|static|final|abstract|sealed|open|data|inner|partial|export|readonly|case|annotation|fileprivate)\s+)*(?<kw>class|interface|enum|record|struct|trait|object|protocol)\s+(?<name>[A-Za-z_]\w*)/;
const MODIFIED_METHOD =
  /^\s+(?:(?:public|private|protected|internal|static|final|abstract|synchronized|override|virtual|async|native|sealed|extern|unsafe|new)\s+)+[\w<>[\],.?\s]*?\s(?<name>[A-Za-z_]\w*)\s*(?:<[^>]*>)?\s*\(/;
const JVM_IMPORT: ImportRule = {
  re: /^\s*import\s+(?:static\s+)?(?<spec>[\w.]+?)(?<star>\.\*)?\s*;?\s*$/,
  map: (m) => (m.groups?.spec ? [{ spec: m.groups.spec, ...(m.groups.star ? { names: ["*"] } : {}) }] : []),
};

const LANGS: Partial<Record<LanguageId, RegexLanguage>> = {
  python: {
    block: "indent",
    defs: [
      { re: /^(?<indent>\s*)(?:async\s+)?def\s+(?<name>[A-Za-z_]\w*)/, kind: "function" },
      { re: /^(?<indent>\s*)class\s+(?<name>[A-Za-z_]\w*)/, kind: "class" },
      { re: /^(?<name>[A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)/, kind: "variable", topLevel: true, block: "line" },
    ],
    imports: [
      {
        re: /^\s*import\s+(?<list>[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)/,
        map: (m) => names(m.groups?.list).map((spec) => ({ spec })),
      },
      {
        re: /^\s*from\s+(?<spec>\.+[\w.]*|[\w.]+)\s+import\s+\(?\s*(?<names>[\w\s,*]*)/,
        map: (m) => [{ spec: m.groups!.spec!, names: names(m.groups?.names) }],
      },
    ],
  },
  typescript: JS,
  tsx: JS,
  javascript: JS,
  go: {
    block: "brace",
    defs: [
      {
        re: /^func\s+\(\s*\w*\s*\*?\s*(?<parent>[A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*(?<name>[A-Za-z_]\w*)/,
        kind: "method",
      },
      { re: /^func\s+(?<name>[A-Za-z_]\w*)/, kind: "function" },
      { re: /^type\s+(?<name>[A-Za-z_]\w*)\s+(?<kw>struct|interface)\b/, kind: { group: "kw" } },
      { re: /^type\s+(?<name>[A-Za-z_]\w*)/, kind: "type", block: "line" },
      { re: /^const\s+(?<name>[A-Za-z_]\w*)/, kind: "constant", block: "line" },
      { re: /^var\s+(?<name>[A-Za-z_]\w*)/, kind: "variable", block: "line" },
    ],
    imports: [{ re: /^\s*import\s+(?:[\w.]+\s+)?"(?<spec>[^"]+)"/, map: quoted() }],
  },
  rust: {
    block: "brace",
    defs: [
      {
        re: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe|extern\s+"[^"]*")\s+)*fn\s+(?<name>[A-Za-z_]\w*)/,
        kind: "function",
      },
      {
        re: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?<kw>struct|enum|trait|union)\s+(?<name>[A-Za-z_]\w*)/,
        kind: { group: "kw" },
      },
      { re: /^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(?<name>[A-Za-z_]\w*)\s*\{/, kind: "module" },
      { re: /^\s*(?:pub(?:\([^)]*\))?\s+)?type\s+(?<name>[A-Za-z_]\w*)/, kind: "type", block: "line" },
      {
        re: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const|static)\s+(?:mut\s+)?(?<name>[A-Za-z_]\w*)/,
        kind: "constant",
        block: "line",
      },
      { re: /^\s*impl(?:<[^>]*>)?\s+(?:[\w:<>, ]+\s+for\s+)?(?:[\w]+::)*(?<name>[A-Za-z_]\w*)/, kind: "scope" },
    ],
    imports: [
      {
        re: /^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+(?<spec>[\w:]+?)(?:::\{(?<names>[^}]*)\}|::(?<star>\*))?\s*;/,
        map: (m) => {
          const spec = m.groups!.spec!;
          if (m.groups?.star) return [{ spec, names: ["*"] }];
          return m.groups?.names !== undefined ? [{ spec, names: names(m.groups.names) }] : [{ spec }];
        },
      },
      {
        re: /^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(?<name>[A-Za-z_]\w*)\s*;/,
        map: (m) => [{ spec: `mod ${m.groups!.name!}` }],
      },
    ],
  },
  java: {
    block: "brace",
    defs: [
      { re: CLASS_LIKE_DECL, kind: { group: "kw" } },
      { re: MODIFIED_METHOD, kind: "method" },
    ],
    imports: [JVM_IMPORT],
  },
  kotlin: {
    block: "brace",
    defs: [
      { re: CLASS_LIKE_DECL, kind: { group: "kw" } },
      {
        re: /^\s*(?:(?:public|private|protected|internal|override|suspend|inline|open|operator|infix)\s+)*fun\s+(?:<[^>]*>\s*)?(?:[\w.]+\.)?(?<name>[A-Za-z_]\w*)/,
        kind: "function",
      },
      { re: /^(?:const\s+)?val\s+(?<name>[A-Z][A-Z0-9_]*)\s*[:=]/, kind: "constant", block: "line" },
    ],
    imports: [JVM_IMPORT],
  },
  scala: {
    block: "brace",
    defs: [
      { re: CLASS_LIKE_DECL, kind: { group: "kw" } },
      { re: /^\s*(?:(?:override|private|protected|final)\s+)*def\s+(?<name>[A-Za-z_]\w*)/, kind: "function" },
    ],
    imports: [JVM_IMPORT],
  },
  csharp: {
    block: "brace",
    defs: [
      { re: /^\s*namespace\s+(?<name>[\w.]+)/, kind: "module" },
      { re: CLASS_LIKE_DECL, kind: { group: "kw" } },
      { re: MODIFIED_METHOD, kind: "method" },
    ],
    imports: [{ re: /^\s*using\s+(?:static\s+)?(?<spec>[\w.]+)\s*;/, map: quoted() }],
  },
  swift: {
    block: "brace",
    defs: [
      { re: CLASS_LIKE_DECL, kind: { group: "kw" } },
      {
        re: /^\s*(?:(?:public|private|internal|fileprivate|open|static|override|class|mutating)\s+)*func\s+(?<name>[A-Za-z_]\w*)/,
        kind: "function",
      },
    ],
    imports: [{ re: /^\s*import\s+(?<spec>[\w.]+)/, map: quoted() }],
  },
  php: {
    block: "brace",
    defs: [
      {
        re: /^\s*(?:(?:abstract|final|readonly)\s+)*(?<kw>class|interface|trait|enum)\s+(?<name>[A-Za-z_]\w*)/,
        kind: { group: "kw" },
      },
      {
        re: /^\s*(?:(?:public|private|protected|static|abstract|final)\s+)*function\s+&?(?<name>[A-Za-z_]\w*)/,
        kind: "function",
      },
    ],
    imports: [
      { re: /^\s*use\s+(?<spec>[\w\\]+)/, map: quoted() },
      { re: /\b(?:require|include)(?:_once)?\s*\(?\s*["'](?<spec>[^"']+)["']/, map: quoted() },
    ],
  },
  dart: {
    block: "brace",
    defs: [{ re: /^\s*(?:abstract\s+)?(?<kw>class|enum|mixin)\s+(?<name>[A-Za-z_]\w*)/, kind: "class" }],
    imports: [{ re: /^\s*(?:import|export)\s+["'](?<spec>[^"']+)["']/, map: quoted() }],
  },
  c: cLike(),
  cpp: cLike(),
  objc: cLike(),
  ruby: {
    block: "end",
    defs: [
      { re: /^\s*def\s+(?:self\.)?(?<name>[\w?!=]+|\[\]=?)/, kind: "method" },
      { re: /^\s*class\s+(?<name>[A-Z][\w:]*)/, kind: "class" },
      { re: /^\s*module\s+(?<name>[A-Z][\w:]*)/, kind: "module" },
      { re: /^\s*(?<name>[A-Z][A-Z0-9_]*)\s*=(?!=)/, kind: "constant", block: "line" },
    ],
    imports: [
      { re: /^\s*require\s*\(?\s*["'](?<spec>[^"']+)["']/, map: quoted() },
      {
        re: /^\s*require_relative\s*\(?\s*["'](?<spec>[^"']+)["']/,
        map: (m) => [{ spec: m.groups!.spec!.startsWith(".") ? m.groups!.spec! : `./${m.groups!.spec!}` }],
      },
    ],
  },
  lua: {
    block: "end",
    defs: [{ re: /^\s*(?:local\s+)?function\s+(?<name>[\w.:]+)/, kind: "function" }],
    imports: [{ re: /\brequire\s*\(?\s*["'](?<spec>[^"']+)["']/, map: quoted() }],
  },
  elixir: {
    block: "end",
    defs: [
      { re: /^\s*defmodule\s+(?<name>[\w.]+)/, kind: "module" },
      { re: /^\s*defp?\s+(?<name>[a-z_][\w?!]*)/, kind: "function" },
    ],
    imports: [{ re: /^\s*(?:alias|import|use|require)\s+(?<spec>[A-Z][\w.]*)/, map: quoted() }],
  },
  shell: {
    block: "brace",
    defs: [
      { re: /^\s*function\s+(?<name>[A-Za-z_][\w:-]*)/, kind: "function" },
      { re: /^\s*(?<name>[A-Za-z_][\w:-]*)\s*\(\)\s*\{?/, kind: "function" },
    ],
    imports: [{ re: /^\s*(?:source|\.)\s+["']?(?<spec>[^\s"';]+)/, map: quoted() }],
  },
};

function cLike(): RegexLanguage {
  return {
    block: "brace",
    defs: [
      {
        re: /^\s*(?:typedef\s+)?(?<kw>struct|class|enum|union|namespace)\s+(?<name>[A-Za-z_]\w*)\s*(?:[:{]|$)/,
        kind: { group: "kw" },
      },
      { re: /^\s*#\s*define\s+(?<name>[A-Za-z_]\w*)/, kind: "constant", block: "line" },
      {
        re: /^(?!\s)(?:[A-Za-z_][\w:<>,*&\s]*?[\s*&])(?<name>[A-Za-z_~][\w:~]*)\s*\([^;]*\)\s*(?:const\s*)?(?:\{.*)?$/,
        kind: "function",
      },
    ],
    imports: [
      {
        re: /^\s*#\s*(?:include|import)\s*(?<spec><[^>]+>|"[^"]+")/,
        map: (m) => {
          const s = m.groups!.spec!;
          return [{ spec: s.startsWith('"') ? s.slice(1, -1) : s }];
        },
      },
    ],
  };
}

const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * Characters of a file the block-end scans may read in all, as a multiple of its length (plus a floor): a file
 * of braces opened and never closed would otherwise have every definition scan to its end, time quadratic in it.
 */
const BLOCK_SCAN_FACTOR = 4;
const BLOCK_SCAN_FLOOR = 65_536;

/** Characters the block-end scans of one file have read, against its allowance. */
interface ScanWork {
  scanned: number;
  allowed: number;
}

/** Charges a line to the allowance before it is read; false when the allowance cannot cover it. */
function charge(work: ScanWork, line: string): boolean {
  if (work.scanned + line.length + 1 > work.allowed) return false;
  work.scanned += line.length + 1;
  return true;
}

/**
 * Last row of a block starting at `row`, by the block style. Once the file's scan allowance is spent, a block
 * ends where it was last seen to reach (at least its own row).
 */
function blockEnd(lines: readonly string[], row: number, style: BlockStyle, work: ScanWork): number {
  const max = Math.min(lines.length - 1, row + 20_000);
  if (style === "line") return row;
  if (style === "indent") {
    const base = indentOf(lines[row] ?? "");
    let last = row;
    for (let r = row + 1; r <= max; r++) {
      const l = lines[r] ?? "";
      if (!charge(work, l)) break;
      if (l.trim() === "") continue;
      if (indentOf(l) <= base) break;
      last = r;
    }
    return last;
  }
  if (style === "end") {
    const first = lines[row] ?? "";
    if (/\bend\b\s*$/.test(first) && !/^\s*(class|module)\b/.test(first)) return row;
    const base = indentOf(first);
    for (let r = row + 1; r <= max; r++) {
      const l = lines[r] ?? "";
      if (!charge(work, l)) return Math.max(row, r - 1);
      if (l.trim() === "") continue;
      if (indentOf(l) <= base) return /^\s*end\b/.test(l) ? r : Math.max(row, r - 1);
    }
    return max;
  }
  // Braces: the body opens on the definition line, on a continuation line while parentheses are still
  // open (multi-line parameters), or on the next line when that line starts with `{` (Allman style).
  let depth = 0;
  let parens = 0;
  let opened = false;
  for (let r = row; r <= max; r++) {
    const l = lines[r] ?? "";
    if (!charge(work, l)) return opened ? Math.max(row, r - 1) : row;
    if (!opened && r > row && parens <= 0 && !l.trimStart().startsWith("{")) return r - 1;
    for (const ch of l) {
      if (ch === "(") parens++;
      else if (ch === ")") parens--;
      else if (ch === "{") {
        depth++;
        opened = true;
      } else if (ch === "}") {
        depth--;
        if (opened && depth <= 0) return r;
      } else if (ch === ";" && !opened && parens <= 0) return r;
    }
    if (!opened && r >= row + 10) return row;
  }
  return opened ? max : row;
}

/**
 * Extracts definitions and imports with line regexes. Never throws; unknown languages give nothing. Time is
 * linear in the file: block ends are found within a scan allowance of a few times its length. `work`, when
 * given, receives the characters those scans read.
 */
export function regexParse(
  content: string,
  language: LanguageId | null,
  work: { scanned: number } = { scanned: 0 },
): { symbols: CodeSymbol[]; imports: ImportRef[] } {
  const spec = language ? LANGS[language] : undefined;
  if (!spec) return { symbols: [], imports: [] };
  const scan: ScanWork = { scanned: 0, allowed: BLOCK_SCAN_FACTOR * content.length + BLOCK_SCAN_FLOOR };
  const lines = content.split(/\r?\n/);
  const raws: RawDefinition[] = [];
  const imports: ImportRef[] = [];
  let inGoImportBlock = false;
  for (let row = 0; row < lines.length; row++) {
    const line = lines[row]!;
    if (line.length > 2000) continue;
    if (language === "go") {
      if (/^import\s*\($/.test(line.trim())) {
        inGoImportBlock = true;
        continue;
      }
      if (inGoImportBlock) {
        if (line.trim().startsWith(")")) inGoImportBlock = false;
        else {
          const m = /^\s*(?:[\w.]+\s+)?"(?<spec>[^"]+)"/.exec(line);
          if (m?.groups?.spec) imports.push({ spec: m.groups.spec, line: row + 1 });
        }
        continue;
      }
    }
    for (const rule of spec.imports) {
      const m = line.match(rule.re);
      if (!m) continue;
      for (const r of (rule.map ?? quoted())(m)) {
        imports.push({ spec: r.spec, ...(r.names && r.names.length > 0 ? { names: r.names } : {}), line: row + 1 });
      }
      break;
    }
    for (const rule of spec.defs) {
      if (rule.topLevel && /^\s/.test(line)) continue;
      const m = line.match(rule.re);
      const name = m?.groups?.name;
      if (!m || !name) continue;
      if (rule.kind === "method" && NOT_METHOD.has(name)) continue;
      let kind: SymbolKind | "scope";
      if (typeof rule.kind === "object") kind = KEYWORD_KINDS[m.groups?.[rule.kind.group] ?? ""] ?? "class";
      else kind = rule.kind;
      const endRow = blockEnd(lines, row, rule.block ?? spec.block, scan);
      work.scanned = scan.scanned;
      const indent = indentOf(line);
      raws.push({
        kind: kind === "scope" ? "class" : kind,
        scope: kind === "scope",
        name,
        start: row * POS + indent,
        end: endRow * POS + POS - 1,
        startRow: row,
        endRow,
        nameRow: row,
        parent: m.groups?.parent,
      });
      break;
    }
  }
  return { symbols: assembleSymbols(raws, lines), imports };
}
