// Tools `build_context_graph` and `graph_neighbors`, and resource `memcards://graph/stats`.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

import { AppError } from "../../errors.js";
import { assertIndexed } from "../../graph/build.js";
import type { GraphJob } from "../../graph/host.js";
import { neighbourhood } from "../../graph/neighbors.js";
import { renderBuild, renderNeighbourhood } from "../../graph/render.js";
import { graphService } from "../../graph/service.js";
import { graphStats } from "../../graph/stats.js";
import { MAX_ID_CHARS, MAX_PATH_CHARS } from "../../limits.js";
import type { ToolDeps } from "../context.js";
import { guard, ok } from "../result.js";

const BuildInput = z
  .object({
    wait: z
      .boolean()
      .default(true)
      .describe(
        "true: return when indexed (progress notifications if you send a progress token); false: return a job_id at once",
      ),
    watch: z.boolean().default(false).describe("keep the graph fresh as files change, for as long as this server runs"),
    lexical_only: z.boolean().default(false).describe("skip vectors (faster; lexical index and graph only)"),
    job_id: z
      .string()
      .max(MAX_ID_CHARS)
      .optional()
      .describe("poll a job started with wait:false (other fields ignored)"),
    cancel: z.boolean().default(false).describe("with job_id: cancel that job"),
  })
  .strict();

const NeighborsInput = z
  .object({
    ref: z
      .string()
      .min(1)
      .max(MAX_PATH_CHARS)
      .describe("a repo-relative file path, a symbol name (or Parent.name), or a node id"),
    per_group: z.number().int().min(1).max(100).default(15).describe("nodes shown per edge type"),
  })
  .strict();

function jobView(job: GraphJob) {
  return {
    job_id: job.id,
    state: job.state,
    ...(job.progress ? { progress: job.progress } : {}),
    ...(job.error ? { error: job.error } : {}),
    ...(job.result
      ? {
          files: job.result.files,
          counts: job.result.counts,
          skipped: job.result.skipped,
          ms: job.result.ms.total,
          files_per_second: job.result.filesPerSecond,
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

export function registerGraphTools(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "build_context_graph",
    {
      title: "Build the context graph",
      description:
        "Index this repository into memcards' context graph (files, symbols, tests, rule documents; imports, test coverage, rule scope). Incremental: unchanged files are skipped, so calling it again is cheap. Set watch:true to keep it fresh while you edit.",
      inputSchema: BuildInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args, extra) =>
      guard(async () => {
        const app = await deps.app();
        const svc = graphService(app);
        if (args.job_id) {
          const job = svc.host.job(args.job_id);
          if (!job)
            throw new AppError("NOT_FOUND", `no graph job ${args.job_id} in this server (jobs are kept in memory)`);
          if (args.cancel) job.cancel();
          return ok(args.cancel ? `cancel requested for ${job.id}` : jobText(job), jobView(job));
        }
        const token = extra._meta?.progressToken;
        let last = -1;
        const job = svc.host.start({
          lexicalOnly: args.lexical_only,
          onProgress: (p) => {
            if (token === undefined) return;
            const pct = percent(p.phase, p.done, p.total);
            if (pct <= last) return;
            last = pct;
            void extra
              .sendNotification({
                method: "notifications/progress",
                params: { progressToken: token, progress: pct, total: 100, message: `${p.phase} ${p.done}/${p.total}` },
              })
              .catch(() => undefined);
          },
        });
        if (args.watch) svc.watch();
        if (!args.wait) return ok(jobText(job), jobView(job));
        const onAbort = () => job.cancel();
        extra.signal.addEventListener("abort", onAbort, { once: true });
        try {
          await job.finished;
        } finally {
          extra.signal.removeEventListener("abort", onAbort);
        }
        if (job.state === "failed")
          throw new AppError((job.error?.code as "INTERNAL") ?? "INTERNAL", job.error?.message ?? "failed");
        const watching = args.watch
          ? `\n${svc.watcher()?.active ? "watching for changes" : "another memcards process is already watching this project"}`
          : "";
        return ok(jobText(job) + watching, jobView(job));
      }, deps.logger),
  );

  server.registerTool(
    "graph_neighbors",
    {
      title: "Graph neighbours",
      description:
        "Show a file's or symbol's one-hop neighbourhood in the context graph: what it contains, imports and is imported by, the tests covering it, the rules governing it, similar files.",
      inputSchema: NeighborsInput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      guard(async () => {
        const app = await deps.app();
        assertIndexed(app.db);
        const n = neighbourhood(app.db, args.ref, args.per_group);
        return ok(renderNeighbourhood(n), {
          node: { id: n.node.id, type: n.node.type, path: n.node.path, name: n.node.name },
          edges: Object.fromEntries(n.groups.map((g) => [`${g.direction}:${g.edgeType}`, g.total])),
        });
      }, deps.logger),
  );

  server.registerResource(
    "graph-stats",
    "memcards://graph/stats",
    {
      title: "Context graph statistics",
      description: "Nodes and edges per type, indexed files, build state and the last run.",
      mimeType: "application/json",
    },
    async (uri) => {
      const app = await deps.app();
      const svc = graphService(app);
      const stats = graphStats(app.db, svc.watcher()?.active ?? false, svc.host.current()?.id);
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(stats, null, 2) }] };
    },
  );
}
