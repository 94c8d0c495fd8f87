// Team sharing follows local curation, against a real PostgreSQL server: a unit waiting for review is shared
// only once approved, an edit replaces the shared wording, and a forgotten unit's local id reused by SQLite does
// not stop the next unit from being shared.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { setReviewMode } from "../../src/memory/review.js";
import { approveUnit, editUnit } from "../../src/session/curate.js";
import { forget, recordMemory } from "../../src/session/memory.js";
import { initTeam, pushTeam } from "../../src/team/service.js";
import { engineReady } from "../helpers/engines.js";
import { createPgServer, type PgServer, postgresUnavailable } from "../helpers/postgres.js";
import { developer } from "./helpers.js";

const ready = engineReady("test/team/curation.test.ts", "PostgreSQL 15", postgresUnavailable());

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

async function texts(like: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    const r = await c.query<{ text: string; status: string }>(
      "SELECT text, status FROM team_units WHERE text LIKE $1 ORDER BY seq",
      [like],
    );
    return r.rows.map((x) => `${x.status}: ${x.text}`);
  } finally {
    await c.end();
  }
}

describe.skipIf(!ready)("team sharing follows curation", () => {
  it("shares a unit waiting for review only after it is approved", async () => {
    const a = developer(server.url, "alice", "review");
    await initTeam(a);
    setReviewMode(a.scope.db, a.scope.projectId, true);
    const r = recordMemory(a.scope, { category: "rule", text: "Deploy only from the release branch zebra." });
    expect(r.outcome).toMatch(/waits for review/);
    await pushTeam(a);
    expect(await texts("%zebra%")).toEqual([]);
    approveUnit(a.scope, r.id!);
    await pushTeam(a);
    expect(await texts("%zebra%")).toEqual(["active: Deploy only from the release branch zebra."]);
  }, 60_000);

  it("an edit replaces the queued and the shared wording", async () => {
    const a = developer(server.url, "alice", "edit");
    await initTeam(a);
    const r = recordMemory(a.scope, { category: "rule", text: "Use the staging key ORIGINALWORDING for tests." });
    editUnit(a.scope, r.id!, "Use the staging environment for tests.");
    const queued = a.scope.db.prepare("SELECT payload FROM team_outbox").all() as { payload: string }[];
    expect(queued.map((q) => q.payload).join("\n")).not.toContain("ORIGINALWORDING");
    await pushTeam(a);
    expect(await texts("%staging%")).toEqual(["active: Use the staging environment for tests."]);
    editUnit(a.scope, r.id!, "Use the staging cluster for integration tests.");
    const p = await pushTeam(a);
    expect(p.outcomes.updated).toBe(1);
    expect(await texts("%staging%")).toEqual(["active: Use the staging cluster for integration tests."]);
  }, 60_000);

  it("a unit recorded after the newest shared unit is forgotten is still shared", async () => {
    const a = developer(server.url, "alice", "reuse");
    await initTeam(a);
    const r1 = recordMemory(a.scope, { category: "rule", text: "First rule about apples." });
    await pushTeam(a);
    forget(a.scope, { id: r1.id! });
    await pushTeam(a);
    const r2 = recordMemory(a.scope, { category: "rule", text: "Second rule about bananas." });
    // Ids are never reused: the new unit has its own, and is shared under it.
    expect(r2.id).toBeGreaterThan(r1.id!);
    await pushTeam(a);
    expect(await texts("%bananas%")).toEqual(["active: Second rule about bananas."]);
    expect(await texts("%apples%")).toEqual([]);
  }, 60_000);
});
