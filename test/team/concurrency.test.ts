// Many agents at once against a real PostgreSQL 15 server: memcards processes recording and searching in
// parallel lose nothing and duplicate nothing, including two processes draining one machine's queue.
import { spawn } from "node:child_process";

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { cliPath } from "../helpers/cli.js";
import { engineReady } from "../helpers/engines.js";
import { createPgServer, type PgServer, postgresUnavailable } from "../helpers/postgres.js";
import { tmpDir } from "../helpers/tmp.js";

const ready = engineReady("test/team/concurrency.test.ts", "PostgreSQL 15", postgresUnavailable());

let server: PgServer;
beforeAll(async () => {
  if (!ready) return;
  server = await createPgServer();
  server.start();
}, 90_000);
afterAll(() => {
  server?.stop();
  server?.destroy();
}, 60_000);

function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env }, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => p.kill("SIGKILL"), 60_000);
    p.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.skipIf(!ready)("concurrent agents", () => {
  it("record and search at once: every unit arrives once, with its author", async () => {
    const PER = 2;
    const shared = tmpDir();
    // Two developers with their own stores, and two processes sharing a third developer's store.
    const agents = [
      { author: "ann", root: tmpDir() },
      { author: "ben", root: tmpDir() },
      { author: "cy", root: shared },
      { author: "cy", root: shared },
    ];
    const env = (author: string) => ({
      MEMCARDS_TEAM_URL: server.url,
      MEMCARDS_TEAM_PROJECT: "concurrency",
      MEMCARDS_TEAM_AUTHOR: author,
      MEMCARDS_LOG_LEVEL: "warn",
    });
    const base = (root: string) => ["--root", root, "--embedder", "offline"];
    // Link each store once (the shared one once), then all agents record and search at the same time.
    for (const root of [agents[0]!.root, agents[1]!.root, shared]) {
      const r = await cli([...base(root), "team", "init"], env("setup"));
      expect(r.stderr + r.stdout).toMatch(/team store at schema/);
    }
    const results = await Promise.all(
      agents.map(async (a, i) => {
        const out: string[] = [];
        for (let k = 0; k < PER; k++) {
          const r = await cli(
            [...base(a.root), "remember", "learning", `Agent ${i} learned fact number ${k} about module m${i}x${k}.`],
            env(a.author),
          );
          expect(r.code, r.stderr).toBe(0);
          const s = await cli([...base(a.root), "search", `module m${i}x${k}`], env(a.author));
          expect(s.code, s.stderr).toBe(0);
          out.push(s.stdout);
        }
        return out;
      }),
    );
    // Each agent's search found its own unit in the team store, marked with its author.
    results.forEach((out, i) =>
      expect(out.at(-1)).toMatch(new RegExp(`Agent ${i} learned fact number ${PER - 1}.*— ${agents[i]!.author}`)),
    );
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    try {
      const rows = (
        await c.query<{ text: string; author: string }>(
          "SELECT text, author FROM team_units u JOIN team_projects p ON p.id = u.project_id WHERE p.key = 'name:concurrency'",
        )
      ).rows;
      const texts = rows.map((r) => r.text).sort();
      expect(texts).toHaveLength(agents.length * PER);
      expect(new Set(texts).size).toBe(texts.length);
      expect(new Set(rows.map((r) => r.author))).toEqual(new Set(["ann", "ben", "cy"]));
    } finally {
      await c.end();
    }
    // Nothing left queued in the store two processes drained at once.
    const s = await cli([...base(shared), "team", "status", "--json"], env("x"));
    expect(JSON.parse(s.stdout)).toMatchObject({ pending: 0, reachable: true, reads: "team store" });
    expect(s.stdout).not.toContain(server.password);
  }, 120_000);
});
