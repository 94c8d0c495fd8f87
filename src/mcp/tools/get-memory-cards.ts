// Tool `get_memory_cards`: decision-aware cards before an edit.
import { z } from "zod";

import { CardsInput } from "../../cards/input.js";
import { Card, CardAudit, Components, PackMode } from "../../scoring/schema.js";
import { defineTool } from "../tool.js";

export const Output = z.object({
  cards: z.array(Card.pick({ id: true, kind: true, scope: true, utility: true })),
  tokens: z.number(),
  budget: z.number(),
  mode: PackMode,
  route: z.enum(["judge", "deterministic"]),
  judged: z.number(),
  /** How much the task's retrieval can be trusted (0–1, calibrated); below 0.5 the pack has no confident card. */
  confidence: z.number(),
  /** "complete", or "partial, N of M files" while a build of the index has not finished. */
  index: z.string(),
  // With verbose only:
  selected: z.record(PackMode, z.array(z.string())).optional(),
  audit: CardAudit.optional(),
  ranking: z.array(z.object({ path: z.string(), channels: z.record(z.string(), z.number()) })).optional(),
  components: z.array(Components.extend({ id: z.string() })).optional(),
  skipped: z.array(z.object({ id: z.string(), reason: z.string() })).optional(),
});

export const getMemoryCardsTool = defineTool({
  name: "get_memory_cards",
  title: "Memory cards for the next edit",
  description:
    'Before editing, pass the task (issue text, instruction, stack trace) and optionally the files you are looking at. Returns a few typed cards — the file and symbol to edit, the test covering it, the rule governing the path, the session\'s user constraints and past failures — ranked by their expected effect on your next action and packed under budget_tokens. Needs the context graph (build_context_graph). Report what helped with record_outcome. Example: {"task": "TypeError in parse_args when --verbose is set", "files": ["cli/args.py"]}.',
  input: CardsInput,
  output: Output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  load: async () => (await import("./get-memory-cards.run.js")).run,
});
