// Shapes of extracted symbols and imports, and the one pass that turns raw definitions into nested symbols.
import { z } from "zod";

export const SymbolKind = z.enum([
  "function",
  "class",
  "method",
  "interface",
  "type",
  "enum",
  "struct",
  "trait",
  "module",
  "constant",
  "variable",
]);
export type SymbolKind = z.infer<typeof SymbolKind>;

/** A definition in a file. Lines are 1-based and inclusive. */
export const CodeSymbol = z.object({
  name: z.string(),
  kind: SymbolKind,
  startLine: z.number().int().positive(),
  endLine: z.number().int().positive(),
  /** Name of the enclosing class-like symbol (class, struct, trait, interface, impl target, module). */
  parent: z.string().optional(),
  /** The line that names the symbol, trimmed (at most 200 characters). */
  signature: z.string().optional(),
});
export type CodeSymbol = z.infer<typeof CodeSymbol>;

/** An import as written: "./util", "os.path", "java.util.List", "crate::foo::bar", "fmt", "<stdio.h>", "mod x". */
export const ImportRef = z.object({
  spec: z.string(),
  /** Names imported from the module; `*` for a wildcard, `default` for a default import. */
  names: z.array(z.string()).optional(),
  line: z.number().int().positive(),
});
export type ImportRef = z.infer<typeof ImportRef>;

/** A definition before nesting: positions are `row * POS + column`, rows 0-based, end exclusive. */
export interface RawDefinition {
  kind: SymbolKind;
  name: string;
  start: number;
  end: number;
  startRow: number;
  endRow: number;
  nameRow: number;
  /** A container that is not itself a symbol (a Rust impl block). */
  scope: boolean;
  /** Explicit enclosing type name (Go receiver, C++ `A::m`). */
  parent?: string | undefined;
}

/** Multiplier that orders (row, column) pairs as one number. */
export const POS = 10_000_000;

const CONTAINERS: ReadonlySet<SymbolKind> = new Set<SymbolKind>([
  "class",
  "interface",
  "struct",
  "trait",
  "enum",
  "module",
]);
const CLASS_LIKE: ReadonlySet<SymbolKind> = new Set<SymbolKind>(["class", "interface", "struct", "trait", "enum"]);
const CONSTANT_NAME = /^[A-Z][A-Z0-9_]*$/;
const MAX_SIGNATURE = 200;

/**
 * Nests raw definitions: drops locals (anything inside a function or method), names each symbol's
 * enclosing container as `parent`, turns functions in classes into methods (and parentless methods into
 * functions), marks UPPER_CASE variables as constants, and adds signatures. Output is ordered by position.
 */
export function assembleSymbols(raws: readonly RawDefinition[], lines: readonly string[]): CodeSymbol[] {
  const sorted = [...raws].sort((a, b) => a.start - b.start || b.end - a.end);
  const stack: RawDefinition[] = [];
  const out: CodeSymbol[] = [];
  for (const d of sorted) {
    while (stack.length > 0 && stack[stack.length - 1]!.end <= d.start) stack.pop();
    if (stack.some((s) => !s.scope && (s.kind === "function" || s.kind === "method"))) continue;
    stack.push(d);
    if (d.scope) continue;
    let container: RawDefinition | undefined;
    for (let i = stack.length - 2; i >= 0; i--) {
      const s = stack[i]!;
      if (s.scope || CONTAINERS.has(s.kind)) {
        container = s;
        break;
      }
    }
    const parent = d.parent ?? container?.name;
    const classLikeParent =
      d.parent !== undefined || (container !== undefined && (container.scope || CLASS_LIKE.has(container.kind)));
    let kind = d.kind;
    if (kind === "function" && classLikeParent) kind = "method";
    else if (kind === "method" && parent === undefined) kind = "function";
    else if (kind === "variable" && CONSTANT_NAME.test(d.name)) kind = "constant";
    const signature = lines[d.nameRow]?.trim().slice(0, MAX_SIGNATURE);
    out.push({
      name: d.name,
      kind,
      startLine: d.startRow + 1,
      endLine: Math.max(d.startRow, d.endRow) + 1,
      ...(parent !== undefined ? { parent } : {}),
      ...(signature ? { signature } : {}),
    });
  }
  return out;
}
