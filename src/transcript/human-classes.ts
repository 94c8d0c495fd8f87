// What a person's turn is: a standing instruction, a one-off request, an answer, a problem report, chit-chat,
// pasted material, or not the person's at all. A multinomial logistic regression over the turn's words, word pairs
// and a few structure features (length, lines, code, paths, a question mark, the parser's turn kind), fitted on
// labelled turns by `scripts/fit-human-classes.mjs` (procedure in bench/summary/fit-human.ts); its weights are
// human-weights.json. A second, binary model picks the instruction sentences inside a turn classed `instruction`.
import { humanPart } from "./human.js";
import weights from "./human-weights.json" with { type: "json" };

export const HUMAN_CLASSES = [
  "instruction",
  "request",
  "answer",
  "problem",
  "chitchat",
  "pasted",
  "not_human",
] as const;
export type HumanClass = (typeof HUMAN_CLASSES)[number];

/** A fitted softmax model: per feature one weight per class, and the class biases. */
export interface SoftmaxModel {
  classes: string[];
  bias: number[];
  weights: Record<string, number[]>;
}

/** A fitted binary model: per feature one weight. */
export interface BinaryModel {
  bias: number;
  weights: Record<string, number>;
}

export interface HumanWeights {
  turn: SoftmaxModel;
  /** A sentence is a standing instruction at this probability or more (chosen by cross-validation for precision). */
  instruction_threshold: number;
  sentence: BinaryModel;
  sentence_threshold: number;
}

const MAX_CHARS = 4000;

const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}][\p{L}\p{N}'’]*|\d+/gu) ?? [];

const bucket = (n: number): number => (n <= 0 ? 0 : Math.min(12, Math.floor(Math.log2(n + 1))));

/** Word, word-pair and structure features of a text (present or not). */
function textFeatures(text: string): Set<string> {
  const t = text.slice(0, MAX_CHARS);
  const ws = words(t);
  const out = new Set<string>();
  for (const w of ws) out.add(`w:${w}`);
  for (let i = 0; i + 1 < ws.length && i < 400; i++) out.add(`b:${ws[i]}_${ws[i + 1]}`);
  if (ws[0]) out.add(`first:${ws[0]}`);
  out.add(`len:${bucket(text.length)}`);
  out.add(`lines:${bucket(text.split("\n").length)}`);
  out.add(`words:${bucket(ws.length)}`);
  if (/```|^\s{4}\S/m.test(t)) out.add("s:code");
  if ((t.match(/[{};=<>()[\]]/g)?.length ?? 0) > t.length / 25) out.add("s:symbols");
  if (/https?:\/\//.test(t)) out.add("s:url");
  if (/[\w-]+\/[\w./-]+|\b[\w-]+\.(?:[jt]sx?|py|md|json|cs|java|go|rs|rb|php|al|yml|yaml|toml|html|css)\b/.test(t))
    out.add("s:path");
  if (/\?\s*$/.test(t.trim()) || /\?\s/.test(t)) out.add("s:question");
  if (/^\s*\//.test(t)) out.add("s:slash");
  if (/<\/?[a-z_-]+>/i.test(t)) out.add("s:tag");
  if (/^\s*(?:[-*]|\d+[.)])\s/m.test(t)) out.add("s:list");
  if (/\b(?:Error|Exception|Traceback)\b|\berror\b:/.test(t)) out.add("s:error");
  return out;
}

/** Features of a turn: its text's features and the parser's kind of turn. */
export function turnFeatures(text: string, kind: string): Set<string> {
  const f = textFeatures(text);
  f.add(`kind:${kind}`);
  return f;
}

/** Features of a sentence inside a turn. */
export function sentenceFeatures(sentence: string): Set<string> {
  return textFeatures(sentence);
}

/** Class probabilities of a softmax model for a feature set. */
export function softmax(model: SoftmaxModel, feats: Iterable<string>): number[] {
  const z = [...model.bias];
  for (const f of feats) {
    const w = model.weights[f];
    if (w) for (let k = 0; k < z.length; k++) z[k]! += w[k]!;
  }
  const m = Math.max(...z);
  const e = z.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

/** Probability of a binary model for a feature set. */
export function logistic(model: BinaryModel, feats: Iterable<string>): number {
  let z = model.bias;
  for (const f of feats) z += model.weights[f] ?? 0;
  return 1 / (1 + Math.exp(-z));
}

const NOT_PERSONS = new Set(["not_human", "pasted"]);

/**
 * A turn's class from the turn model's probabilities and its likeliest instruction sentence: `instruction` when that
 * sentence reaches `threshold` and the turn model's likeliest class is not pasted or not the person's; otherwise
 * the likeliest class other than instruction.
 */
export function decideTurn(p: readonly number[], sentenceP: number, threshold: number): string {
  const order = p.map((x, i) => [x, i] as const).sort((a, b) => b[0] - a[0]);
  const top = HUMAN_CLASSES[order[0]![1]]!;
  if (sentenceP >= threshold && !NOT_PERSONS.has(top)) return "instruction";
  return HUMAN_CLASSES[order.find(([, i]) => HUMAN_CLASSES[i] !== "instruction")![1]]!;
}

/** The person's sentences of a turn (fenced code left out). */
export function ownSentences(text: string): string[] {
  return splitSentences(humanPart(text).text.replace(/```[\s\S]*?(```|$)/g, " "));
}

/** The highest instruction probability among a turn's sentences. */
export function maxInstructionSentence(model: BinaryModel, text: string): number {
  return ownSentences(text).reduce((m, s) => Math.max(m, logistic(model, sentenceFeatures(s))), 0);
}

const W = weights as HumanWeights;

/** The class of a person's turn (`kind` is the parser's: message or meta). */
export function classifyTurn(text: string, kind = "message"): HumanClass {
  const p = softmax(W.turn, turnFeatures(text, kind));
  return decideTurn(p, maxInstructionSentence(W.sentence, text), W.instruction_threshold) as HumanClass;
}

/** Sentences end at . ! ? followed by space, or at a line break; list bullets are kept with their sentence. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 2);
}

/** The standing-instruction sentences of a turn, whole and in order (the person's words only). */
export function instructionSentences(text: string): string[] {
  return ownSentences(text).filter((s) => logistic(W.sentence, sentenceFeatures(s)) >= W.instruction_threshold);
}
