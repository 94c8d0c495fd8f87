// Shapes of a parsed transcript, of inline messages and of probes: zod schemas are the single source of these types.
import { z } from "zod";

import { Turn } from "../conversation/schema.js";

export const TranscriptFormat = z.enum([
  "claude-code-jsonl",
  "codex-rollout-jsonl",
  "codex-export-md",
  "swe-agent-traj",
  "specstory-md",
  "aider-md",
  "messages-json",
  "cline-md",
  "blackbox-md",
  "antigravity-jsonl",
  "replit-agent-jsonl",
  "markdown-chat",
]);
export type TranscriptFormat = z.infer<typeof TranscriptFormat>;

export const Transcript = z.object({
  format: TranscriptFormat,
  turns: z.array(Turn),
  /** Lines or records that could not be read, by reason; never fatal. */
  skipped: z.number().int().nonnegative(),
  skip_reasons: z.record(z.string(), z.number().int()),
  /** Records deliberately left out (demonstrations, duplicates, client bookkeeping), by reason. */
  ignored: z.record(z.string(), z.number().int()),
  /** The last line was cut off mid-record: the transcript is still being written. */
  partial_tail: z.boolean(),
  title: z.string().optional(),
  session_id: z.string().optional(),
  cwd: z.string().optional(),
});
export type Transcript = z.infer<typeof Transcript>;

export const Message = z.object({
  role: z.enum(["user", "assistant", "tool", "system"]),
  content: z.string().max(2_000_000),
});
export type Message = z.infer<typeof Message>;

export const ProbeType = z.enum(["artifact", "error", "decision", "constraint", "next", "state"]);
export type ProbeType = z.infer<typeof ProbeType>;

export const Probe = z.object({
  type: ProbeType,
  /** Every string must appear (normalized) in the summary; an artifact probe needs the path and its operation. */
  expect: z.array(z.string()).min(1),
  turn: z.string(),
  /** The fact re-inserted when the probe fails. */
  fact: z.string(),
});
export type Probe = z.infer<typeof Probe>;
