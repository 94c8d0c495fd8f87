// `memcards eval team`: write and search throughput and p95 latency of N concurrent agents against a team store
// on PostgreSQL, beside the same work on SQLite alone, in one run. Each agent has its own local store.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { searchMemory } from "../src/memory/service.js";
import { recordMemory } from "../src/session/memory.js";
import { openDatabase } from "../src/storage/db.js";
import { upsertProject } from "../src/storage/projects.js";
import { initTeam, pushTeam, searchTeam, type TeamDeps, withTeam } from "../src/team/service.js";
import { percentile, round } from "./localize/metrics.js";

export interface TeamBenchResult {
  agents: number;
  ops_per_agent: number;
  rows: { store: string; op: string; ops: number; per_second: number; p50_ms: number; p95_ms: number }[];
}

const TOPICS = ["cache", "ledger", "auth", "deploy", "parser", "billing", "search", "queue", "export", "metrics"];

function text(agent: number, i: number): string {
  const t = TOPICS[(agent + i) % TOPICS.length]!;
  return `Agent ${agent} learned that the ${t} module needs step r${agent}q${i}z before release.`;
}

async function timed(
  agents: number,
  ops: number,
  fn: (agent: number, i: number) => Promise<unknown> | unknown,
): Promise<{ ms: number[]; wall: number }> {
  const ms: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: agents }, async (_, a) => {
      for (let i = 0; i < ops; i++) {
        const t = performance.now();
        const v = fn(a, i);
        // A synchronous operation is timed as soon as it returns, before other agents' work interleaves.
        if (v instanceof Promise) await v;
        ms.push(performance.now() - t);
        if (!(v instanceof Promise)) await new Promise((r) => setImmediate(r));
      }
    }),
  );
  return { ms, wall: performance.now() - t0 };
}

function row(store: string, op: string, r: { ms: number[]; wall: number }) {
  return {
    store,
    op,
    ops: r.ms.length,
    per_second: round((r.ms.length / r.wall) * 1000, 1),
    p50_ms: round(percentile(r.ms, 0.5), 2),
    p95_ms: round(percentile(r.ms, 0.95), 2),
  };
}

/** Runs the benchmark against `url` under a fresh project name; the local stores live in a scratch folder. */
export async function benchTeam(url: string, agents: number, ops: number): Promise<TeamBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), "memcards-team-bench-"));
  const project = `bench-${Date.now()}`;
  const opened: { close(): void }[] = [];
  try {
    const local = (name: string, a: number) => {
      const root = join(dir, `${name}-${a}`);
      const db = openDatabase(join(dir, `${name}-${a}.db`));
      opened.push(db);
      return { db, projectId: upsertProject(db, "bench", root).id, root };
    };
    // SQLite alone: the same records and searches, each agent on its own store.
    const sqlite = Array.from({ length: agents }, (_, a) => local("sqlite", a));
    const sw = await timed(agents, ops, (a, i) => recordMemory(sqlite[a]!, { category: "learning", text: text(a, i) }));
    const ss = await timed(agents, ops, (a, i) =>
      searchMemory(sqlite[a]!, { query: `${TOPICS[(a + i) % TOPICS.length]} module step`, limit: 10 }),
    );
    // Team store: record locally, queue, send (one connection per operation, as the CLI does); search the server.
    const team: TeamDeps[] = Array.from({ length: agents }, (_, a) => ({
      scope: local("team", a),
      url,
      projectKey: `name:${project}`,
      who: { author: `agent-${a}`, machine: "bench" },
    }));
    for (const t of team) await initTeam(t);
    const tw = await timed(agents, ops, async (a, i) => {
      recordMemory(team[a]!.scope, { category: "learning", text: text(a, i) });
      await pushTeam(team[a]!);
    });
    const ts = await timed(agents, ops, (a, i) =>
      searchTeam(team[a]!, `${TOPICS[(a + i) % TOPICS.length]} module step`, { limit: 10 }),
    );
    const stored = await withTeam(url, async (c) => {
      const r = await c.query<{ n: string }>(
        "SELECT COUNT(*) AS n FROM team_units u JOIN team_projects p ON p.id = u.project_id WHERE p.key = $1",
        [`name:${project}`],
      );
      await c.query("DELETE FROM team_projects WHERE key = $1", [`name:${project}`]);
      return Number(r.rows[0]!.n);
    });
    if (stored !== agents * ops) throw new Error(`the team store holds ${stored} units, expected ${agents * ops}`);
    return {
      agents,
      ops_per_agent: ops,
      rows: [
        row("sqlite", "write", sw),
        row("sqlite", "search", ss),
        row("postgres", "write", tw),
        row("postgres", "search", ts),
      ],
    };
  } finally {
    for (const db of opened) db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function renderTeamBench(r: TeamBenchResult): string {
  return [
    `${r.agents} concurrent agents × ${r.ops_per_agent} operations each`,
    "",
    "| store | operation | ops | ops/s | p50 ms | p95 ms |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
    ...r.rows.map((x) => `| ${x.store} | ${x.op} | ${x.ops} | ${x.per_second} | ${x.p50_ms} | ${x.p95_ms} |`),
  ].join("\n");
}
