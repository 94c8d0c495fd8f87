// Named constants in ranking and scoring: every number that shapes a rank or a score is a named, documented
// module-level constant that says where it came from (fitted by which command, or hand-set and why), never a literal
// inside a function. scripts/folder-cycles.mjs runs this check on the files in RANKING_FILES.
//
// The rule, per numeric literal in those files (literal types in type annotations are types, not numbers):
// 1. 0, 1 and 2 may stand anywhere: they are structural (an empty sum, a share's bounds, a rank's 1-based offset, a
//    pair, a half as `/ 2`); a weight of 1 or 2 that is a choice should still be named, but no check can tell the two
//    apart. Any literal may index (`match[3]`, `parts[4]`): a position in a tuple or a regex match is no weight.
// 2. The rounding idiom `Math.round(x * N) / N` may use its N inline when N is a power of ten
//    (`Math.round(x * 1000) / 1000`): it rounds a figure for output, it does not weigh anything. Another step
//    (`Math.round(x * 3) / 3`) quantizes a score, a choice like any other: it is named.
// 3. Any other literal stands in the initializer of a module-level `const` (a plain value, or an object or array of
//    them: group related constants in one `as const` object), outside any function, and that `const` statement
//    carries a doc comment (`/** … */`) saying where the values came from (an empty one says nothing and fails).
// So `score * 0.37` inside a function fails, and so does a default parameter `k = 60`: name it, document it, use it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join, relative } from "node:path";

import ts from "typescript";

/** The ranking and scoring files the rule holds in (paths under src/). */
export const RANKING_FILES = [
  "scoring/utility.ts",
  "scoring/pack.ts",
  "scoring/calibration.ts",
  "retrieval/query.ts",
  "retrieval/fuse.ts",
  "retrieval/bm25.ts",
  "retrieval/symbols.ts",
  "retrieval/weights.ts",
  "retrieval/channels.ts",
  "retrieval/rank.ts",
  "retrieval/universe.ts",
  "cards/candidates.ts",
  "cards/evidence.ts",
  // The ranker's and the cards' lexical query terms (how many are kept, the shortest term kept), moved out of
  // retrieval/query.ts.
  "text/search-terms.ts",
];

/** Literal values allowed anywhere (rule 1). */
const STRUCTURAL = new Set([0, 1, 2]);

function* tsFiles(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (p.endsWith(".ts")) yield p;
  }
}

/**
 * Where a listed file is: at its path, else (a file moved to another folder) the one file under `src` with its name.
 * Undefined when it is neither.
 */
function locate(src, rel) {
  if (existsSync(join(src, rel))) return join(src, rel);
  const named = [...tsFiles(src)].filter((f) => basename(f) === basename(rel));
  return named.length === 1 ? named[0] : undefined;
}

const valueOf = (lit) => Number(lit.text.replace(/_/g, ""));

const isMathRound = (node) =>
  ts.isCallExpression(node) &&
  ts.isPropertyAccessExpression(node.expression) &&
  node.expression.expression.getText() === "Math" &&
  node.expression.name.text === "round";

/** A rounding step for output: 10, 100, 1000, … (rule 2). */
const powerOfTen = (v) => v >= 10 && Number.isInteger(Math.log10(v));

/** The literals of every `Math.round(x * N) / N` in the file, N a power of ten (rule 2). */
function roundingLiterals(sf) {
  const out = new Set();
  const visit = (node) => {
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.SlashToken &&
      ts.isNumericLiteral(node.right) &&
      isMathRound(node.left) &&
      node.left.arguments.length === 1
    ) {
      const inner = node.left.arguments[0];
      if (
        ts.isBinaryExpression(inner) &&
        inner.operatorToken.kind === ts.SyntaxKind.AsteriskToken &&
        ts.isNumericLiteral(inner.right) &&
        valueOf(inner.right) === valueOf(node.right) &&
        powerOfTen(valueOf(node.right))
      ) {
        out.add(inner.right);
        out.add(node.right);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Whether a statement carries a doc comment (`/** … *\/`) with some words in it right before it. */
function documented(sf, stmt) {
  return (ts.getLeadingCommentRanges(sf.text, stmt.pos) ?? []).some(
    (c) => sf.text.startsWith("/**", c.pos) && /\w/.test(sf.text.slice(c.pos + 3, c.end - 2)),
  );
}

/** Why a literal breaks the rule, or undefined when it keeps it. */
function problem(sf, lit, rounding) {
  if (STRUCTURAL.has(valueOf(lit)) || rounding.has(lit)) return undefined;
  if (ts.isElementAccessExpression(lit.parent) && lit.parent.argumentExpression === lit) return undefined;
  let node = lit;
  do {
    node = node.parent;
    if (ts.isFunctionLike(node)) return "inline in a function";
  } while (node.parent && !ts.isSourceFile(node.parent));
  if (!ts.isVariableStatement(node) || !(node.declarationList.flags & ts.NodeFlags.Const))
    return "outside a module-level const";
  if (!documented(sf, node)) return "in a const with no doc comment saying where it came from";
  return undefined;
}

/** The unnamed numbers in one file's text: { line, text, why } each (`file` names it in the messages only). */
export function unnamedNumbers(text, file = "file.ts") {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const rounding = roundingLiterals(sf);
  const out = [];
  const visit = (node) => {
    if (ts.isNumericLiteral(node) && !ts.isLiteralTypeNode(node.parent)) {
      const why = problem(sf, node, rounding);
      if (why) {
        const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const source = sf.text.split("\n")[line].trim();
        out.push({ line: line + 1, text: node.text, why, source });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/**
 * The check over the tree at `src`: { errors: string[], checked: string[] }. A listed file that is missing is an
 * error only when `strict` (the repository's own tree); a test's small tree holds only the files it is about.
 */
export function checkNamedConstants(src, strict) {
  const errors = [];
  const checked = [];
  for (const rel of RANKING_FILES) {
    const file = locate(src, rel);
    if (!file) {
      if (strict) errors.push(`${rel} is in RANKING_FILES but not under src/: update scripts/named-constants.mjs`);
      continue;
    }
    const at = relative(src, file);
    checked.push(at);
    for (const n of unnamedNumbers(readFileSync(file, "utf8"), at))
      errors.push(
        `unnamed constant: ${at}:${n.line} ${n.text} ${n.why} (\`${n.source}\`): name it in a documented ` +
          "module-level const (rule in scripts/named-constants.mjs)",
      );
  }
  return { errors, checked };
}
