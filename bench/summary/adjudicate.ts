// Settles two labellers' gold files of one session into one, and measures how far they agree.
//
// Facts: two facts (one from each labeller) are the same fact when they have the same kind and either a match
// string of one contains a match string of the other (normalized as in gold.ts, five characters or more), or their
// evidence snippets share at least half of the smaller one's content tokens (three or more). Pairs are taken
// greedily, best overlap first, each fact used once. A pair becomes one fact: the union of its match strings, the
// first labeller's text and evidence; `current` is false only when both say so, or one says so and gives nothing
// the other contradicts — it is the AND of both; `resolved` is true when either labeller gives resolved evidence
// found in the transcript. A fact only one labeller gave is kept when its evidence (first 60 characters, whitespace
// collapsed) and one of its match strings occur in the transcript; it is flagged `single`; otherwise it is dropped
// (listed in the report).
// Human turns: the class both gave; on disagreement, `instruction` when that labeller's instruction sentences occur
// in the turn, else the first labeller's class; the two classes are kept in `disagree`.
// Agreement: fact-level F1 per kind (pairs / facts of each labeller), Cohen's kappa on the classes of the turns
// both labelled.
import { readFileSync } from "node:fs";

import { type GoldFact, GoldFile, type GoldTurn, HumanClass as Classes, type HumanClass } from "./gold.js";
import { normalizeMatch } from "./gold.js";
import { tokens } from "./truth.js";

const squash = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

function evidenceOverlap(a: string, b: string): number {
  const ta = new Set(tokens(a));
  const tb = new Set(tokens(b));
  const small = Math.min(ta.size, tb.size);
  if (small < 3) return 0;
  const shared = [...ta].filter((w) => tb.has(w)).length;
  return shared >= 3 ? shared / small : 0;
}

function matchOverlap(a: GoldFact, b: GoldFact): boolean {
  for (const x of a.match.map(normalizeMatch))
    for (const y of b.match.map(normalizeMatch)) {
      if (x.length < 5 || y.length < 5) {
        if (x === y && x.length >= 3) return true;
        continue;
      }
      if (x.includes(y) || y.includes(x)) return true;
    }
  return false;
}

/** How strongly two facts are the same fact: 0 when they are not (the rule in the module header). */
export function sameFact(a: GoldFact, b: GoldFact): number {
  if (a.kind !== b.kind) return 0;
  const ev = evidenceOverlap(a.evidence, b.evidence);
  const m = matchOverlap(a, b) ? 1 : 0;
  if (m === 0 && ev < 0.5) return 0;
  return m + ev;
}

/** The pairs of facts two labellers share, greedily by overlap. */
export function pairFacts(a: readonly GoldFact[], b: readonly GoldFact[]): [number, number][] {
  const cand: { i: number; j: number; s: number }[] = [];
  a.forEach((x, i) =>
    b.forEach((y, j) => {
      const s = sameFact(x, y);
      if (s > 0) cand.push({ i, j, s });
    }),
  );
  cand.sort((p, q) => q.s - p.s || p.i - q.i || p.j - q.j);
  const ua = new Set<number>();
  const ub = new Set<number>();
  const out: [number, number][] = [];
  for (const c of cand) {
    if (ua.has(c.i) || ub.has(c.j)) continue;
    ua.add(c.i);
    ub.add(c.j);
    out.push([c.i, c.j]);
  }
  return out;
}

/** Whether a single labeller's fact is evidenced in the transcript text. */
export function wellEvidenced(f: GoldFact, transcript: string): boolean {
  const t = squash(transcript);
  const ev = squash(f.evidence).slice(0, 60);
  const evOk = ev.length >= 10 && t.includes(ev);
  const mOk = f.match.some((m) => squash(m).length >= 3 && t.includes(squash(m)));
  return evOk && mOk;
}

export interface Agreement {
  facts: Record<string, { a: number; b: number; pairs: number; f1: number | null }>;
  facts_all: { a: number; b: number; pairs: number; f1: number | null };
  turns: { both: number; agree: number; kappa: number | null };
}

export interface Adjudicated {
  gold: GoldFile;
  dropped: string[];
  agreement: Agreement;
  /** Turn classes both gave, for pooling kappa over sessions. */
  turnPairs: [HumanClass, HumanClass][];
}

const f1 = (pairs: number, a: number, b: number): number | null =>
  a + b > 0 ? Math.round(((2 * pairs) / (a + b)) * 1000) / 1000 : null;

/** Cohen's kappa of paired labels. */
export function cohenKappa(pairs: readonly [string, string][]): number | null {
  const n = pairs.length;
  if (n === 0) return null;
  const agree = pairs.filter(([x, y]) => x === y).length / n;
  const ca = new Map<string, number>();
  const cb = new Map<string, number>();
  for (const [x, y] of pairs) {
    ca.set(x, (ca.get(x) ?? 0) + 1);
    cb.set(y, (cb.get(y) ?? 0) + 1);
  }
  let chance = 0;
  for (const [k, v] of ca) chance += (v / n) * ((cb.get(k) ?? 0) / n);
  if (chance === 1) return 1;
  return Math.round(((agree - chance) / (1 - chance)) * 1000) / 1000;
}

function instructionHolds(t: GoldTurn, turnText: string | undefined): boolean {
  if (t.class !== "instruction" || !turnText) return false;
  const text = squash(turnText);
  return t.instruction_sentences.length > 0 && t.instruction_sentences.every((s) => text.includes(squash(s)));
}

/**
 * Settles two labellers' files (a is the first by name) into one gold file for the session; `turnText` gives
 * the text of a human turn by its index (from the turn dump), `transcript` the raw transcript.
 */
export function adjudicate(
  a: GoldFile,
  b: GoldFile,
  transcript: string,
  turnText: (index: number) => string | undefined,
): Adjudicated {
  const la = a.labeller ?? "a";
  const lb = b.labeller ?? "b";
  const pairs = pairFacts(a.facts, b.facts);
  const pa = new Set(pairs.map(([i]) => i));
  const pb = new Set(pairs.map(([, j]) => j));
  const facts: GoldFact[] = [];
  const dropped: string[] = [];
  for (const [i, j] of pairs) {
    const x = a.facts[i]!;
    const y = b.facts[j]!;
    const resolvedBy = [x, y].find(
      (f) =>
        f.resolved === true &&
        f.resolved_evidence &&
        squash(transcript).includes(squash(f.resolved_evidence).slice(0, 60)),
    );
    const fact: GoldFact = {
      id: `f${facts.length + 1}`,
      kind: x.kind,
      text: x.text,
      match: [...new Set([...x.match, ...y.match])],
      evidence: x.evidence,
      current: x.current && y.current,
      labellers: [la, lb],
    };
    if (x.kind === "error") {
      fact.resolved = resolvedBy !== undefined || (x.resolved === true && y.resolved === true);
      const ev = resolvedBy?.resolved_evidence ?? x.resolved_evidence ?? y.resolved_evidence;
      if (fact.resolved && ev) fact.resolved_evidence = ev;
    }
    facts.push(fact);
  }
  const singles = [
    ...a.facts.filter((_, i) => !pa.has(i)).map((f) => [f, la] as const),
    ...b.facts.filter((_, j) => !pb.has(j)).map((f) => [f, lb] as const),
  ];
  for (const [f, who] of singles) {
    if (!wellEvidenced(f, transcript)) {
      dropped.push(`${who} ${f.kind}: ${f.text.slice(0, 120)}`);
      continue;
    }
    facts.push({ ...f, id: `f${facts.length + 1}`, single: true, labellers: [who] });
  }

  const kinds = [...new Set([...a.facts, ...b.facts].map((f) => f.kind))].sort();
  const perKind: Agreement["facts"] = {};
  for (const k of kinds) {
    const na = a.facts.filter((f) => f.kind === k).length;
    const nb = b.facts.filter((f) => f.kind === k).length;
    const np = pairs.filter(([i]) => a.facts[i]!.kind === k).length;
    perKind[k] = { a: na, b: nb, pairs: np, f1: f1(np, na, nb) };
  }

  const tb = new Map(b.human_turns.map((t) => [t.index, t]));
  const ta = new Map(a.human_turns.map((t) => [t.index, t]));
  const turnPairs: [HumanClass, HumanClass][] = [];
  const turns: GoldTurn[] = [];
  for (const index of [...new Set([...ta.keys(), ...tb.keys()])].sort((p, q) => p - q)) {
    const x = ta.get(index);
    const y = tb.get(index);
    if (x && y) {
      turnPairs.push([x.class, y.class]);
      if (x.class === y.class) {
        const sentences = [...new Set([...x.instruction_sentences, ...y.instruction_sentences])];
        turns.push({ index, class: x.class, instruction_sentences: sentences });
      } else {
        const text = turnText(index);
        const pick = instructionHolds(y, text) && !instructionHolds(x, text) ? y : x;
        turns.push({
          index,
          class: pick.class,
          instruction_sentences: pick.instruction_sentences,
          disagree: [x.class, y.class],
        });
      }
    } else turns.push((x ?? y)!);
  }
  const both = turnPairs.length;
  return {
    gold: {
      session: a.session,
      labellers: [la, lb],
      ...(a.goal
        ? { goal: { text: a.goal.text, match: [...new Set([...a.goal.match, ...(b.goal?.match ?? [])])] } }
        : {}),
      facts,
      human_turns: turns,
    },
    dropped,
    agreement: {
      facts: perKind,
      facts_all: {
        a: a.facts.length,
        b: b.facts.length,
        pairs: pairs.length,
        f1: f1(pairs.length, a.facts.length, b.facts.length),
      },
      turns: { both, agree: turnPairs.filter(([x, y]) => x === y).length, kappa: cohenKappa(turnPairs) },
    },
    turnPairs,
  };
}

/** A labeller's file, parsed and checked (a class outside the guide's list is an error naming the file). */
export function readLabellerFile(path: string): GoldFile {
  const g = GoldFile.parse(JSON.parse(readFileSync(path, "utf8")));
  for (const t of g.human_turns) Classes.parse(t.class);
  return g;
}
