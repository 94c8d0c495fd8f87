// Memory units: segments of a conversation in the CBDP categories (vocab.ts) and the units drafted from them.
import { z } from "zod";

import { Evidence } from "../storage/memory-columns.js";
import { MemoryCategory, UnitCategory } from "../vocab.js";

export const Segment = z.object({
  turn: z.string(),
  role: z.string(),
  text: z.string(),
  category: MemoryCategory,
  confidence: z.number().min(0).max(1),
});
export type Segment = z.infer<typeof Segment>;

export { Evidence } from "../storage/memory-columns.js";

/** A unit ready to be written: cross-referencing decides whether it is new, merged, superseding or conflicting. */
export const UnitDraft = z.object({
  category: UnitCategory,
  text: z.string(),
  record: z.record(z.string(), z.unknown()),
  key: z.string(),
  confidence: z.number().min(0).max(1),
  evidence: z.array(Evidence),
  files: z.array(z.string()),
});
export type UnitDraft = z.infer<typeof UnitDraft>;
