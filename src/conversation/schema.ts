// Shapes shared by the jobs that read a conversation (transcript, memory, session, cards): its turns and the
// anchored summary's sections. zod schemas are the single source of these types.
import { z } from "zod";

export const Role = z.enum(["user", "assistant", "tool", "system"]);
export type Role = z.infer<typeof Role>;

export const ToolCall = z.object({
  id: z.string().optional(),
  name: z.string(),
  /** Tool input as the client recorded it; a bare command or patch is kept under `command` / `patch`. */
  input: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const ToolResult = z.object({
  call_id: z.string().optional(),
  name: z.string().optional(),
  output: z.string(),
  is_error: z.boolean(),
});
export type ToolResult = z.infer<typeof ToolResult>;

/**
 * `message`: conversation content, summarized. `meta`: system prompts, injected instructions, skill texts,
 * client bookkeeping — kept for the record, never summarized. `compact_summary`: a client's own earlier compaction.
 */
export const TurnKind = z.enum(["message", "meta", "compact_summary"]);
export type TurnKind = z.infer<typeof TurnKind>;

export const Turn = z.object({
  /** Stable across re-reads of a growing transcript: the client's own id where it has one, else the position. */
  id: z.string(),
  index: z.number().int().nonnegative(),
  role: Role,
  kind: TurnKind,
  text: z.string(),
  tool_calls: z.array(ToolCall),
  tool_results: z.array(ToolResult),
  timestamp: z.string().optional(),
  /** A subagent's turn (Claude Code sidechains): its "user" is the parent agent, not the person. */
  sidechain: z.boolean().optional(),
});
export type Turn = z.infer<typeof Turn>;

/** One line of a summary section, with the turn it comes from. */
export const Fact = z.object({ text: z.string(), turn: z.string() });
export type Fact = z.infer<typeof Fact>;

export const FileOp = z.object({ op: z.string(), turn: z.string() });
export type FileOp = z.infer<typeof FileOp>;

export const Failure = z.object({
  /** Normalized error text: numbers, paths and hex removed; the merge key. */
  signature: z.string(),
  text: z.string(),
  category: z.enum(["test failure", "build error", "runtime error", "tool error", "user-reported"]),
  turn: z.string(),
  last_turn: z.string(),
  count: z.number().int(),
  remediation: z.string().optional(),
  /** The turn where a later event settled it (the same command, test or file ran clean); absent while open. */
  resolved: z.string().optional(),
  /** Still open at the end: seen in the last phase (after the last request), not settled, no edit since. */
  open: z.boolean().optional(),
});
export type Failure = z.infer<typeof Failure>;

export const Metric = z.object({
  value: z.string(),
  turn: z.string(),
  history: z.array(z.object({ value: z.string(), turn: z.string() })),
});
export type Metric = z.infer<typeof Metric>;

/** The structured summary: merged across compressions, rendered to markdown under a budget. */
export const Sections = z.object({
  intent: z.array(Fact),
  files: z.record(z.string(), z.array(FileOp)),
  decisions: z.array(Fact),
  state: z.array(Fact),
  blockers: z.array(Fact),
  next: z.array(Fact),
  constraints: z.array(Fact),
  completed: z.array(Fact),
  failures: z.array(Failure),
  metrics: z.record(z.string(), Metric),
});
export type Sections = z.infer<typeof Sections>;
