// A graph node in brief, as neighborhoods and graph_neighbors show it: a schema only, light to load.
import { z } from "zod";

/** A node as a neighborhood lists it. */
export const NodeBrief = z.object({
  id: z.number(),
  type: z.string(),
  path: z.string().nullable(),
  name: z.string().nullable(),
  kind: z.string().nullable(),
  startLine: z.number().nullable(),
  endLine: z.number().nullable(),
  summary: z.string().nullable(),
  stale: z.boolean().optional(),
});
export type NodeBrief = z.infer<typeof NodeBrief>;
