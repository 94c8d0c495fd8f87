// The nodes of one file: the file node (file, test or rule) and its symbols, with FTS tokens and embed text.
import { createHash } from "node:crypto";

import { baseName, isTestPath } from "../repo/languages.js";
import type { ParsedFile } from "../repo/parse.js";
import { parseRule, ruleKindOf } from "../repo/rules.js";
import type { ScannedFile } from "../repo/scan.js";
import type { NodeInput } from "../storage/graph/nodes.js";
import { symbolEmbedText } from "../storage/graph/symbol-text.js";
import { clipWords } from "../text/cut.js";
import { identifierTokens } from "../text/identifiers.js";
import { redact } from "../text/redact.js";

const EMBED_CHARS = 1_500;

/** A symbol's content identity: 64 bits of the sha1 of its text (hex). */
const textHash = (s: string) => createHash("sha1").update(s).digest("hex").slice(0, 16);
const tok = (s: string) => identifierTokens(s).join(" ");
/** Body tokens with each term kept at most `cap` times: BM25's term frequency saturates long before. */
const TF_CAP = 8;
const capTok = (lineTokens: readonly (readonly string[])[]) => {
  const seen = new Map<string, number>();
  const out: string[] = [];
  for (const line of lineTokens) {
    for (const t of line) {
      const n = (seen.get(t) ?? 0) + 1;
      seen.set(t, n);
      if (n <= TF_CAP) out.push(t);
    }
  }
  return out.join(" ");
};
/** A cheap token estimate for ranking cost; cards count real tokens of what they actually serve. */
const estimateTokens = (chars: number) => Math.ceil(chars / 4);

export const fileKey = (path: string) => `file:${path}`;

/**
 * The nodes of one parsed file: the file node first, then its symbols (stable keys by qualified name). `content` is
 * the file's redacted text (see graph/prepare.ts); every summary and embed text composed from it is redacted again
 * here (see `redactComposed`), so the nodes are marked `fromRedacted` and the writer stores them as given.
 * `lineTokens`: the tokens of each line of `content`, when the caller has them (a token never spans lines).
 */
export function fileNodes(
  file: Pick<ScannedFile, "path" | "language" | "hash">,
  content: string,
  parsed: ParsedFile | undefined,
  lineTokens: readonly (readonly string[])[] = content.split("\n").map((l) => identifierTokens(l)),
): NodeInput[] {
  const isTest = isTestPath(file.path, file.language);
  const ruleKind = ruleKindOf(file.path);
  const rule = ruleKind ? parseRule(file.path, content) : undefined;
  const symbols = parsed?.symbols ?? [];
  const defined = symbols.map((s) => s.name).join(" ");
  const type = rule ? "rule" : isTest ? "test" : "file";
  const head = content.slice(0, EMBED_CHARS);
  const nodes: NodeInput[] = [
    {
      key: fileKey(file.path),
      type,
      path: file.path,
      name: baseName(file.path),
      kind: file.language,
      startLine: 1,
      endLine: content.length ? content.split("\n").length : 0,
      summary: rule
        ? (rule.description ?? clipWords(rule.body, 200))
        : symbols.length
          ? `defines ${clipWords(defined, 300)}`
          : null,
      tokens: estimateTokens(content.length),
      contentHash: file.hash,
      source: rule ? "rule" : (parsed?.parser ?? "text"),
      meta: rule ? { ruleKind: rule.kind, dir: rule.dir, globs: rule.globs, alwaysApply: rule.alwaysApply } : undefined,
      fts: { name: tok(baseName(file.path) + " " + defined), path: tok(file.path), body: capTok(lineTokens) },
      embedText: `${file.path}\n${defined.slice(0, 500)}\n${head}`,
    },
  ];
  if (symbols.length === 0) return nodes.map(redactComposed);
  const lines = content.split("\n");
  const seen = new Map<string, number>();
  for (const s of symbols) {
    const qual = s.parent ? `${s.parent}.${s.name}` : s.name;
    const n = (seen.get(qual) ?? 0) + 1;
    seen.set(qual, n);
    const text = lines.slice(s.startLine - 1, s.endLine).join("\n");
    nodes.push({
      key: `sym:${file.path}#${qual}${n > 1 ? `~${n}` : ""}`,
      type: "symbol",
      path: file.path,
      name: s.name,
      kind: s.kind,
      startLine: s.startLine,
      endLine: s.endLine,
      summary: s.signature ?? null,
      tokens: estimateTokens(text.length),
      contentHash: textHash(text),
      source: parsed?.parser ?? "regex",
      meta: s.parent ? { parent: s.parent } : undefined,
      fts: { name: tok(qual), path: "", body: tok(s.signature ?? "") },
      embedText: symbolEmbedText(s.kind, qual, file.path, s.signature ?? null),
    });
  }
  return nodes.map(redactComposed);
}

/**
 * A node's summary and embed text redacted as composed. Each puts side by side what stood apart in the redacted
 * content (a class's name above a method's line, a rule's lines on one, a path before a head cut at 1,500
 * characters), where a name and a value, or a label and a key, can meet. Done here, in the parse worker when there is
 * one, so the writer stores them as given (`fromRedacted`).
 */
function redactComposed(n: NodeInput): NodeInput {
  return {
    ...n,
    summary: n.summary === null ? null : redact(n.summary),
    ...(n.embedText === undefined ? {} : { embedText: redact(n.embedText) }),
    fromRedacted: true,
  };
}
