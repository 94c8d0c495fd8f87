// Shared vocabularies: one zod enum each, used by storage, graph, memory and cards alike.
import { z } from "zod";

/** Node types of the instance context graph (design.md §3). */
export const NodeType = z.enum(["file", "symbol", "test", "rule", "memory", "failure", "strategy"]);
export type NodeType = z.infer<typeof NodeType>;

/** Edge types of the instance context graph (design.md §3). */
export const EdgeType = z.enum([
  "contains",
  "imports",
  "test_covers",
  "similar",
  "conflicts",
  "precondition",
  "task_memory",
]);
export type EdgeType = z.infer<typeof EdgeType>;

/** Functional categories of conversation (design.md §2, CBDP): sentences are segmented into these. */
export const MemoryCategory = z.enum([
  "commitment",
  "performance",
  "learning",
  "failure",
  "preference",
  "reasoning",
  "background",
]);
export type MemoryCategory = z.infer<typeof MemoryCategory>;

/**
 * The categories memory units are stored and shown under (background is never kept as a unit): the sentence
 * categories, plus `change` (an edit or a commit read from the session's events) and `dead_end` (an approach
 * tried and abandoned, kept so it is not tried again, never recalled as a fact).
 */
export const UnitCategory = z.enum([...MemoryCategory.exclude(["background"]).options, "change", "dead_end"]);
export type UnitCategory = z.infer<typeof UnitCategory>;

/** Other names callers may give a unit category: a decision is kept as reasoning, a rule as a commitment. */
export const CATEGORY_ALIASES = { decision: "reasoning", rule: "commitment" } as const satisfies Record<
  string,
  UnitCategory
>;
type CategoryAlias = keyof typeof CATEGORY_ALIASES;

/** A unit category as every input accepts it (tools, commands, imports): a category or one of its aliases. */
export const CategoryName = z.enum([...UnitCategory.options, ...(Object.keys(CATEGORY_ALIASES) as CategoryAlias[])]);
export type CategoryName = z.infer<typeof CategoryName>;

/** The category a name is stored under: the name itself, or the category its alias stands for. */
export function canonicalCategory(name: CategoryName): UnitCategory {
  return name in CATEGORY_ALIASES ? CATEGORY_ALIASES[name as CategoryAlias] : (name as UnitCategory);
}

/** Storage tiers of memory units. */
export const Tier = z.enum(["warm", "cold", "dropped"]);
export type Tier = z.infer<typeof Tier>;

/** Failure taxonomy (design.md §2), with the code-specific additions. */
export const FailureKind = z.enum([
  "capability_gap",
  "scope_violation",
  "resource_constraint",
  "communication_failure",
  "adversarial_prompt",
  "data_quality_issue",
  "test_failure",
  "build_error",
  "runtime_error",
]);
export type FailureKind = z.infer<typeof FailureKind>;

/** How the active embedder came to be: a real model, or the built-in offline fallback. */
export const EmbedderMode = z.enum(["model", "offline"]);
export type EmbedderMode = z.infer<typeof EmbedderMode>;
