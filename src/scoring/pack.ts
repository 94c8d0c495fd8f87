// Packing cards under a token budget: utility per token, governing rules reserved, near-duplicates and
// blocked conflicts skipped, in two modes (select on raw cost then compress, or compress then select).
import type { Card, PackMode } from "./schema.js";

export interface PackInput {
  card: Card;
  /** The unit is a rule governing a top-ranked file: room is reserved for these. */
  governing: boolean;
  /** A conflicting unit whose risk outweighs its use: never served. */
  blocked: boolean;
}

export interface PackResult {
  mode: PackMode;
  selected: string[];
  tokens: number;
  skipped: { id: string; reason: "budget" | "duplicate" | "conflict" | "no utility" }[];
}

function words(s: string): Set<string> {
  return new Set(s.toLowerCase().match(/[a-z0-9_./]+/g) ?? []);
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / Math.max(1, a.size + b.size - inter);
}

/**
 * Packs under `budget` card tokens. `post_selection` chooses on each unit's raw cost (what it would cost
 * uncompressed), then serves the compressed cards; `pre_budget` chooses on the cards' own cost, so more fit.
 * Either way the served cards never exceed the budget.
 */
export function pack(
  items: readonly PackInput[],
  budget: number,
  mode: PackMode,
  opts: { ruleReserve?: number; minUtility?: number } = {},
): PackResult {
  const reserve = Math.floor(budget * (opts.ruleReserve ?? 0.2));
  const minUtility = opts.minUtility ?? 0.05;
  const cost = (c: Card) => (mode === "post_selection" ? Math.max(c.tokens, c.raw_tokens) : c.tokens);
  const selected: PackInput[] = [];
  const skipped: PackResult["skipped"] = [];
  const seen = new Map<string, Set<string>>();
  let spentSelect = 0;
  let spentCards = 0;
  /** Adds the item if it fits under `limit`; returns why not otherwise. */
  const tryAdd = (it: PackInput, limit: number): PackResult["skipped"][number]["reason"] | undefined => {
    const c = it.card;
    if (it.blocked) return "conflict";
    if (c.utility < minUtility) return "no utility";
    const w = words(`${c.kind} ${c.evidence}`);
    for (const other of seen.values()) if (jaccard(w, other) >= 0.8) return "duplicate";
    if (spentSelect + cost(c) > limit || spentCards + c.tokens > budget) return "budget";
    selected.push(it);
    seen.set(c.id, w);
    spentSelect += cost(c);
    spentCards += c.tokens;
    return undefined;
  };
  const byDensity = (a: PackInput, b: PackInput) =>
    b.card.utility / cost(b.card) - a.card.utility / cost(a.card) || b.card.utility - a.card.utility;
  const rules = items.filter((i) => i.governing).sort(byDensity);
  const done = new Set<string>();
  for (const r of rules) {
    if (spentSelect >= reserve) break;
    if (tryAdd(r, reserve) === undefined) done.add(r.card.id);
  }
  // Governing rules that did not fit the reserve compete with the rest.
  for (const it of items.filter((i) => !done.has(i.card.id)).sort(byDensity)) {
    const why = tryAdd(it, budget);
    if (why) skipped.push({ id: it.card.id, reason: why });
  }
  selected.sort((a, b) => b.card.utility - a.card.utility);
  return { mode, selected: selected.map((s) => s.card.id), tokens: spentCards, skipped };
}
