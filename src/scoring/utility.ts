// Decision-aware utility (design.md §4): s = 0.34·Δact + 0.26·N + 0.28·Δout − 0.22·R − 0.08·cost,
// each component estimated from run-time signals only.
import type { Candidate, Components, UnitKind } from "./schema.js";

export const WEIGHTS = { action_shift: 0.34, necessity: 0.26, outcome_uplift: 0.28, risk: 0.22, cost: 0.08 } as const;

const clamp = (x: number) => Math.max(0, Math.min(1, x));

/** How sure a rank makes us: 1 at rank 1, halving every few places. */
function rankConfidence(rank: number | undefined, halfLife = 3): number {
  return rank === undefined ? 0 : Math.pow(0.5, (rank - 1) / halfLife);
}

/** Prior chance that a unit of this kind changes what the agent does next. */
const KIND_ACTION: Record<UnitKind, number> = {
  file: 1,
  symbol: 1,
  test: 0.55,
  rule: 0.6,
  constraint: 0.7,
  failure: 0.6,
};
/** Prior that success depends on it (user constraints and governing rules are not optional). */
const KIND_NEED: Record<UnitKind, number> = {
  file: 0.6,
  symbol: 0.6,
  test: 0.35,
  rule: 0.7,
  constraint: 0.85,
  failure: 0.5,
};
/** Prior outcome uplift: verifying (tests) and avoiding known failures improve outcomes. */
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
  const fused = s.relative_score ?? rankConfidence(s.fused_rank, 2);
  const retrieved = trust * (0.95 * fused + 0.05 * (s.anchor_hit ? 1 : 0));
  const code = c.kind === "file" || c.kind === "symbol";
  // Tests and rules are reached from the top-ranked files: they are as trustworthy as that ranking.
  const proximity =
    (s.graph_distance === 0 ? 1 : s.graph_distance === 1 ? 0.6 : 0.25) *
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
      act = proximity * (0.6 + 0.4 * (c.kind === "test" && s.session_hit ? 1 : s.overlap));
      break;
    default:
      act = Math.max(s.overlap, proximity * 0.5);
  }
  act = clamp(KIND_ACTION[c.kind] * act);
  // Necessity: independent channels agreeing, an anchor, or a unit kind that is binding.
  const agreement = Math.min(1, Object.keys(s.channels).length / 3);
  const need = clamp(
    KIND_NEED[c.kind] * (code ? 0.5 + 0.5 * retrieved : s.anchor_hit ? 1 : 0.5 + 0.5 * Math.max(agreement, s.overlap)),
  );
  // Outcome uplift: the kind's prior, moved by what the agent reported for this unit before (Laplace-smoothed).
  let out = KIND_OUTCOME[c.kind];
  if (s.outcome && s.outcome.total > 0) {
    const rate = (s.outcome.helped + 1) / (s.outcome.total + 2);
    const weight = Math.min(1, s.outcome.total / 3);
    out = (1 - weight) * out + weight * rate;
  }
  out = clamp(out * (0.5 + 0.5 * (code ? retrieved : Math.max(retrieved, proximity))));
  // A file that changed since indexing misleads an agent that does not know it changed, not one that changed it
  // (a failure citing the file raises its rank, but says nothing of who changed it).
  const risk = clamp((s.stale && !s.edited ? 0.6 : 0) + (s.conflict ? 0.5 : 0) + (s.off_scope ? 0.4 : 0));
  const cost = Math.min(1, cardTokens / 1000 + 0.2 * risk);
  return { action_shift: act, necessity: need, outcome_uplift: out, risk, cost };
}

export function utilityOf(k: Components): number {
  const w = WEIGHTS;
  return (
    w.action_shift * k.action_shift +
    w.necessity * k.necessity +
    w.outcome_uplift * k.outcome_uplift -
    w.risk * k.risk -
    w.cost * k.cost
  );
}
