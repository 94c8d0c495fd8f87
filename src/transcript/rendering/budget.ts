// The default summary budget: what the session holds (files edited, failures, constraints, its size), within a cap.
import { z } from "zod";

import type { Sections } from "../../conversation/schema.js";
import { countTokens } from "../../text/tokens.js";

/**
 * Per-line token costs are the mean tokens of one line of each section rendered in full, measured on the nine
 * development transcripts by `node scripts/budget-constants.mjs <dir>` (after `node scripts/build.mjs`); `base` is the mean cost
 * of the section headers, intent, current state and next steps. Re-run it and copy its output when rendering changes.
 */
export const BUDGET_CONSTANTS = {
  base: 345,
  per_file: 37,
  per_failure: 44,
  per_constraint: 35,
  per_line: 31,
  /** Failures and decision/completed lines counted at most: past these, lines are ranked, not all kept. */
  max_failures: 40,
  max_lines: 40,
  /**
   * The proportional floor: one summary token per this many tokens summarized. It equals `min_ratio`: a summary
   * takes only what its lines cost, so the floor never pads one, and a session holding more lines than its items'
   * measured mean cost suggests (long constraints, many decisions) keeps them up to 10:1.
   */
  share: 10,
  floor: 500,
  /** A short session (under ceiling_floor × min_ratio tokens) may still take this much for what it holds. */
  ceiling_floor: 1_000,
  cap: 12_000,
  /** The least compression the default allows on a long session. */
  min_ratio: 10,
} as const;

export const BudgetChoice = z.object({
  tokens: z.number(),
  chosen_by: z.enum(["default", "caller"]),
  basis: z.object({
    tokens_summarized: z.number(),
    files: z.number(),
    failures: z.number(),
    constraints: z.number(),
    lines: z.number(),
    /** Tokens each line's turn id costs beyond a short id like `t42` (client ids such as UUIDs are longer). */
    id_extra: z.number(),
    /** What the session's items cost at the measured per-line costs. */
    need: z.number(),
    /** The proportional floor: tokens_summarized / share. */
    proportional: z.number(),
    /** The most the default may take: tokens_summarized / min_ratio, within ceiling_floor and the cap. */
    ceiling: z.number(),
  }),
});
export type BudgetChoice = z.infer<typeof BudgetChoice>;

/**
 * The budget: the caller's when given; else the larger of what the session's items cost and its proportional share,
 * no less than the floor and no more than the ceiling (the cap, and never under `min_ratio`:1 compression).
 */
export function chooseBudget(s: Sections, tokensSummarized: number, caller?: number): BudgetChoice {
  const c = BUDGET_CONSTANTS;
  const files = Object.keys(s.files).length;
  const failures = s.failures.length;
  const constraints = s.constraints.length;
  const lines = s.decisions.length + s.completed.length + s.blockers.length;
  const id = Object.values(s.files)[0]?.[0]?.turn ?? s.constraints[0]?.turn ?? s.failures[0]?.turn ?? "t42";
  const idExtra = Math.max(0, countTokens(`(${id})`) - countTokens("(t42)"));
  const counted = files + Math.min(failures, c.max_failures) + constraints + Math.min(lines, c.max_lines);
  const need = Math.round(
    c.base +
      c.per_file * files +
      c.per_failure * Math.min(failures, c.max_failures) +
      c.per_constraint * constraints +
      c.per_line * Math.min(lines, c.max_lines) +
      idExtra * counted,
  );
  const proportional = Math.round(tokensSummarized / c.share);
  const ceiling = Math.max(c.ceiling_floor, Math.min(c.cap, Math.round(tokensSummarized / c.min_ratio)));
  const basis = {
    tokens_summarized: tokensSummarized,
    files,
    failures,
    constraints,
    lines,
    id_extra: idExtra,
    need,
    proportional,
    ceiling,
  };
  if (caller !== undefined) return { tokens: caller, chosen_by: "caller", basis };
  const tokens = Math.min(ceiling, Math.max(c.floor, need, proportional));
  return { tokens, chosen_by: "default", basis };
}
