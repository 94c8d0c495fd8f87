// Shapes of cards and of the candidates they are made from; zod schemas are the single source of these types.
import { z } from "zod";

export const UnitKind = z.enum(["file", "symbol", "test", "rule", "constraint", "failure"]);
export type UnitKind = z.infer<typeof UnitKind>;

/** What the run time knows about a candidate: every utility component is estimated from these only. */
export const Signals = z.object({
  /** 1-based rank in the fused retrieval list (files and their symbols), if it was retrieved. */
  fused_rank: z.number().int().positive().optional(),
  /** Fused retrieval score relative to the best candidate's (1 for the best), if retrieved. */
  relative_score: z.number().min(0).max(1).optional(),
  /** 1-based rank per retrieval channel that found it. */
  channels: z.record(z.string(), z.number().int()),
  /** Named in the task: its path, or an identifier it defines. */
  anchor_hit: z.boolean(),
  /** Hops from the nearest anchored or top-ranked file (0: itself). */
  graph_distance: z.number().int().min(0),
  /** Share of the task's terms that the unit's text contains, 0–1. */
  overlap: z.number().min(0).max(1),
  stale: z.boolean(),
  conflict: z.boolean(),
  off_scope: z.boolean(),
  outcome: z.object({ helped: z.number().int(), total: z.number().int() }).optional(),
  /**
   * How much the task's retrieval can be trusted at all (0–1, calibrated; see calibration.ts): low when the
   * index knows few of the task's terms. Absent: full trust.
   */
  evidence: z.number().min(0).max(1).optional(),
  /** The session touched the unit or one of its failures cites it: run-time evidence no retrieval has. */
  session_hit: z.boolean().optional(),
  /** The session changed the unit's file itself: it knows the file changed, so staleness is no risk to it. */
  edited: z.boolean().optional(),
});
export type Signals = z.infer<typeof Signals>;

export const Candidate = z.object({
  /** Stable identity: the graph node key or a session unit key. */
  key: z.string(),
  kind: UnitKind,
  path: z.string().optional(),
  name: z.string().optional(),
  lines: z.tuple([z.number().int(), z.number().int()]).optional(),
  /** The raw unit's text (a symbol's signature, a rule's text, a quote) and its size in tokens. */
  text: z.string(),
  raw_tokens: z.number().int().nonnegative(),
  signals: Signals,
  /** Kind-specific facts for the card: the file a test covers, the paths a rule governs, a turn id. */
  about: z.record(z.string(), z.string()).default({}),
});
export type Candidate = z.infer<typeof Candidate>;

export const Components = z.object({
  actionShift: z.number(),
  necessity: z.number(),
  outcomeUplift: z.number(),
  risk: z.number(),
  cost: z.number(),
});
export type Components = z.infer<typeof Components>;

export const Card = z.object({
  id: z.string(),
  kind: UnitKind,
  trigger: z.string(),
  evidence: z.string(),
  action_hint: z.string(),
  failure_if_ignored: z.string(),
  scope: z.string(),
  utility: z.number(),
  components: Components,
  tokens: z.number().int(),
  raw_tokens: z.number().int(),
  source: z.string(),
  stale: z.boolean(),
});
export type Card = z.infer<typeof Card>;

export const PackMode = z.enum(["post_selection", "pre_budget"]);
export type PackMode = z.infer<typeof PackMode>;

/** The structural audit of a set of cards: its one definition (get_memory_cards' verbose output uses it). */
export const CardAudit = z.object({
  cards: z.number(),
  /** Share of cards with all five fields non-empty. */
  fieldCompleteness: z.number(),
  /** Share whose action hint starts with a next-action verb. */
  actionHints: z.number(),
  /** Share free of placeholder text. */
  noPlaceholders: z.number(),
  /** Card tokens / raw unit tokens, summed over the cards. */
  tokenRatio: z.number(),
  problems: z.array(z.string()),
});
export type CardAudit = z.infer<typeof CardAudit>;
