// The arguments of get_memory_cards and record_outcome, camelCase (the MCP edge publishes them in snake_case). A
// module of schemas only: listing the tools loads this, never the ranking behind them.
import { z } from "zod";

import { MAX_ID_CHARS, MAX_IDS, MAX_PATH_CHARS } from "../limits.js";
import { PackMode, UnitKind } from "../scoring/schema.js";

export const CardsInput = z
  .object({
    task: z.string().max(1_000_000).describe("the issue or instruction, stack traces included"),
    files: z
      .array(z.string().min(1).max(MAX_PATH_CHARS))
      .max(50)
      .optional()
      .describe("repo-relative paths you are looking at"),
    budgetTokens: z.number().int().min(50).max(20_000).default(1200).describe("token budget for all cards"),
    mode: PackMode.default("post_selection").describe(
      "post_selection: choose on raw unit cost, then compress; pre_budget: compress first so more fit",
    ),
    kinds: z.array(UnitKind).max(UnitKind.options.length).optional().describe("only these card kinds"),
    sessionId: z
      .string()
      .min(1)
      .max(MAX_ID_CHARS)
      .optional()
      .describe("include this session's user constraints and failures"),
    verbose: z.boolean().default(false).describe("include utility components, the audit and the ranking"),
    judge: z
      .boolean()
      .default(true)
      .describe(
        "let the client's model judge the top candidates when the client offers sampling (bounded in count and time)",
      ),
  })
  .strict();
export type CardsInput = z.input<typeof CardsInput>;

export const OutcomeInput = z
  .object({
    helped: z.array(z.string().max(MAX_ID_CHARS)).max(MAX_IDS).default([]).describe("ids of cards that helped"),
    notHelpful: z.array(z.string().max(MAX_ID_CHARS)).max(MAX_IDS).default([]).describe("ids of cards that did not"),
    editedFiles: z
      .array(z.string().max(MAX_PATH_CHARS))
      .max(100)
      .default([])
      .describe("repo-relative paths you finally edited"),
    sessionId: z.string().max(MAX_ID_CHARS).optional(),
  })
  .strict();
export type OutcomeInput = z.input<typeof OutcomeInput>;
