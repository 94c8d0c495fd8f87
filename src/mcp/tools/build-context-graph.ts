// Tool `build_context_graph`: index the repository into the context graph, as a job that can be polled.
import { z } from "zod";

import { AppError } from "../../errors.js";
import type { GraphJob, JobState } from "../../graph/host.js";
import { renderBuild } from "../../graph/render.js";
import { MAX_ID_CHARS } from "../../limits.js";
import { noProject } from "../../project/root.js";
import { defineTool, type ToolRequest } from "../tool.js";

const BuildInput = z
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

const Output = z.object({
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

function jobView(job: GraphJob): z.input<typeof Output> {
  const { progress: p, result: r } = job;
  return {
    jobId: job.id,
    state: job.state,
    ...(p ? { progress: { phase: p.phase, done: p.done, total: p.total, elapsedMs: p.elapsedMs } } : {}),
    ...(job.error ? { error: { code: job.error.code, message: job.error.message } } : {}),
    ...(r
      ? {
          files: {
            scanned: r.files.scanned,
            parsed: r.files.parsed,
            unchanged: r.files.unchanged,
            deleted: r.files.deleted,
            regexFallback: r.files.regexFallback,
            overBudget: r.files.overBudget,
          },
          counts: r.counts,
          skipped: r.skipped,
          ms: r.ms.total,
          filesPerSecond: r.filesPerSecond,
        }
      : {}),
  };
}

function jobText(job: GraphJob): string {
  if (job.result) return renderBuild(job.result);
  if (job.error) return `graph build ${job.id} failed: ${job.error.code}: ${job.error.message}`;
  const p = job.progress;
  return `graph build ${job.id} is ${job.state}${p ? ` (${p.phase} ${p.done}/${p.total}, ${Math.round(p.elapsedMs / 1000)}s)` : ""}; poll with {"job_id": "${job.id}"}`;
}

/** Maps phases onto one 0–100 scale, so progress notifications always increase. */
function percent(phase: string, done: number, total: number): number {
  const frac = total > 0 ? Math.min(1, done / total) : 0;
  switch (phase) {
    case "scan":
      return 2;
    case "parse":
      return 5 + Math.floor(80 * frac);
    case "edges":
      return 86;
    case "embed":
      return 90;
    default:
      return 99;
  }
}

/** Forwards a job's progress as MCP progress notifications, when the request carries a progress token. */
function progressReporter(request: ToolRequest) {
  const token = request._meta?.progressToken;
  let last = -1;
  return (p: { phase: string; done: number; total: number }) => {
    if (token === undefined) return;
    const pct = percent(p.phase, p.done, p.total);
    if (pct <= last) return;
    last = pct;
    void request
      .sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: pct, total: 100, message: `${p.phase} ${p.done}/${p.total}` },
      })
      .catch(() => undefined);
  };
}

export const buildContextGraphTool = defineTool({
  name: "build_context_graph",
  title: "Build the context graph",
  description:
    "Index this repository into memcards' context graph (files, symbols, tests, rule documents; imports, test coverage, rule scope). Incremental: unchanged files are skipped, so calling it again is cheap. Set watch:true to keep it fresh while you edit.",
  input: BuildInput,
  output: Output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, deps, request) {
    const app = await deps.app();
    const svc = app.graph;
    if (args.jobId) {
      const job = svc.host.job(args.jobId);
      if (!job) throw new AppError("NOT_FOUND", `no graph job ${args.jobId} in this server (jobs are kept in memory)`);
      if (args.cancel) job.cancel();
      return { text: args.cancel ? `cancel requested for ${job.id}` : jobText(job), data: jobView(job) };
    }
    // No project: refused before a job or a watcher on the per-user store's folder starts.
    if (app.scope.userStore) throw noProject(app.scope.root);
    const job = svc.host.start({ lexicalOnly: args.lexicalOnly, onProgress: progressReporter(request) });
    if (args.watch) svc.watch();
    if (!args.wait) return { text: jobText(job), data: jobView(job) };
    const onAbort = () => job.cancel();
    request.signal.addEventListener("abort", onAbort, { once: true });
    try {
      await job.finished;
    } finally {
      request.signal.removeEventListener("abort", onAbort);
    }
    if (job.state === "failed") throw job.error ?? new AppError("INTERNAL", `graph build ${job.id} failed`);
    const watching = args.watch
      ? `\n${svc.watcher()?.active ? "watching for changes" : "another memcards process is already watching this project"}`
      : "";
    return { text: jobText(job) + watching, data: jobView(job) };
  },
});
