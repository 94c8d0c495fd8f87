// kill -9 at each step of a compression: the summary (the session's watermark), the archived turns and the units
// are all there exactly once after a re-run, whichever step the process died at, for `memcards distill` (inline)
// and for the server's background distillation (a durable queue resumed at the next start). The real CLI and
// server are stopped by the test-only MEMCARDS_TEST_CRASH_AT hook (src/crash-point.ts).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";

import { cliPath } from "../helpers/cli.js";
import { connect } from "../helpers/mcp.js";
import { claudeCodeSession, longSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";

interface State {
  summaries: number;
  turns: number;
  duplicateTurns: number;
  units: string[];
  jobs: number;
}

/** What the store holds for the session: summaries, archived turns (and duplicates), unit texts, queued jobs. */
function state(dbPath: string): State {
  const db = new Database(dbPath, { readonly: true });
  try {
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return {
      summaries: n("SELECT COUNT(*) AS n FROM summaries"),
      turns: n("SELECT COUNT(*) AS n FROM raw_turns"),
      duplicateTurns: n(
        "SELECT COUNT(*) AS n FROM (SELECT turn_id FROM raw_turns GROUP BY session_id, turn_id HAVING COUNT(*) > 1)",
      ),
      units: (db.prepare("SELECT category || ': ' || text AS t FROM memories ORDER BY t").all() as { t: string }[]).map(
        (r) => r.t,
      ),
      jobs: n("SELECT COUNT(*) AS n FROM distill_jobs"),
    };
  } finally {
    db.close();
  }
}

function project(): { root: string; transcript: string; db: string } {
  const root = tmpDir("memcards-crash-");
  const transcript = join(root, "session.jsonl");
  writeFileSync(transcript, claudeCodeSession(longSession(12, 4), { sessionId: "crash-session" }));
  return { root, transcript, db: join(root, ".memcards", "memcards.db") };
}

/** `memcards distill <transcript>`, killed at `crashAt` when given. */
function distill(p: ReturnType<typeof project>, home: string, crashAt?: string) {
  const r = spawnSync(
    process.execPath,
    [cliPath, "--root", p.root, "--db", p.db, "--embedder", "offline", "distill", p.transcript],
    {
      cwd: p.root,
      env: {
        ...process.env,
        HOME: home,
        MEMCARDS_HOME: home,
        MEMCARDS_TEST_CRASH_AT: crashAt ?? "",
      },
      encoding: "utf8",
      timeout: 120_000,
    },
  );
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

describe("memcards distill killed at each step", () => {
  const reference = (() => {
    let cached: State | undefined;
    return () => {
      if (!cached) {
        const p = project();
        const r = distill(p, tmpDir());
        expect(r.code, r.stderr).toBe(0);
        cached = state(p.db);
      }
      return cached;
    };
  })();

  // What the killed run left: nothing at all before the commit, everything after it.
  const cases: { step: string; left: "nothing" | "all" }[] = [
    { step: "after-summary", left: "nothing" },
    { step: "after-units", left: "nothing" },
    { step: "after-commit", left: "all" },
  ];
  for (const c of cases) {
    it(`after a kill at ${c.step}, a re-run leaves summary, turns and units exactly once`, () => {
      const ref = reference();
      expect(ref.summaries).toBe(1);
      expect(ref.turns).toBeGreaterThan(10);
      expect(ref.units.length).toBeGreaterThan(0);
      const p = project();
      const home = tmpDir();
      const killed = distill(p, home, c.step);
      expect(killed.signal, killed.stderr).toBe("SIGKILL");
      const left = state(p.db);
      if (c.left === "nothing") expect(left).toMatchObject({ summaries: 0, turns: 0, units: [] });
      else expect(left).toEqual(ref);
      const again = distill(p, home);
      expect(again.code, again.stderr).toBe(0);
      expect(state(p.db)).toEqual(ref);
      // A third run has nothing new and adds nothing.
      const third = distill(p, home);
      expect(third.code, third.stderr).toBe(0);
      expect(third.stdout).toMatch(/Nothing new to summarize/);
      expect(state(p.db)).toEqual(ref);
    }, 120_000);
  }
});

/** A real `memcards serve` over stdio, started with the crash hook when given. */
async function startServer(p: ReturnType<typeof project>, home: string, crashAt?: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, "--root", p.root, "--db", p.db, "--embedder", "offline", "serve"],
    cwd: p.root,
    env: {
      ...(process.env as Record<string, string>),
      HOME: home,
      MEMCARDS_HOME: home,
      MEMCARDS_TEST_CRASH_AT: crashAt ?? "",
    },
    stderr: "ignore",
  });
  const client = new Client({ name: "memcards-crash-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

type Distillation = { pending: number; done: number; failed: number };

/** Waits until the server's background distillation has nothing queued or running. */
async function drained(client: Client): Promise<Distillation> {
  for (;;) {
    const st = await client.callTool({ name: "status", arguments: {} });
    const d = (st.structuredContent as { distillation: Distillation }).distillation;
    if (d.pending === 0) return d;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the server killed during background distillation", () => {
  const compress = (client: Client, transcript: string) =>
    client.callTool(
      { name: "compress_context", arguments: { transcript_path: transcript, keep_recent: 0, route: "deterministic" } },
      undefined,
      { timeout: 60_000 },
    );

  const reference = (() => {
    let cached: State | undefined;
    return async () => {
      if (!cached) {
        const p = project();
        const c = await connect({
          flags: { root: p.root, db: p.db, embedder: "offline" },
          env: { MEMCARDS_HOME: tmpDir() },
        });
        try {
          const r = await compress(c.client, p.transcript);
          expect(r.isError).toBeFalsy();
          expect(await drained(c.client)).toMatchObject({ failed: 0 });
        } finally {
          await c.close();
        }
        cached = state(p.db);
      }
      return cached;
    };
  })();

  // hold: the worker stops inside its transaction and the reply goes out, then the server is killed (the reported
  // case); the other steps kill the server itself there.
  const cases: { step: string; replied: boolean; queued: boolean }[] = [
    { step: "hold:distill-job-units", replied: true, queued: true },
    { step: "distill-job-units", replied: false, queued: true },
    { step: "after-queue", replied: false, queued: false },
  ];
  for (const c of cases) {
    it(`after a kill at ${c.step}, the next start leaves summary, turns and units exactly once`, async () => {
      const ref = await reference();
      expect(ref.units.length).toBeGreaterThan(0);
      expect(ref.jobs).toBe(0);
      const p = project();
      const home = tmpDir();
      const first = await startServer(p, home, c.step);
      const reply = await compress(first.client, p.transcript).catch(() => undefined);
      if (c.replied) {
        expect(reply?.isError).toBeFalsy();
        expect((reply?.structuredContent as { memories_queued?: number }).memories_queued).toBeGreaterThan(10);
      }
      if (!c.replied) {
        // The server killed itself: wait for the process to be gone.
        while (isAlive(first.pid)) await new Promise((r) => setTimeout(r, 50));
      } else process.kill(first.pid, "SIGKILL");
      await first.client.close().catch(() => undefined);
      const left = state(p.db);
      expect(left).toMatchObject(
        c.queued ? { summaries: 1, turns: 0, units: [], jobs: 1 } : { summaries: 0, turns: 0, units: [], jobs: 0 },
      );

      // The next start resumes the queued job; a compression that never committed is simply done again.
      const next = await startServer(p, home);
      try {
        if (!c.queued) expect((await compress(next.client, p.transcript)).isError).toBeFalsy();
        expect(await drained(next.client)).toMatchObject({ failed: 0 });
        expect(state(p.db)).toEqual(ref);
        const again = await compress(next.client, p.transcript);
        expect(JSON.stringify(again.structuredContent)).toMatch(/Nothing new to summarize/);
      } finally {
        await next.client.close();
      }
      expect(state(p.db)).toEqual(ref);
    }, 120_000);
  }
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
