// The optional judge route (CICL's eight-field schema): the client's model, through MCP sampling, estimates
// the components for the top candidates; its answers are blended with the deterministic ones by confidence.
import { z } from "zod";

import type { Candidate, Card, Components } from "./schema.js";

export const JudgeAnswer = z.object({
  no_context_action: z.string(),
  with_context_action: z.string(),
  action_shift: z.number().min(0).max(1),
  necessity: z.number().min(0).max(1),
  expected_outcome_uplift: z.number().min(0).max(1),
  negative_transfer_risk: z.number().min(0).max(1),
  reason: z.string(),
  confidence: z.number().min(0).max(1),
});
export type JudgeAnswer = z.infer<typeof JudgeAnswer>;

/** Asks the client's model one question; resolves to its text answer. */
export type JudgeFn = (prompt: string, signal: AbortSignal) => Promise<string>;

/** The prompt for one candidate: the task, the card, and the exact JSON to answer with. */
export function judgePrompt(task: string, c: Candidate, card: Card): string {
  return [
    "You are deciding whether a piece of context changes a coding agent's next action.",
    `Task:\n${task.slice(0, 2000)}`,
    `Context (${c.kind}${c.path ? ` ${c.path}` : ""}):\n- when: ${card.trigger}\n- evidence: ${card.evidence}\n- do: ${card.action_hint}`,
    "Answer with one JSON object and nothing else, with these fields:",
    '{"no_context_action": string, "with_context_action": string, "action_shift": 0-1, "necessity": 0-1, "expected_outcome_uplift": 0-1, "negative_transfer_risk": 0-1, "reason": string, "confidence": 0-1}',
  ].join("\n\n");
}

/** Reads the model's answer: the first JSON object in the text, validated. */
export function parseJudgeAnswer(text: string): JudgeAnswer | undefined {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  try {
    const r = JudgeAnswer.safeParse(JSON.parse(text.slice(start, end + 1)));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** Blends judged components into deterministic ones, weighted by the judge's confidence; cost is kept. */
export function blendComponents(det: Components, a: JudgeAnswer): Components {
  const w = a.confidence;
  const mix = (x: number, y: number) => (1 - w) * x + w * y;
  return {
    actionShift: mix(det.actionShift, a.action_shift),
    necessity: mix(det.necessity, a.necessity),
    outcomeUplift: mix(det.outcomeUplift, a.expected_outcome_uplift),
    risk: mix(det.risk, a.negative_transfer_risk),
    cost: det.cost,
  };
}
