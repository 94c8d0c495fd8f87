// Tool `build_context_graph`: index the repository into the context graph, as a job that can be polled.
import { z } from "zod";

import type { JobState } from "../../graph/host.js";
import { MAX_ID_CHARS } from "../../limits.js";
import { defineTool } from "../tool.js";

export const BuildInput = z
  .object({
    wait: z
      .boolean()
      .default(true)
      .describe(
        "true: return when indexed (progress notifications with a progress token); false: return a job_id at once",
      ),
    watch: z.boolean().default(false).describe("keep the graph fresh as files change, for as long as this server runs"),
    lexicalOnly: z.boolean().default(false).describe("skip vectors (lexical index and graph only)"),
    jobId: z
      .string()
      .max(MAX_ID_CHARS)
      .optional()
      .describe("poll a job started with wait:false (other fields ignored)"),
    cancel: z.boolean().default(false).describe("with job_id: cancel that job"),
  })
  .strict();

const counts = z.record(z.string(), z.number());

export const Output = z.object({
  jobId: z.string(),
  state: z.enum(["running", "done", "failed", "cancelled"]) satisfies z.ZodType<JobState>,
  progress: z.object({ phase: z.string(), done: z.number(), total: z.number(), elapsedMs: z.number() }).optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  // When the job is done:
  files: z
    .object({
      scanned: z.number(),
      parsed: z.number(),
      unchanged: z.number(),
      deleted: z.number(),
      regexFallback: z.number(),
      /** Files over the per-file parse budget, indexed lexically. */
      overBudget: z.number(),
    })
    .optional(),
  counts: z.object({ nodes: counts, edges: counts }).optional(),
  /** Files left out, per reason. */
  skipped: counts.optional(),
  ms: z.number().optional(),
  filesPerSecond: z.number().optional(),
});

export const buildContextGraphTool = defineTool({
  name: "build_context_graph",
  title: "Build the context graph",
  description:
    "Index this repository into memcards' context graph (files, symbols, tests, rule documents; imports, test coverage, rule scope). Incremental: unchanged files are skipped, so calling again is cheap. Set watch:true to keep it fresh while you edit.",
  input: BuildInput,
  output: Output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  load: async () => (await import("./build-context-graph.run.js")).run,
});
