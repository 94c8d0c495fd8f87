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

/** Functional categories of conversation segments (design.md §2, CBDP). */
export const MemoryCategory = z.enum([
  "commitment",
  "performance",
  "learning",
  "failure",
  "preference",
  "reasoning",
  "background",
  "decision",
  "rule",
]);
export type MemoryCategory = z.infer<typeof MemoryCategory>;

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
