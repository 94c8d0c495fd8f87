// Packing cards under a token budget: the highest-utility card first, governing rules reserved, the rest by
// utility per token, then a covering test when room remains; near-duplicates and blocked conflicts skipped,
// in two modes (select on raw cost then compress, or compress then select).
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

/**
 * Packing's thresholds, set by hand when packing was built, with no measurement recorded for the values (no command
 * fits them; `memcards eval cards` measures the packs they make): `ruleReserve`, the share of the budget held for
 * governing rules; `minUtility`, the utility below which a card is not served; `duplicate`, the Jaccard similarity of
 * two cards' word sets at which the later one repeats the earlier.
 */
export const PACK = { ruleReserve: 0.2, minUtility: 0.05, duplicate: 0.8 } as const;

function words(s: string): Set<string> {
  return new Set(s.toLowerCase().match(/[a-z0-9_./]+/g) ?? []);
}

/** Jaccard similarity of two word sets, at least `min`; 0 when the sizes alone rule that out (|a ∩ b| ≤ min size). */
function jaccardAtLeast(a: Set<string>, b: Set<string>, min: number): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size < min * Math.max(1, large.size)) return false;
  let inter = 0;
  for (const w of small) if (large.has(w)) inter++;
  return inter / Math.max(1, a.size + b.size - inter) >= min;
}

/** The repository path a card is about (its scope without a line range). */
const scopePath = (c: Card) => c.scope.replace(/:\d+-\d+$/, "");

/**
 * Packs under `budget` card tokens, in four steps:
 * 1. the highest-utility card, whenever its card fits the budget (a cheaper pair never displaces it);
 * 2. governing rules, within a reserve (`ruleReserve` of the budget);
 * 3. the rest by utility per token of selection cost;
 * 4. when no test card was served yet and room remains, the best test covering a served file or symbol.
 * `post_selection` measures step 3 on each unit's raw cost (what it would cost uncompressed), then serves the
 * compressed cards; `pre_budget` measures on the cards' own cost, so more fit. Steps 1 and 4 measure the card
 * itself: the budget is what the served cards may cost. Either way the served cards never exceed the budget.
 */
export function pack(
  items: readonly PackInput[],
  budget: number,
  mode: PackMode,
  opts: { ruleReserve?: number; minUtility?: number } = {},
): PackResult {
  const reserve = Math.floor(budget * (opts.ruleReserve ?? PACK.ruleReserve));
  const minUtility = opts.minUtility ?? PACK.minUtility;
  const cost = (c: Card) => (mode === "post_selection" ? Math.max(c.tokens, c.raw_tokens) : c.tokens);
  const selected: PackInput[] = [];
  const seen = new Map<string, Set<string>>();
  /** Each item's words, made once (by item: two items may carry one card id). */
  const wordsOf = new Map<PackInput, Set<string>>();
  let spentSelect = 0;
  let spentCards = 0;
  /** Adds the item if it fits (selection cost under `limit`, card tokens under the budget); returns why not otherwise. */
  const tryAdd = (it: PackInput, limit: number): PackResult["skipped"][number]["reason"] | undefined => {
    const c = it.card;
    if (it.blocked) return "conflict";
    if (c.utility < minUtility) return "no utility";
    let w = wordsOf.get(it);
    if (!w) wordsOf.set(it, (w = words(`${c.kind} ${c.evidence}`)));
    for (const other of seen.values()) if (jaccardAtLeast(w, other, PACK.duplicate)) return "duplicate";
    if (spentSelect + cost(c) > limit || spentCards + c.tokens > budget) return "budget";
    selected.push(it);
    seen.set(c.id, w);
    spentSelect += cost(c);
    spentCards += c.tokens;
    return undefined;
  };
  const reasons = new Map<string, PackResult["skipped"][number]["reason"]>();
  const done = new Set<string>();
  const attempt = (it: PackInput, limit: number) => {
    if (done.has(it.card.id)) return;
    const why = tryAdd(it, limit);
    if (why) reasons.set(it.card.id, why);
    else {
      done.add(it.card.id);
      reasons.delete(it.card.id);
    }
  };
  const byUtility = (a: PackInput, b: PackInput) => b.card.utility - a.card.utility || (a.card.id < b.card.id ? -1 : 1);
  const byDensity = (a: PackInput, b: PackInput) =>
    b.card.utility / cost(b.card) - a.card.utility / cost(a.card) || byUtility(a, b);

  const top = items.filter((i) => !i.blocked && i.card.utility >= minUtility).sort(byUtility)[0];
  if (top) attempt(top, Number.POSITIVE_INFINITY);
  let ruleSpent = 0;
  for (const r of items.filter((i) => i.governing).sort(byDensity)) {
    if (ruleSpent >= reserve) break;
    const before = spentSelect;
    attempt(r, spentSelect + reserve - ruleSpent);
    ruleSpent += spentSelect - before;
  }
  // Governing rules that did not fit the reserve compete with the rest.
  for (const it of [...items].sort(byDensity)) attempt(it, budget);
  if (!selected.some((s) => s.card.kind === "test")) {
    const served = new Set(selected.filter((s) => s.card.kind !== "test").map((s) => scopePath(s.card)));
    const test = items.filter((i) => i.card.kind === "test" && served.has(i.card.scope)).sort(byUtility)[0];
    if (test) attempt(test, Number.POSITIVE_INFINITY);
  }
  selected.sort(byUtility);
  const skipped = items.flatMap((i) => {
    const reason = reasons.get(i.card.id);
    return reason ? [{ id: i.card.id, reason }] : [];
  });
  return { mode, selected: selected.map((s) => s.card.id), tokens: spentCards, skipped };
}
