// A statement of the agent's that restates a change unit of the same span is not a unit of its own: the choice an
// edit carried out ("Carried out: "I'll refactor …"") is the change that edit made, and a decision naming only the
// change's files, or a finding whose words the change already carries, repeats it. A choice the change does not
// yet state is folded into it as the agent's statement; a finding with a lesson of its own stays a unit.
import type { Sections, Turn } from "../conversation/schema.js";
import { identifierTokens } from "../text/identifiers.js";
import { CAUSE } from "./prose.js";
import type { UnitDraft } from "./schema.js";

/** Share of a statement's words a change unit's text carries at which the statement adds nothing (hand-set). */
const CARRIED_BY_CHANGE = 0.6;

/** Words too common to tell two statements of work apart, and the wrappers a choice or a change is said in. */
const COMMON = new Set(
  "the and for that this with not was are but has have our your you its into from then now carried out advised agent said changed request instead".split(
    " ",
  ),
);

/** A change unit that already quotes the agent's own statement of the change. */
const STATED = /\bThe agent said: /;

function contentWords(text: string): Set<string> {
  return new Set(identifierTokens(text).filter((w) => w.length > 2 && !COMMON.has(w)));
}

/** Share of `a`'s words found in `b`. */
function carried(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / Math.max(1, a.size);
}

/**
 * Whether a change's words carry a statement: most of its words, and for a finding most of the words of its cause
 * (from "because" on), so a finding that quotes the change's error but says why it happened keeps its lesson.
 */
function restates(d: UnitDraft, words: Set<string>, change: Set<string>): boolean {
  if (carried(words, change) < CARRIED_BY_CHANGE) return false;
  const cause = d.category === "learning" ? CAUSE.exec(d.text) : null;
  return !cause || carried(contentWords(d.text.slice(cause.index)), change) >= CARRIED_BY_CHANGE;
}

/** Two spellings of one file: the same path, or one a tail of the other ("bot.py", "/home/me/bot/bot.py"). */
function sameFile(a: string, b: string): boolean {
  const x = a.replace(/\\/g, "/");
  const y = b.replace(/\\/g, "/");
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`);
}

/**
 * The change unit holding the first edit at or after `turn`: of the changes that touched a file that edit touched,
 * the one whose edits began last before it.
 */
function changeAfter(
  turn: string,
  changes: readonly UnitDraft[],
  ops: readonly { at: number; file: string }[],
  position: ReadonlyMap<string, number>,
): UnitDraft | undefined {
  const from = position.get(turn);
  if (from === undefined) return undefined;
  // `ops` is in session order: the first at or after `from` is found by halving, and its turn's files follow it.
  let lo = 0;
  let hi = ops.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ops[mid]!.at < from) lo = mid + 1;
    else hi = mid;
  }
  const first = ops[lo]?.at ?? Infinity;
  const files: string[] = [];
  for (let i = lo; i < ops.length && ops[i]!.at === first; i++) files.push(ops[i]!.file);
  const at = (d: UnitDraft) => position.get(d.evidence[0]?.turn ?? "") ?? Infinity;
  return changes
    .filter((c) => at(c) <= first && c.files.some((f) => files.some((g) => sameFile(f, g))))
    .sort((a, b) => at(b) - at(a))[0];
}

/**
 * The prose drafts left once those restating a change of the span are dropped or folded into it. `choices` maps a
 * draft kept as a choice an edit carried out to the agent's sentence and the turn it was said in.
 */
export function withoutRestatedChanges(
  prose: readonly UnitDraft[],
  changes: readonly UnitDraft[],
  choices: ReadonlyMap<UnitDraft, { said: string; turn: string }>,
  sections: Sections,
  span: readonly Turn[],
  position: ReadonlyMap<string, number>,
): UnitDraft[] {
  const edits = changes.filter((c) => c.category === "change" && c.record["kind"] === "edit");
  if (edits.length === 0) return [...prose];
  // The person's messages up to each place: a decision said across one of them from a change is not that change.
  const spoken: number[] = [0];
  for (const t of span) spoken.push(spoken.at(-1)! + (t.role === "user" && t.kind === "message" ? 1 : 0));
  const place = (d: UnitDraft) => position.get(d.evidence[0]?.turn ?? "");
  const together = (d: UnitDraft, c: UnitDraft) => {
    const [a, b] = [place(d), place(c)];
    return a !== undefined && b !== undefined && spoken[Math.max(a, b)]! === spoken[Math.min(a, b)]!;
  };
  const editWords = new Map(edits.map((c) => [c, contentWords(c.text)]));
  // Every file operation of the session at its turn's place, in session order (read once, not once per choice).
  const ops = Object.entries(sections.files)
    .flatMap(([file, fileOps]) => fileOps.map((o) => ({ at: position.get(o.turn), file })))
    .filter((o): o is { at: number; file: string } => o.at !== undefined)
    .sort((a, b) => a.at - b.at);
  const kept: UnitDraft[] = [];
  const folded = new Map<UnitDraft, { base: string; said: string }>();
  for (const d of prose) {
    const choice = choices.get(d);
    const named = d.files;
    const w = contentWords(d.text);
    const change =
      (choice && changeAfter(choice.turn, edits, ops, position)) ||
      (d.category === "reasoning" && named.length > 0
        ? edits.find((c) => together(d, c) && named.every((f) => c.files.some((g) => sameFile(f, g))))
        : undefined) ||
      edits.find((c) => restates(d, w, editWords.get(c)!));
    if (!change) {
      kept.push(d);
      continue;
    }
    // The change says what was done; the agent's statement of the choice says why, where the change does not yet
    // (of several choices one change carried out, the fullest statement).
    const before = folded.get(change);
    if (!choice || (before === undefined && STATED.test(change.text))) continue;
    if (before !== undefined && before.said.length >= choice.said.length) continue;
    const base = before?.base ?? change.text;
    folded.set(change, { base, said: choice.said });
    change.text = `${base} The agent said: "${choice.said}"`;
    editWords.set(change, contentWords(change.text));
    change.evidence.push(...d.evidence.filter((e) => !change.evidence.some((x) => x.turn === e.turn)));
  }
  return kept;
}
