// Team memory against a real PostgreSQL 15 server: sharing with author, conflicts, metric supersession, forget
// for everyone, redaction before sending, offline queue and replay across a restart, a refused login.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { compressContext } from "../../src/session/compress.js";
import { forget, recordMemory } from "../../src/session/memory.js";
import { pendingCount } from "../../src/storage/team/outbox.js";
import { queueSummariesForTeam } from "../../src/team/queue.js";
import {
  forgetForTeam,
  initTeam,
  pullTeam,
  pushIfReachable,
  pushTeam,
  searchTeam,
  teamStatus,
} from "../../src/team/service.js";
import { runCli } from "../helpers/cli.js";
import { engineReady } from "../helpers/engines.js";
import { connect } from "../helpers/mcp.js";
import { createPgServer, type PgServer, postgresUnavailable } from "../helpers/postgres.js";
import { tmpDir } from "../helpers/tmp.js";
import { developer } from "./helpers.js";

const ready = engineReady("test/team/team.test.ts", "PostgreSQL 15", postgresUnavailable());

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

async function sql<T extends pg.QueryResultRow>(q: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    return (await c.query<T>(q, params)).rows;
  } finally {
    await c.end();
  }
}

describe.skipIf(!ready)("team store", () => {
  it("shares recorded project-level units with author and machine; preferences stay local", async () => {
    const alice = developer(server.url, "alice", "share");
    const r = await initTeam(alice);
    expect(r.version).toBeGreaterThanOrEqual(1);
    recordMemory(alice.scope, { category: "rule", text: "Always run migrations inside one transaction." });
    recordMemory(alice.scope, { category: "preference", text: "I like short commit messages." });
    const p = await pushTeam(alice);
    expect(p).toMatchObject({ sent: 1, pending: 0 });
    const bob = developer(server.url, "bob", "share");
    await initTeam(bob);
    const found = await searchTeam(bob, "migrations transaction");
    expect(found.source).toBe("team");
    expect(found.hits).toHaveLength(1);
    expect(found.hits[0]).toMatchObject({ author: "alice", category: "commitment" });
    expect((await searchTeam(bob, "short messages")).hits).toHaveLength(0);
    // Pushing again sends nothing twice; summaries stay local unless shared explicitly, and then go once.
    compressContext(alice.scope, {
      sessionId: "s1",
      keepRecent: 0,
      messages: [
        { role: "user", content: "We agreed to ship the ledger export on Friday after the audit." },
        { role: "user", content: "Never commit generated files under gen/ to the repository." },
      ],
    });
    // Distilled units of shared categories go with the next push; nothing is sent twice.
    await pushTeam(alice);
    expect((await pushTeam(alice)).sent).toBe(0);
    const distilled = await sql<{ text: string }>("SELECT text FROM team_units WHERE category <> 'summary'");
    expect(distilled.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(distilled)).toMatch(/migrations inside one transaction/);
    expect(JSON.stringify(distilled)).toMatch(/Never commit generated files/);
    expect(queueSummariesForTeam(alice.scope, alice.projectKey)).toBe(1);
    queueSummariesForTeam(alice.scope, alice.projectKey);
    expect((await pushTeam(alice)).sent).toBe(1);
    const summaries = await sql<{ text: string; author: string }>(
      "SELECT text, author FROM team_units WHERE category = 'summary'",
    );
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({ author: "alice", text: expect.stringMatching(/ledger export/) });
  });

  it("flags contradicting commitments from two authors as a conflict and keeps both", async () => {
    const alice = developer(server.url, "alice", "conflict");
    const bob = developer(server.url, "bob", "conflict");
    await initTeam(alice);
    await initTeam(bob);
    recordMemory(alice.scope, { category: "rule", text: "Use the staging database for integration tests." });
    recordMemory(bob.scope, { category: "rule", text: "Never use the staging database for integration tests." });
    await pushTeam(alice);
    await pushTeam(bob);
    const all = await searchTeam(alice, "staging database integration tests", { includeInactive: true });
    expect(all.hits.map((h) => [h.author, h.status]).sort()).toEqual([
      ["alice", "conflict"],
      ["bob", "conflict"],
    ]);
    const rows = await sql<{ event: string; author: string }>(
      "SELECT event, author FROM team_history WHERE event = 'conflict'",
    );
    expect(rows).toEqual([{ event: "conflict", author: "bob" }]);
  });

  it("a newer metric from another author supersedes the older one", async () => {
    const alice = developer(server.url, "alice", "metrics");
    const bob = developer(server.url, "bob", "metrics");
    await initTeam(alice);
    await initTeam(bob);
    recordMemory(alice.scope, { category: "performance", text: "p95 latency: 120 ms" });
    await new Promise((r) => setTimeout(r, 5));
    recordMemory(bob.scope, { category: "performance", text: "p95 latency: 80 ms" });
    await pushTeam(bob); // the newer one arrives first
    await pushTeam(alice);
    const hits = (await searchTeam(alice, "p95 latency", { includeInactive: true })).hits;
    const byAuthor = Object.fromEntries(hits.map((h) => [h.author, h.status]));
    expect(byAuthor).toEqual({ alice: "superseded", bob: "active" });
  });

  it("redacts secrets before anything is sent", async () => {
    const alice = developer(server.url, "alice", "redact");
    await initTeam(alice);
    const key = "AKIA" + "IOSFODNN7EXAMPLE";
    recordMemory(alice.scope, { category: "learning", text: `The deploy failed until AWS_KEY=${key} was rotated.` });
    await pushTeam(alice);
    const rows = await sql<{ text: string; evidence: unknown }>("SELECT text, evidence FROM team_units");
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(JSON.stringify(rows)).toMatch(/deploy failed/);
  });

  it("forget removes a shared unit for everyone, with an audit row and no text", async () => {
    const alice = developer(server.url, "alice", "forget");
    const bob = developer(server.url, "bob", "forget");
    await initTeam(alice);
    await initTeam(bob);
    const rec = recordMemory(alice.scope, { category: "learning", text: "The flaky ledger test needs a fixed clock." });
    await pushTeam(alice);
    await pullTeam(bob);
    const hit = (await searchTeam(bob, "flaky ledger clock")).hits[0]!;
    expect(hit.author).toBe("alice");
    // Bob forgets it for everyone by its team id; alice forgetting locally would do the same by her unit id.
    expect((await forgetForTeam(bob, hit.uid)).sent).toBe(true);
    expect((await searchTeam(alice, "flaky ledger clock")).hits).toHaveLength(0);
    const audit = await sql<Record<string, unknown>>("SELECT * FROM team_forgotten WHERE uid = $1", [hit.uid]);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ uid: hit.uid, forgotten_by: "bob", machine: "bob-laptop" });
    expect(JSON.stringify(audit)).not.toMatch(/ledger/);
    // A forgotten id is never accepted again (a stale replay cannot bring it back), and alice's own forget is quiet.
    forget(alice.scope, { id: rec.id! });
    expect((await pushTeam(alice)).pending).toBe(0);
    expect(await sql("SELECT 1 FROM team_units WHERE uid = $1", [hit.uid])).toHaveLength(0);
  });

  it("queues writes while the server is down, reads the local copy, and replays once, in order, after restart", async () => {
    const alice = developer(server.url, "alice", "offline");
    await initTeam(alice);
    recordMemory(alice.scope, { category: "learning", text: "Cache warmup takes two minutes after deploy." });
    await pushTeam(alice);
    await pullTeam(alice);
    server.stop();
    try {
      recordMemory(alice.scope, { category: "failure", text: "Build broke because the lockfile drifted." });
      recordMemory(alice.scope, { category: "performance", text: "cold start: 900 ms" });
      const p = await pushIfReachable(alice);
      expect(p).toMatchObject({ offline: true, pending: 2, sent: 0 });
      const s = await teamStatus(alice);
      expect(s).toMatchObject({ reachable: false, reads: "local copy", pending: 2 });
      expect(s.error).not.toContain(server.password);
      const local = await searchTeam(alice, "cache warmup deploy");
      expect(local.source).toBe("local copy");
      expect(local.hits[0]?.text).toMatch(/Cache warmup/);
    } finally {
      server.start();
    }
    const p = await pushIfReachable(alice);
    expect(p).toMatchObject({ offline: false, sent: 2, pending: 0 });
    expect((await pushTeam(alice)).sent).toBe(0);
    const rows = await sql<{ category: string }>(
      "SELECT category FROM team_units u JOIN team_projects p ON p.id = u.project_id WHERE p.key = 'name:offline' ORDER BY seq",
    );
    expect(rows.map((r) => r.category)).toEqual(["learning", "failure", "performance"]);
    expect(pendingCount(alice.scope.db, alice.scope.projectId)).toBe(0);
    expect((await teamStatus(alice)).reads).toBe("team store");
  }, 60_000);

  it("search survives text-search syntax and SQL in the query", async () => {
    const dev = developer(server.url, "eve", "hostile");
    await initTeam(dev);
    recordMemory(dev.scope, { category: "learning", text: "Quoting matters in the parser's tokenizer." });
    await pushTeam(dev);
    for (const q of ["'&|!():*<->", "x'); DROP TABLE team_units; --", "parser's & | ! tokenizer:*", "   ", "\\0"])
      await expect(searchTeam(dev, q)).resolves.toMatchObject({ source: "team" });
    expect((await searchTeam(dev, "parser's tokenizer")).hits).toHaveLength(1);
    expect(await sql("SELECT 1 FROM team_units LIMIT 1")).toHaveLength(1);
  });

  it("a wrong password is refused with a clear error that does not contain it", async () => {
    const wrong = server.url.replace(encodeURIComponent(server.password), "not-the-Pw-123");
    const alice = developer(wrong, "alice", "auth");
    const err = (await initTeam(alice).then(
      () => new Error("the login was accepted"),
      (e: unknown) => e as Error,
    )) as Error & { code?: string };
    expect(err).toMatchObject({ code: "TEAM_AUTH_FAILED" });
    expect(err.message).toMatch(/refused the login/);
    expect(err.message).not.toContain("not-the-Pw-123");
  });

  it("init creates a least-privilege role that can share units but not change the schema", async () => {
    const admin = developer(server.url, "admin", "roles");
    await initTeam(admin, { name: "memcards_team", password: "role-pw-42" });
    const url = `postgres://memcards_team:role-pw-42@127.0.0.1:${server.port}/postgres`;
    const member = developer(url, "carol", "roles");
    await initTeam(member);
    recordMemory(member.scope, { category: "rule", text: "Keep public API changes behind a feature flag." });
    expect((await pushTeam(member)).sent).toBe(1);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await expect(c.query("DROP TABLE team_units")).rejects.toThrow(/must be owner|permission denied/);
      await expect(c.query("CREATE TABLE x (a int)")).rejects.toThrow(/permission denied/);
    } finally {
      await c.end();
    }
  });

  it("the MCP tools record to the team store; search_memory and recall show team units with their author", async () => {
    const bob = developer(server.url, "bob", "mcp");
    await initTeam(bob);
    recordMemory(bob.scope, { category: "rule", text: "Rotate the signing key before each release." });
    await pushTeam(bob);
    const root = tmpDir();
    const env = { MEMCARDS_TEAM_URL: server.url, MEMCARDS_TEAM_PROJECT: "mcp", MEMCARDS_TEAM_AUTHOR: "carol" };
    const home = tmpDir();
    const init = runCli(["--root", root, "--embedder", "offline", "team", "init"], {
      env: { ...env, MEMCARDS_HOME: home },
    });
    expect(init.code, init.stderr).toBe(0);
    const saved = { ...process.env };
    Object.assign(process.env, env);
    const c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: home } });
    try {
      const rec = await c.client.callTool({
        name: "record_memory",
        arguments: { category: "learning", text: "The signing service needs the HSM token refreshed hourly." },
      });
      expect(JSON.stringify(rec.content)).not.toMatch(/queued|not sent/);
      const found = await c.client.callTool({ name: "search_memory", arguments: { query: "signing key release" } });
      const text = (found.content as { type: string; text: string }[])[0]!.text;
      expect(text).toMatch(/Rotate the signing key before each release\..*— bob/);
      const brief = await c.client.callTool({ name: "recall", arguments: { budget_tokens: 800 } });
      const briefText = (brief.content as { type: string; text: string }[])[0]!.text;
      expect(briefText).toMatch(/## From the team \(team\)\n- \[commitment\] Rotate the signing key.*— bob/);
    } finally {
      await c.close();
      process.env = saved;
    }
    const rows = await sql<{ author: string }>("SELECT author FROM team_units WHERE text LIKE '%HSM token%'");
    expect(rows).toEqual([{ author: "carol" }]);
  }, 60_000);
});
