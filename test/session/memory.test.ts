// Memory writes the team shares, composed in session/: a unit recorded by hand is queued for the team store when the
// project is linked (once, project-level categories only, never a merge or a unit waiting for review), and forget
// queues the removal of what was shared. memory/ alone stores and deletes, handing the ids to its caller. The
// fronts (record_memory and forget over MCP, `memcards remember` and `memcards forget`) go through the composer.
// No team server is needed: the queue is local and nothing is sent without a team URL.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { setReviewMode } from "../../src/memory/review.js";
import { forgetUnits, recordUnit } from "../../src/memory/service.js";
import { rejectUnit } from "../../src/session/curate.js";
import { forget, recordMemory } from "../../src/session/memory.js";
import { openDatabase } from "../../src/storage/db.js";
import { getMemory } from "../../src/storage/memories.js";
import { pendingOps } from "../../src/storage/team/outbox.js";
import { linkTeam, queueDistilledForTeam } from "../../src/team/queue.js";
import { openTestApp } from "../graph/helpers.js";
import { runCli } from "../helpers/cli.js";
import { connect } from "../helpers/mcp.js";
import { freePort } from "../helpers/postgres.js";
import { tmpDir } from "../helpers/tmp.js";

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const open = () => {
  const root = tmpDir("memcards-session-memory-");
  app = openTestApp(root);
  return app;
};
const ops = (a: App) =>
  pendingOps(a.db, a.project.id).map((o) => ({
    op: o.op,
    local: o.local_id,
    uid: o.uid,
    text: (JSON.parse(o.payload ?? "{}") as { text?: string }).text,
  }));

describe("recording a unit by hand", () => {
  it("queues nothing while the project is not linked to a team", () => {
    const a = open();
    const r = recordMemory(a.scope, { category: "learning", text: "The ledger rounds half to even." });
    expect(r.id).toBeDefined();
    expect(ops(a)).toEqual([]);
  });

  it("queues a new project-level unit once when linked; a merge and a preference queue nothing", () => {
    const a = open();
    linkTeam(a.db, a.project.id, "name:payments");
    const text = "Refunds are issued through the settlement queue.";
    const r = recordMemory(a.scope, { category: "learning", text });
    expect(r).toMatchObject({ merged: false, outcome: "stored" });
    expect(ops(a)).toEqual([{ op: "put", local: r.id, uid: expect.any(String), text }]);
    const again = recordMemory(a.scope, { category: "learning", text });
    expect(again).toMatchObject({ id: r.id, merged: true });
    const pref = recordMemory(a.scope, { category: "preference", text: "I like short commit messages." });
    expect(pref.id).toBeDefined();
    expect(ops(a).map((o) => o.local)).toEqual([r.id]);
  });

  it("does not queue a unit waiting for review", () => {
    const a = open();
    linkTeam(a.db, a.project.id, "name:payments");
    setReviewMode(a.db, a.project.id, true);
    const r = recordMemory(a.scope, { category: "commitment", text: "Never edit files under gen/ by hand." });
    expect(getMemory(a.db, r.id!)?.status).toBe("pending");
    expect(ops(a)).toEqual([]);
  });
});

describe("forgetting", () => {
  it("queues the removal of a shared unit for everyone and leaves no put of it behind", () => {
    const a = open();
    linkTeam(a.db, a.project.id, "name:payments");
    const r = recordMemory(a.scope, { category: "failure", text: "The nightly export failed on a locked table." });
    const [put] = ops(a);
    expect(put).toMatchObject({ op: "put", local: r.id });
    expect(forget(a.scope, { id: r.id! })).toMatchObject({ memories: 1 });
    expect(getMemory(a.db, r.id!)).toBeUndefined();
    expect(ops(a)).toEqual([{ op: "forget", local: null, uid: put!.uid, text: undefined }]);
  });

  it("a forget whose delete fails queues nothing: the unit stays shared under its id, and a retry forgets it", () => {
    const a = open();
    linkTeam(a.db, a.project.id, "name:payments");
    const r = recordMemory(a.scope, { category: "learning", text: "The release job needs the signing key mounted." });
    const [put] = ops(a);
    // The delete fails (a lock held past the busy timeout, a full disk): here a trigger makes it fail.
    a.db.exec("CREATE TEMP TRIGGER no_delete BEFORE DELETE ON memories BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    expect(() => forget(a.scope, { id: r.id! })).toThrow(/disk full/);
    expect(getMemory(a.db, r.id!)).toBeDefined();
    expect(ops(a)).toEqual([put]);
    // The next push or sync queues what was never queued: the unit is not shared a second time under a new id.
    expect(queueDistilledForTeam(a.scope)).toBe(0);
    a.db.exec("DROP TRIGGER no_delete");
    forget(a.scope, { id: r.id! });
    expect(getMemory(a.db, r.id!)).toBeUndefined();
    expect(ops(a)).toEqual([{ op: "forget", local: null, uid: put!.uid, text: undefined }]);
  });

  it("a rejected unit waiting for review is deleted and nothing is queued for it", () => {
    const a = open();
    linkTeam(a.db, a.project.id, "name:payments");
    setReviewMode(a.db, a.project.id, true);
    const r = recordMemory(a.scope, { category: "reasoning", text: "We chose SQLite for the local cache." });
    rejectUnit(a.scope, r.id!);
    expect(getMemory(a.db, r.id!)).toBeUndefined();
    expect(ops(a)).toEqual([]);
  });
});

describe("memory/ alone", () => {
  it("hands the id of an inserted row to its caller, not a merge, and queues nothing itself", () => {
    const a = open();
    linkTeam(a.db, a.project.id, "name:payments");
    const added: number[] = [];
    const text = "Migrations run in one transaction.";
    const r = recordUnit(a.scope, { category: "learning", text }, (id) => added.push(id));
    recordUnit(a.scope, { category: "learning", text }, (id) => added.push(id));
    expect(added).toEqual([r.id]);
    expect(ops(a)).toEqual([]);
  });

  it("hands the ids it is about to delete to its caller while they still exist", () => {
    const a = open();
    const r = recordUnit(a.scope, { category: "learning", text: "Builds cache node_modules." }, () => {});
    let seen: { ids: readonly number[]; stillThere: boolean } | undefined;
    forgetUnits(a.scope, { id: r.id! }, (ids) => {
      seen = { ids, stillThere: getMemory(a.db, r.id!) !== undefined };
    });
    expect(seen).toEqual({ ids: [r.id], stillThere: true });
    expect(getMemory(a.db, r.id!)).toBeUndefined();
  });
});

describe("the fronts record and forget through the composer", () => {
  it("record_memory and forget over MCP, `memcards remember` and `memcards forget` queue for a linked project", async () => {
    const root = tmpDir("memcards-session-memory-fronts-");
    mkdirSync(join(root, "src"));
    const dbPath = join(tmpDir(), "fronts.db");
    const home = tmpDir();
    const linked = openTestApp(root, dbPath);
    const projectId = linked.project.id;
    linkTeam(linked.db, projectId, "name:payments");
    await linked.close();
    const queued = () => {
      const db = openDatabase(dbPath);
      try {
        return pendingOps(db, projectId).map((o) => ({ op: o.op, local: o.local_id }));
      } finally {
        db.close();
      }
    };

    const c = await connect({ flags: { root, db: dbPath, embedder: "offline" }, env: { MEMCARDS_HOME: home } });
    let mcpId: number;
    try {
      const rec = await c.client.callTool({
        name: "record_memory",
        arguments: { category: "commitment", text: "Always tag releases from the main branch." },
      });
      mcpId = (rec.structuredContent as { id: number }).id;
      expect(queued()).toEqual([{ op: "put", local: mcpId }]);
      const f = await c.client.callTool({ name: "forget", arguments: { id: mcpId } });
      expect(f.isError).toBeFalsy();
      expect(queued()).toEqual([{ op: "forget", local: null }]);
    } finally {
      await c.close();
    }

    const cli = (args: string[]) =>
      runCli(["--root", root, "--db", dbPath, "--embedder", "offline", ...args], {
        cwd: root,
        env: { HOME: home, MEMCARDS_HOME: home },
      });
    const r = cli(["remember", "learning", "The staging database is reset every Monday."]);
    expect(r.code, r.stderr).toBe(0);
    const cliId = Number(/\(#(\d+)\)/.exec(r.stdout)?.[1]);
    expect(queued()).toEqual([
      { op: "forget", local: null },
      { op: "put", local: cliId },
    ]);
    expect(cli(["forget", "--id", String(cliId)]).code).toBe(0);
    expect(queued()).toEqual([
      { op: "forget", local: null },
      { op: "forget", local: null },
    ]);
  });

  it("forget over MCP tries to send the removal at once and says it stays queued while the team store is down", async () => {
    const root = tmpDir("memcards-session-memory-send-");
    const dbPath = join(tmpDir(), "send.db");
    const linked = openTestApp(root, dbPath);
    linkTeam(linked.db, linked.project.id, "name:payments");
    await linked.close();
    const env = {
      MEMCARDS_HOME: tmpDir(),
      MEMCARDS_TEAM_URL: `postgres://u:pw@127.0.0.1:${await freePort()}/db?sslmode=disable`,
    };
    const c = await connect({ flags: { root, db: dbPath, embedder: "offline" }, env });
    try {
      const rec = await c.client.callTool({
        name: "record_memory",
        arguments: { category: "learning", text: "The staging database is reset every Monday." },
      });
      const id = (rec.structuredContent as { id: number }).id;
      const f = await c.client.callTool({ name: "forget", arguments: { id } });
      const text = (f.content as { text: string }[])[0]!.text;
      expect(text).toMatch(/^Forgot 1 memory unit, 0 archived turns, 0 summaries\./);
      expect(text).toContain("team store unreachable; 1 change queued");
    } finally {
      await c.close();
    }
  });
});
