// Curation through the viewer's routes: an edit rewrites the unit's full-text entry, its graph node (summary, node
// index, vector text re-queued) and the copy queued for the team, and empties the WAL; an approval queues the unit
// for the team; a unit waiting for review has no node to rewrite; a unit whose row is gone by the write is left
// alone. No team server is needed: the queue is local.
import { statSync } from "node:fs";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { writeUnits } from "../../src/memory/distill.js";
import { setReviewMode } from "../../src/memory/review.js";
import type { UnitDraft } from "../../src/memory/schema.js";
import { searchMemory } from "../../src/memory/service.js";
import { getNodeByKey } from "../../src/storage/graph/nodes.js";
import { getMemory, listMemories } from "../../src/storage/memories.js";
import { pendingOps } from "../../src/storage/team/outbox.js";
import { linkTeam, queueUnitForTeam } from "../../src/team/queue.js";
import { startUi, type UiHandle } from "../../src/ui/server.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";
import { leaked } from "../security/canaries.js";
import { login, type UiClient } from "../ui/client.js";

let app: App;
let ui: UiHandle;
let client: UiClient;

beforeEach(async () => {
  app = openTestApp(tmpDir("memcards-curate-"));
  ui = await startUi(app);
  client = await login(ui);
});

afterEach(async () => {
  await ui?.close();
  await app?.close();
});

const draft = (text: string): UnitDraft => ({
  category: "learning",
  text,
  record: { proposition: text },
  key: text,
  confidence: 0.9,
  evidence: [{ session: "s", turn: "1", quote: text }],
  files: [],
});

const store = (text: string) => {
  writeUnits(app.db, app.project.id, "s1", [], [draft(text)], { pending: false });
  return listMemories(app.db, app.project.id, { includeInactive: true }).find((m) => m.text === text)!.id;
};
const hitIds = (query: string) => searchMemory(app.scope, { query }).hits.map((h) => h.id);
const nodeHits = (word: string) =>
  (app.db.prepare("SELECT rowid AS id FROM nodes_fts WHERE nodes_fts MATCH ?").all(word) as { id: number }[]).map(
    (r) => r.id,
  );
const nodeVector = (nodeId: number) =>
  app.db.prepare("SELECT text, embedded FROM vector_items WHERE owner_type = 'node' AND owner_id = ?").get(nodeId) as
    { text: string; embedded: number } | undefined;
/** The flash a change redirects with (`msg`, or `err` for a refused change). */
const flash = (r: Response) => {
  const q = new URL(r.headers.get("location") ?? "", "http://x").searchParams;
  return { msg: q.get("msg"), err: q.get("err") };
};
const queuedPuts = () =>
  pendingOps(app.db, app.project.id)
    .filter((o) => o.op === "put")
    .map((o) => ({ local: o.local_id, text: (JSON.parse(o.payload ?? "{}") as { text?: string }).text }));

describe("editing a unit from the viewer", () => {
  it("rewrites its full-text entry, graph node and vector text, requeues its team copy and empties the WAL", async () => {
    linkTeam(app.db, app.project.id, "name:payments");
    const id = store("Deploys go through the bluegreen switch.");
    const node = getNodeByKey(app.db, `memory:${id}`)!;
    expect(node).toBeDefined();
    app.db.prepare("UPDATE vector_items SET embedded = 1 WHERE owner_type = 'node' AND owner_id = ?").run(node.id);
    // Queued for the team with its old wording: the edit must rewrite that put, not add another.
    queueUnitForTeam(app.scope, id);
    expect(queuedPuts()).toEqual([{ local: id, text: "Deploys go through the bluegreen switch." }]);
    expect(hitIds("bluegreen")).toEqual([id]);

    const r = await client.post(`/memory/${id}/edit`, { text: "Deploys go through the canary lane." });
    expect(r.status).toBe(303);
    expect(flash(r).msg).toBe(`unit #${id} saved`);

    expect(getMemory(app.db, id)?.text).toBe("Deploys go through the canary lane.");
    expect(hitIds("bluegreen")).toEqual([]);
    expect(hitIds("canary lane")).toEqual([id]);
    const after = getNodeByKey(app.db, `memory:${id}`)!;
    expect(after.id).toBe(node.id);
    expect(after.summary).toBe("Deploys go through the canary lane.");
    expect(nodeHits("bluegreen")).toEqual([]);
    expect(nodeHits("canary")).toEqual([node.id]);
    expect(nodeVector(node.id)).toEqual({ text: "learning: Deploys go through the canary lane.", embedded: 0 });
    expect(queuedPuts()).toEqual([{ local: id, text: "Deploys go through the canary lane." }]);
    expect(leaked(app.dbPath, ["bluegreen"])).toEqual([]);
    expect(statSync(`${app.dbPath}-wal`).size).toBe(0);
  });

  it("rewrites a unit waiting for review without giving it a node, and approval queues it for the team", async () => {
    linkTeam(app.db, app.project.id, "name:payments");
    setReviewMode(app.db, app.project.id, true);
    writeUnits(app.db, app.project.id, "s1", [], [draft("Tag releases from main only.")], { pending: true });
    const id = listMemories(app.db, app.project.id, { includeInactive: true }).find((m) => m.status === "pending")!.id;
    expect(queuedPuts()).toEqual([]);

    expect((await client.post(`/memory/${id}/edit`, { text: "Tag releases from the release branch." })).status).toBe(
      303,
    );
    expect(getMemory(app.db, id)?.text).toBe("Tag releases from the release branch.");
    expect(getNodeByKey(app.db, `memory:${id}`)).toBeUndefined();
    expect(queuedPuts()).toEqual([]);

    const approved = await client.post(`/memory/${id}/approve`);
    expect(flash(approved).msg).toBe(`unit #${id} approved`);
    expect(getMemory(app.db, id)?.status).toBe("active");
    expect(getNodeByKey(app.db, `memory:${id}`)?.summary).toBe("Tag releases from the release branch.");
    expect(queuedPuts()).toEqual([{ local: id, text: "Tag releases from the release branch." }]);
  });

  it("answers an edit of a unit of no such id with the error on the page it came from, changing nothing", async () => {
    const id = store("Caches expire after an hour.");
    const r = await client.post(`/memory/${id + 1000}/edit`, { text: "anything" });
    expect(r.status).toBe(303);
    expect(flash(r).err).toBe(`no memory unit #${id + 1000} in this project`);
    expect(getMemory(app.db, id)?.text).toBe("Caches expire after an hour.");
  });

  it("leaves the indexes and the team copy alone when the unit's row is no longer there to rewrite", async () => {
    linkTeam(app.db, app.project.id, "name:payments");
    const id = store("Migrations run before the deploy.");
    queueUnitForTeam(app.scope, id);
    const node = getNodeByKey(app.db, `memory:${id}`)!;
    // As if another process forgot the unit between the read and the write: the row's update changes nothing.
    app.db.exec("CREATE TEMP TRIGGER hold_text BEFORE UPDATE OF text ON memories BEGIN SELECT RAISE(IGNORE); END");
    await client.post(`/memory/${id}/edit`, { text: "Migrations run after the deploy." });
    app.db.exec("DROP TRIGGER temp.hold_text");
    expect(getMemory(app.db, id)?.text).toBe("Migrations run before the deploy.");
    expect(hitIds("before deploy")).toEqual([id]);
    expect(getNodeByKey(app.db, `memory:${id}`)?.summary).toBe(node.summary);
    expect(nodeHits("after")).toEqual([]);
    expect(queuedPuts()).toEqual([{ local: id, text: "Migrations run before the deploy." }]);
  });
});
