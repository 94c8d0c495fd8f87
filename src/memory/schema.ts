// Memory units: the seven functional categories of CBDP and the typed records kept for each.
import { z } from "zod";

import { Evidence } from "../storage/memory-columns.js";
import { MemoryCategory } from "../vocab.js";

export const Category = z.enum([
  "COMMITMENT",
  "PERFORMANCE",
  "LEARNING",
  "FAILURE",
  "PREFERENCE",
  "REASONING",
  "BACKGROUND",
]);
export type Category = z.infer<typeof Category>;

export const Segment = z.object({
  turn: z.string(),
  role: z.string(),
  text: z.string(),
  category: Category,
  confidence: z.number().min(0).max(1),
});
export type Segment = z.infer<typeof Segment>;

export { Evidence } from "../storage/memory-columns.js";

/** A unit ready to be written: cross-referencing decides whether it is new, merged, superseding or conflicting. */
export const UnitDraft = z.object({
  category: MemoryCategory.extract(["commitment", "performance", "learning", "failure", "preference", "reasoning"]),
  text: z.string(),
  record: z.record(z.string(), z.unknown()),
  key: z.string(),
  confidence: z.number().min(0).max(1),
  evidence: z.array(Evidence),
  files: z.array(z.string()),
});
export type UnitDraft = z.infer<typeof UnitDraft>;
