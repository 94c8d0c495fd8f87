// The JSON columns of memory units and their zod schemas: storage decodes rows with them, and the memory
// domain's schemas build on them (so this module imports nothing but zod).
import { z } from "zod";

/** One quote a unit rests on: the session and turn it was said in. */
export const Evidence = z.object({ session: z.string().optional(), turn: z.string(), quote: z.string() });
export type Evidence = z.infer<typeof Evidence>;

/** Category-specific fields: scope and caveats, {metric, value, unit, context}, severity and remediation… */
export const MemoryRecord = z.record(z.string(), z.unknown());
export type MemoryRecord = z.infer<typeof MemoryRecord>;

export const MemoryEvidence = z.array(Evidence);
/** Repo paths a unit cites. */
export const MemoryFiles = z.array(z.string());
