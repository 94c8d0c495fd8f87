// The run of tool `build_context_graph` (its schemas are in build-context-graph.ts), loaded on its first call.
import type { z } from "zod";

import { AppError } from "../../errors.js";
import type { GraphJob } from "../../graph/host.js";
import { renderBuild } from "../../graph/render.js";
import { noProject } from "../../project/root.js";
import type { ToolRequest, ToolRun } from "../tool.js";
import type { BuildInput, Output } from "./build-context-graph.js";

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

export const run: ToolRun<typeof BuildInput, typeof Output> = async (args, deps, request) => {
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
};
