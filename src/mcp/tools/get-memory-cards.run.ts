// The run of tool `get_memory_cards` (its schemas are in get-memory-cards.ts), loaded on its first call.
import type { CardsInput } from "../../cards/input.js";
import { getMemoryCards, indexText, JUDGE_TIMEOUT_MS, renderCards } from "../../cards/service.js";
import type { ToolRun } from "../tool.js";
import type { Output } from "./get-memory-cards.js";

/** Tokens the client's model may answer one judge request with. */
const JUDGE_MAX_TOKENS = 400;

export const run: ToolRun<typeof CardsInput, typeof Output> = async (args, deps) => {
  const app = await deps.app();
  const model = deps.clientModel();
  const judge = model
    ? {
        judge: (prompt: string, signal: AbortSignal) =>
          model(prompt, { maxTokens: JUDGE_MAX_TOKENS, timeoutMs: JUDGE_TIMEOUT_MS, signal }),
      }
    : {};
  const r = await getMemoryCards({ ...app.scope, ranker: app.ranker, ...judge }, args);
  return {
    text: renderCards(r),
    data: {
      cards: r.cards.map((c) => ({ id: c.id, kind: c.kind, scope: c.scope, utility: c.utility })),
      tokens: r.tokens,
      budget: r.budget,
      mode: r.mode,
      route: r.route,
      judged: r.judged,
      confidence: r.confidence,
      index: indexText(r.index),
      ...(args.verbose
        ? {
            selected: r.selected,
            audit: r.audit,
            ranking: r.ranking,
            components: r.cards.map((c) => ({ id: c.id, ...c.components })),
            skipped: r.skipped,
          }
        : {}),
    },
  };
};
