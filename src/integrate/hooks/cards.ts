// The optional card hooks (off by default; UserPromptSubmit and PreToolUse): the top cards for a prompt, or for the
// file about to be edited.
import { relative } from "node:path";

import { hasGraph } from "../../graph/presence.js";
import { count } from "../../text/plural.js";
import { CARD_HOOK_BUDGET, type HookCall, type HookResult } from "./input.js";
import { cap } from "./output.js";

/** Injects the cards for `task` under the heading "cards for `what`"; nothing without a task or a graph. */
export async function injectCards(call: HookCall, task: string, what: () => string): Promise<HookResult> {
  const { app, sessionId } = call;
  const file = call.input.tool_input?.file_path;
  if (!task.trim() || !hasGraph(app.db)) return { stdout: "", log: "no task or no graph" };
  const [{ getMemoryCards, renderCards }, { createRanker }] = await Promise.all([
    import("../../cards/service.js"),
    import("../../retrieval/rank.js"),
  ]);
  // A hook ranks with the index's own channels (FTS, symbols, vectors, anchors) and never reads every file of the
  // repository for a whole-file BM25 index, as the server does once; the resident worker keeps its ranker warm.
  const { embedder, vectorsEnabled } = app.embedding;
  const ranker = call.ranker?.() ?? createRanker(app.db, { embedder, vectorsEnabled });
  const r = await getMemoryCards(
    { ...app.scope, ranker },
    {
      task,
      budgetTokens: CARD_HOOK_BUDGET,
      mode: "pre_budget",
      ...(typeof file === "string" ? { files: [relative(app.location.root, file)] } : {}),
      ...(sessionId ? { sessionId } : {}),
    },
  );
  if (r.cards.length === 0) return { stdout: "", log: "no card" };
  const out = cap(`# memcards: cards for ${what()}\n\n${renderCards(r)}`, 4000);
  return { stdout: out, log: `injected ${count(r.cards.length, "card")}, ${out.length} chars` };
}
