// A unit forgotten for the whole team stays unshared: `team forget <uid>` (or a teammate's forget arriving with a
// pull) withdraws the put of the local unit it came from, so neither an edit of that unit nor the next push or sync
// sends it again, under its old id or a new one. No team server is needed: the queue is local, and forget finds the
// team store unreachable and keeps its own operation queued.
import { afterEach, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { editUnit } from "../../src/session/curate.js";
import { recordMemory } from "../../src/session/memory.js";
import { cacheTeamUnits, markSent, pendingOps } from "../../src/storage/team/outbox.js";
import { linkTeam, queueDistilledForTeam } from "../../src/team/queue.js";
import { forgetForTeam } from "../../src/team/service.js";
import { openTestApp } from "../graph/helpers.js";
import { freePort } from "../helpers/postgres.js";
import { tmpDir } from "../helpers/tmp.js";

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const open = () => {
  app = openTestApp(tmpDir("memcards-team-forget-"));
  linkTeam(app.db, app.project.id, "name:payments");
  return app;
};
const ops = (a: App) =>
  pendingOps(a.db, a.project.id).map((o) => ({
    op: o.op,
    uid: o.uid,
    text: (JSON.parse(o.payload ?? "{}") as { text?: string }).text,
  }));
const deps = async (a: App) => ({
  scope: a.scope,
  url: `postgres://u:pw@127.0.0.1:${await freePort()}/db?sslmode=disable`,
  projectKey: "name:payments",
  who: { author: "ann", machine: "ann-laptop" },
});

describe("a unit forgotten for the team", () => {
  for (const sent of [false, true])
    it(`is not sent again when its local unit is edited (put ${sent ? "already sent" : "still queued"})`, async () => {
      const a = open();
      const r = recordMemory(a.scope, { category: "learning", text: "Refunds go through the settlement queue." });
      const [put] = pendingOps(a.db, a.project.id);
      expect(put).toMatchObject({ op: "put", local_id: r.id });
      if (sent) markSent(a.db, put!.seq);

      const f = await forgetForTeam(await deps(a), put!.uid);
      expect(f).toMatchObject({ queued: true, sent: false });
      expect(ops(a)).toEqual([{ op: "forget", uid: put!.uid, text: undefined }]);

      editUnit(a.scope, r.id!, "Refunds go through the settlement queue, never by hand.");
      expect(queueDistilledForTeam(a.scope)).toBe(0);
      // Only the forget waits to be sent: no put under the old id, none under a new one, no text at all.
      expect(ops(a)).toEqual([{ op: "forget", uid: put!.uid, text: undefined }]);
      const rows = a.db.prepare("SELECT payload FROM team_outbox").all() as { payload: string }[];
      expect(rows.map((x) => x.payload).join(" ")).not.toContain("settlement");
    });

  it("is withdrawn when its id is given in capitals, as the team store keeps it in small letters", async () => {
    const a = open();
    const r = recordMemory(a.scope, { category: "learning", text: "Chargebacks are answered within a week." });
    const [put] = pendingOps(a.db, a.project.id);
    markSent(a.db, put!.seq);
    await forgetForTeam(await deps(a), put!.uid.toUpperCase());
    editUnit(a.scope, r.id!, "Chargebacks are answered within five days.");
    expect(ops(a)).toEqual([{ op: "forget", uid: put!.uid, text: undefined }]);
  });

  it("by a teammate, pulled here, is not sent again when its local unit is edited", () => {
    const a = open();
    const r = recordMemory(a.scope, { category: "learning", text: "Invoices are numbered per tenant." });
    const [put] = pendingOps(a.db, a.project.id);
    markSent(a.db, put!.seq);
    cacheTeamUnits(a.db, a.project.id, [], [put!.uid]);
    editUnit(a.scope, r.id!, "Invoices are numbered per tenant and per year.");
    expect(ops(a)).toEqual([]);
  });

  it("leaves other units' edits queued as updates", () => {
    const a = open();
    const r = recordMemory(a.scope, { category: "learning", text: "Invoices are numbered per tenant." });
    const [put] = pendingOps(a.db, a.project.id);
    markSent(a.db, put!.seq);
    editUnit(a.scope, r.id!, "Invoices are numbered per tenant and per year.");
    expect(ops(a)).toEqual([{ op: "put", uid: put!.uid, text: "Invoices are numbered per tenant and per year." }]);
  });

  it("is withdrawn, queued and dropped from the local copy in one write: a failed queueing leaves the put as it was", async () => {
    const a = open();
    recordMemory(a.scope, { category: "learning", text: "Payouts settle on business days only." });
    const [put] = pendingOps(a.db, a.project.id);
    // The forget's row cannot be written (as a full disk would refuse it): nothing of the forget may stay half-done.
    a.db.exec(
      "CREATE TEMP TRIGGER refuse_forget BEFORE INSERT ON team_outbox WHEN NEW.op = 'forget' BEGIN SELECT RAISE(ABORT, 'disk full'); END",
    );
    await expect(forgetForTeam(await deps(a), put!.uid)).rejects.toThrow(/disk full/);
    expect(ops(a)).toEqual([{ op: "put", uid: put!.uid, text: "Payouts settle on business days only." }]);
    a.db.exec("DROP TRIGGER refuse_forget");
    await forgetForTeam(await deps(a), put!.uid);
    expect(ops(a)).toEqual([{ op: "forget", uid: put!.uid, text: undefined }]);
  });
});
