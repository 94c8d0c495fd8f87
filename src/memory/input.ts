// The arguments of record_memory, search_memory, recall and forget, camelCase (the MCP edge publishes them in
// snake_case). A module of schemas only: listing the tools loads this, never the memory behind them.
import { z } from "zod";

import { MAX_ID_CHARS, MAX_PATH_CHARS } from "../limits.js";
import { CategoryName } from "../vocab.js";

export const RecordInput = z
  .object({
    category: CategoryName.describe("a decision is kept as reasoning, a rule as a commitment"),
    text: z.string().min(1).max(4000).describe("the unit, in a sentence or two; for a metric: `name: value unit`"),
    files: z.array(z.string().max(MAX_PATH_CHARS)).max(20).optional().describe("repo-relative paths it concerns"),
    scope: z.string().max(200).optional().describe("where it applies (a path, a package, 'project')"),
    confidence: z.number().min(0).max(1).default(0.9),
    sessionId: z.string().max(MAX_ID_CHARS).optional(),
  })
  .strict();
export type RecordInput = z.input<typeof RecordInput>;

export const SearchInput = z
  .object({
    query: z.string().min(1).max(4000),
    category: CategoryName.optional(),
    sessionId: z.string().max(MAX_ID_CHARS).optional(),
    file: z.string().max(MAX_PATH_CHARS).optional().describe("only units citing this path"),
    tier: z.enum(["warm", "cold", "any"]).default("any"),
    includeInactive: z
      .boolean()
      .default(false)
      .describe("also superseded units and units in conflict (never units waiting for review)"),
    includeRaw: z.boolean().default(false),
    // The most tokens the hits (units, their evidence windows and raw turns) may take together.
    budgetTokens: z.number().int().min(100).optional(),
    since: z.string().max(40).optional().describe("ISO time: only units updated since"),
    until: z.string().max(40).optional(),
    limit: z.number().int().min(1).max(50).default(10),
  })
  .strict();
export type SearchInput = z.input<typeof SearchInput>;

export const RecallInput = z.object({ budgetTokens: z.number().int().min(100).max(10_000).default(1500) }).strict();

export const ForgetInput = z
  .object({
    id: z.number().int().positive().optional(),
    sessionId: z.string().max(MAX_ID_CHARS).optional(),
    file: z.string().max(MAX_PATH_CHARS).optional(),
    all: z
      .boolean()
      .default(false)
      .describe("everything memcards remembers for this project (memories, raw turns, summaries, served cards)"),
  })
  .strict();
export type ForgetInput = z.input<typeof ForgetInput>;
