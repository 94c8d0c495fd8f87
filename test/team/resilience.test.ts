// Team store consistency and failure handling against a real PostgreSQL server: forgetting one side of a conflict
// (or a superseding metric) restores the other, another author's different value is never merged away, and a team
// failure other than an unreachable server leaves local search working.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { forget, recordMemory } from "../../src/session/memory.js";
import { teamProjectId } from "../../src/storage/team/units.js";
import { teamSearchFor } from "../../src/team/deps.js";
import { initTeam, pushTeam, sendUnit, teamRecall } from "../../src/team/service.js";
import { signature } from "../../src/text/signature.js";
import { engineReady } from "../helpers/engines.js";
import { createPgServer, type PgServer, postgresUnavailable } from "../helpers/postgres.js";
import { developer } from "./helpers.js";

const ready = engineReady("test/team/resilience.test.ts", "PostgreSQL 15", postgresUnavailable());

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

async function rowsOf(q: string): Promise<{ rolname: string }[]> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    return (await c.query<{ rolname: string }>(q)).rows;
  } finally {
    await c.end();
  }
}

async function rows(like: string): Promise<{ text: string; status: string; author: string }[]> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    return (
      await c.query<{ text: string; status: string; author: string }>(
        "SELECT text, status, author FROM team_units WHERE text LIKE $1 ORDER BY seq",
        [like],
      )
    ).rows;
  } finally {
    await c.end();
  }
}

describe.skipIf(!ready)("team store consistency", () => {
  it("forgetting one side of a conflict makes the other active again", async () => {
    const a = developer(server.url, "alice", "conflict");
    const b = developer(server.url, "bob", "conflict");
    await initTeam(a);
    await initTeam(b);
    recordMemory(a.scope, { category: "rule", text: "Use tabs for indentation in Makefiles." });
    await pushTeam(a);
    const rb = recordMemory(b.scope, { category: "rule", text: "Do not use tabs for indentation in Makefiles." });
    expect((await pushTeam(b)).outcomes.conflict).toBe(1);
    forget(b.scope, { id: rb.id! });
    await pushTeam(b);
    expect(await rows("%Makefiles%")).toEqual([
      { text: "Use tabs for indentation in Makefiles.", status: "active", author: "alice" },
    ]);
    expect((await teamRecall(a)).hits.map((h) => h.text)).toContain("Use tabs for indentation in Makefiles.");
  }, 60_000);

  it("forgetting the newer metric makes the one it superseded current again", async () => {
    const a = developer(server.url, "alice", "metric");
    await initTeam(a);
    recordMemory(a.scope, { category: "performance", text: "p95 latency: 120 ms" });
    await pushTeam(a);
    const r2 = recordMemory(a.scope, { category: "performance", text: "p95 latency: 90 ms" });
    await pushTeam(a);
    forget(a.scope, { id: r2.id! });
    await pushTeam(a);
    expect((await rows("%latency%")).map((r) => `${r.status}: ${r.text}`)).toEqual(["active: p95 latency: 120 ms"]);
  }, 60_000);

  it("another author's different value under the same distilled key is kept and flagged, not merged away", async () => {
    await initTeam(developer(server.url, "alice", "values"));
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    try {
      const pid = await teamProjectId(c, "name:values");
      const unit = (n: number, author: string, text: string) => ({
        uid: `00000000-0000-0000-0000-00000000000${n}`,
        category: "commitment",
        text,
        record: {},
        merge_key: signature(text),
        confidence: 0.9,
        tier: "warm",
        evidence: [],
        files: [],
        author,
        machine: "m",
        created_at: new Date().toISOString(),
      });
      expect(signature("Keep the pool at 10 connections.")).toBe(signature("Keep the pool at 500 connections."));
      expect(await sendUnit(c, pid, unit(1, "alice", "Keep the pool at 10 connections."))).toBe("added");
      expect(await sendUnit(c, pid, unit(2, "carol", "Keep the pool at 10 connections."))).toBe("merged");
      expect(await sendUnit(c, pid, unit(3, "bob", "Keep the pool at 500 connections."))).toBe("conflict");
    } finally {
      await c.end();
    }
    expect((await rows("%the pool at%")).map((r) => `${r.author}: ${r.status}`)).toEqual([
      "alice: conflict",
      "bob: conflict",
    ]);
  }, 60_000);

  it("a refused login or an uninitialised store leaves search with a note instead of an error", async () => {
    const a = developer(server.url, "alice", "failure");
    await initTeam(a);
    recordMemory(a.scope, { category: "rule", text: "Vacuum the queue table every night." });
    const bad = new URL(server.url);
    bad.password = "wrong-password";
    const r = await teamSearchFor(a.scope, { url: bad.toString() }, "vacuum queue");
    expect(r?.hits).toEqual([]);
    expect(r?.source).toMatch(/not searched: .*refused the login/);
    expect(r?.source).not.toContain("wrong-password");
    const empty = new URL(server.url);
    empty.pathname = "/empty";
    await rows("%").then(async () => {
      const c = new pg.Client({ connectionString: server.url });
      await c.connect();
      await c.query("CREATE DATABASE empty");
      await c.end();
    });
    expect((await teamSearchFor(a.scope, { url: empty.toString() }, "vacuum queue"))?.source).toMatch(/not searched/);
  }, 60_000);

  it("creates a member role whose name holds replacement patterns, logging in with its password", async () => {
    await initTeam(developer(server.url, "root", "role"), { name: "mem$&ber$'", password: "pw-$&-1" });
    const names = (await rowsOf("SELECT rolname FROM pg_roles WHERE rolname LIKE 'mem%'")).map((r) => r.rolname);
    expect(names).toEqual(["mem$&ber$'"]);
    const url = new URL(server.url);
    url.username = encodeURIComponent("mem$&ber$'");
    url.password = encodeURIComponent("pw-$&-1");
    const member = developer(url.toString(), "carol", "role");
    await initTeam(member);
    recordMemory(member.scope, { category: "rule", text: "Members can share units." });
    expect((await pushTeam(member)).sent).toBe(1);
  }, 60_000);
});
