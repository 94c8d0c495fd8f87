// Decision-aware utility (design.md §4): s = 0.34·Δact + 0.26·N + 0.28·Δout − 0.22·R − 0.08·cost,
// each component estimated from run-time signals only.
import type { Candidate, Components, UnitKind } from "./schema.js";

/**
 * The weights of the five components: the CICL paper's fixed operational score (docs/design.md §4), taken as the
 * paper gives them, not learned here.
 */
export const WEIGHTS = { actionShift: 0.34, necessity: 0.26, outcomeUplift: 0.28, risk: 0.22, cost: 0.08 } as const;

// The constants below were set by hand when the cards were built (or, where said, when they were reworked); no
// command fits them. `memcards eval cards` and `memcards eval cards-session` measure what they do (docs/benchmarks.md,
// "Memory cards").

/**
 * Rank confidence halves (`halving`) every `halfLife` places; the fused rank, used only when a file has no relative
 * score, halves every `fusedHalfLife` places. Hand-set: 3 when the cards were built, 2 for the fused rank when
 * retrieval evidence became the relative fused score (the rank then only orders files without a score).
 */
const RANK_CONFIDENCE = { halving: 0.5, halfLife: 3, fusedHalfLife: 2 } as const;

/**
 * Retrieval evidence: the file's fused score relative to the best (or its rank confidence), with a small extra for
 * being named in the task. Hand-set when retrieval evidence became the relative fused score, with the anchor hit as
 * "a small extra" (the fused score already counts the anchors channel).
 */
const RETRIEVED = { fused: 0.95, anchor: 0.05 } as const;

/**
 * Proximity of a unit to the edit by graph distance: 1 at distance 0 (the unit is on a top-ranked file), `adjacent`
 * at distance 1, `far` beyond (distance 2 is a unit related to the task by its words only). Hand-set when the cards
 * were built; no reason for the two values was recorded beyond their order.
 */
const PROXIMITY = { adjacent: 0.6, far: 0.25 } as const;

/**
 * Action shift of a test or rule: proximity × (`base` + `overlap` × its word overlap with the task, or 1 for a test
 * the session names); of a constraint or failure: its overlap, or `byProximity` × proximity when more. Hand-set when
 * the cards were built: a unit on the edited file shifts the action even when the task does not name its words.
 */
const ACT = { base: 0.6, overlap: 0.4, byProximity: 0.5 } as const;

/** Retrieval channels whose agreement on a unit counts as full agreement. Hand-set when the cards were built. */
const AGREEMENT_CHANNELS = 3;

/**
 * Necessity scales the kind's prior by `base` + `evidence` × the unit's evidence (0–1): no evidence halves the
 * prior, full evidence keeps it. Hand-set when the cards were built.
 */
const NEED = { base: 0.5, evidence: 0.5 } as const;
/** Outcome uplift scales the same way, by the unit's retrieval evidence or proximity. Hand-set likewise. */
const UPLIFT = { base: 0.5, evidence: 0.5 } as const;

/**
 * Reported outcomes: the helped rate is Laplace-smoothed, (helped + `helped`) / (total + `total`) (add-one smoothing
 * over the two outcomes, a textbook prior of one half), and replaces the kind's prior fully once `fullWeightAt`
 * outcomes are reported (hand-set: three reports outweigh a guess).
 */
const OUTCOMES = { helped: 1, total: 2, fullWeightAt: 3 } as const;

/**
 * Negative-transfer risk added per cause (held to 1): a file changed since indexing that the session did not change,
 * a conflicting unit, a unit off the top files' scope. Hand-set when the cards were built (the stale exemption for
 * the session's own edits came later); no reason for the values was recorded beyond their order.
 */
const RISK = { stale: 0.6, conflict: 0.5, offScope: 0.4 } as const;

/**
 * Cost = min(1, card tokens / `tokens` + `risk` × risk): the formula and both constants are the CICL paper's
 * (docs/design.md §4).
 */
const COST = { tokens: 1000, risk: 0.2 } as const;

const clamp = (x: number) => Math.max(0, Math.min(1, x));

/** How sure a rank makes us: 1 at rank 1, halving every few places. */
function rankConfidence(rank: number | undefined, halfLife: number = RANK_CONFIDENCE.halfLife): number {
  return rank === undefined ? 0 : Math.pow(RANK_CONFIDENCE.halving, (rank - 1) / halfLife);
}

/** Prior chance that a unit of this kind changes what the agent does next. Hand-set when the cards were built. */
const KIND_ACTION: Record<UnitKind, number> = {
  file: 1,
  symbol: 1,
  test: 0.55,
  rule: 0.6,
  constraint: 0.7,
  failure: 0.6,
};
/**
 * Prior that success depends on it (user constraints and governing rules are not optional). Hand-set when the cards
 * were built.
 */
const KIND_NEED: Record<UnitKind, number> = {
  file: 0.6,
  symbol: 0.6,
  test: 0.35,
  rule: 0.7,
  constraint: 0.85,
  failure: 0.5,
};
/**
 * Prior outcome uplift: verifying (tests) and avoiding known failures improve outcomes. Hand-set when the cards were
 * built.
 */
const KIND_OUTCOME: Record<UnitKind, number> = {
  file: 0.5,
  symbol: 0.5,
  test: 0.6,
  rule: 0.5,
  constraint: 0.55,
  failure: 0.6,
};

/** Estimates the four components and the cost of one candidate. */
export function components(c: Candidate, cardTokens: number): Components {
  const s = c.signals;
  // Retrieval rank and being named in the task are both evidence; neither alone is certainty. Both count only
  // as far as the task's retrieval can be trusted at all (a task this index barely knows gets low utilities).
  const trust = s.evidence ?? 1;
  const fused = s.relative_score ?? rankConfidence(s.fused_rank, RANK_CONFIDENCE.fusedHalfLife);
  const retrieved = trust * (RETRIEVED.fused * fused + RETRIEVED.anchor * (s.anchor_hit ? 1 : 0));
  const code = c.kind === "file" || c.kind === "symbol";
  // Tests and rules are reached from the top-ranked files: they are as trustworthy as that ranking.
  const proximity =
    (s.graph_distance === 0 ? 1 : s.graph_distance === 1 ? PROXIMITY.adjacent : PROXIMITY.far) *
    (c.kind === "test" || c.kind === "rule" ? trust : 1);
  let act: number;
  switch (c.kind) {
    case "file":
    case "symbol":
      // Measured on the localization dev sets: term overlap and channel agreement re-order files worse than
      // the fused retrieval score already does, so for code units the evidence is the retrieval itself.
      act = retrieved;
      break;
    case "test":
    case "rule":
      // A test the session ran or its failure names is the next thing to run, whatever the task's wording.
      act = proximity * (ACT.base + ACT.overlap * (c.kind === "test" && s.session_hit ? 1 : s.overlap));
      break;
    default:
      act = Math.max(s.overlap, proximity * ACT.byProximity);
  }
  act = clamp(KIND_ACTION[c.kind] * act);
  // Necessity: independent channels agreeing, an anchor, or a unit kind that is binding.
  const agreement = Math.min(1, Object.keys(s.channels).length / AGREEMENT_CHANNELS);
  const need = clamp(
    KIND_NEED[c.kind] *
      (code
        ? NEED.base + NEED.evidence * retrieved
        : s.anchor_hit
          ? 1
          : NEED.base + NEED.evidence * Math.max(agreement, s.overlap)),
  );
  // Outcome uplift: the kind's prior, moved by what the agent reported for this unit before (Laplace-smoothed).
  let out = KIND_OUTCOME[c.kind];
  if (s.outcome && s.outcome.total > 0) {
    const rate = (s.outcome.helped + OUTCOMES.helped) / (s.outcome.total + OUTCOMES.total);
    const weight = Math.min(1, s.outcome.total / OUTCOMES.fullWeightAt);
    out = (1 - weight) * out + weight * rate;
  }
  out = clamp(out * (UPLIFT.base + UPLIFT.evidence * (code ? retrieved : Math.max(retrieved, proximity))));
  // A file that changed since indexing misleads an agent that does not know it changed, not one that changed it
  // (a failure citing the file raises its rank, but says nothing of who changed it).
  const risk = clamp(
    (s.stale && !s.edited ? RISK.stale : 0) + (s.conflict ? RISK.conflict : 0) + (s.off_scope ? RISK.offScope : 0),
  );
  const cost = Math.min(1, cardTokens / COST.tokens + COST.risk * risk);
  return { actionShift: act, necessity: need, outcomeUplift: out, risk, cost };
}

export function utilityOf(k: Components): number {
  const w = WEIGHTS;
  return (
    w.actionShift * k.actionShift +
    w.necessity * k.necessity +
    w.outcomeUplift * k.outcomeUplift -
    w.risk * k.risk -
    w.cost * k.cost
  );
}
