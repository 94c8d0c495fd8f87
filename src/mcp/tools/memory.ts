// Tools record_memory, search_memory, recall and forget, and resource memcards://project/brief.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import type { App } from "../../app.js";
import {
  forget,
  ForgetInput,
  recall,
  RecallInput,
  RecordInput,
  recordMemory,
  SearchInput,
  searchMemory,
} from "../../memory/service.js";
import type { ToolDeps } from "../context.js";
import { guard, ok } from "../result.js";

const memDeps = (app: App) => ({ db: app.db, projectId: app.project.id, root: app.location.root });

export function registerMemoryTools(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "record_memory",
    {
      title: "Remember a fact",
      description:
        'Store one memory unit for this project: a commitment or rule, a decision, a learning, a failure and its fix, a preference, or a metric (`name: value unit`). Merges duplicates, supersedes old metric values, flags contradicting commitments. Secrets are redacted. Example: {"category": "commitment", "text": "Never edit generated files under gen/"}.',
      inputSchema: RecordInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guard(async () => {
        const r = recordMemory(memDeps(await deps.app()), args);
        return ok(`${r.outcome}${r.id !== undefined ? ` (#${r.id})` : ""}.`, {
          id: r.id ?? null,
          merged: r.merged,
          outcome: r.outcome,
        });
      }, deps.logger),
  );
  server.registerTool(
    "search_memory",
    {
      title: "Search memory",
      description:
        'Search this project\'s memory units (and, with include_raw, the archive of past turns): "did we promise X?", "what did Y measure?", "has Z failed before?". Each hit has its evidence (session, turn, quote) and history (what it superseded, what it conflicts with). Example: {"query": "flaky login test", "category": "failure"}.',
      inputSchema: SearchInput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      guard(async () => {
        const app = await deps.app();
        // Hybrid when the project has vectors: unit vectors are computed with the graph's (build_context_graph).
        const vector = app.embedding.vectorsEnabled
          ? (await app.embedding.embedder.embed([args.query.slice(0, 4000)]))[0]
          : undefined;
        const r = searchMemory(memDeps(app), args, vector);
        const lines = r.hits.map((h) => {
          const ev = h.evidence[0];
          const hist = h.history.supersedes.length
            ? `; supersedes #${h.history.supersedes.map((x) => x.id).join(", #")}`
            : "";
          const conf = h.history.conflicts_with ? `; conflicts with #${h.history.conflicts_with.id}` : "";
          return `- #${h.id} [${h.category}, ${h.tier}${h.status !== "active" ? `, ${h.status}` : ""}] ${h.text.replace(/\s+/g, " ").slice(0, 300)}${ev ? ` (${ev.session ?? ""} ${ev.turn})` : ""}${hist}${conf}`;
        });
        const raw = r.raw.map(
          (x) => `- ${x.session_id} ${x.turn_id} ${x.role}: ${x.text.replace(/\s+/g, " ").slice(0, 240)}`,
        );
        const text = [
          lines.length ? lines.join("\n") : "No memory unit matches.",
          ...(raw.length ? ["", "From the raw archive:", ...raw] : []),
        ].join("\n");
        return ok(text, {
          hits: r.hits.map((h) => ({ id: h.id, category: h.category, score: h.score })),
          raw: r.raw.length,
        });
      }, deps.logger),
  );
  server.registerTool(
    "recall",
    {
      title: "Recall for this session",
      description:
        "At the start of a session: under a budget, what this project's memory says the work at hand needs — the last session's next steps, user constraints, units about the changed files and branch, recent failures and fixes, latest metrics. Example: {\"budget_tokens\": 1000}.",
      inputSchema: RecallInput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      guard(async () => {
        const r = recall(memDeps(await deps.app()), args);
        return ok(r.markdown, { tokens: r.tokens, units: r.units });
      }, deps.logger),
  );
  server.registerTool(
    "forget",
    {
      title: "Forget",
      description:
        'Delete memory for real — one unit (id), a session\'s units, raw turns and summaries (session_id), units citing a file (file), or everything of this project (all: true) — from every table and index, served cards included, with the freed pages overwritten. Example: {"session_id": "3f2a"}.',
      inputSchema: ForgetInput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      guard(async () => {
        const r = forget(memDeps(await deps.app()), args);
        return ok(
          `Forgot ${r.memories} memory unit(s), ${r.rawTurns} archived turn(s), ${r.summaries} summary(ies).`,
          r,
        );
      }, deps.logger),
  );
  server.registerResource(
    "project-brief",
    "memcards://project/brief",
    {
      title: "Project brief",
      description: "What memory says the next session needs (the recall tool's default).",
      mimeType: "text/markdown",
    },
    async (uri) => {
      const r = recall(memDeps(await deps.app()));
      return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: r.markdown }] };
    },
  );
}
