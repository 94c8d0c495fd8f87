// The viewer's changes that the team shares (edit, forget, approve, reject) are sent at once when the project is
// linked and a team URL is set, and the flash says when they stay queued because the team store is unreachable.
import { afterEach, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { setReviewMode } from "../../src/memory/review.js";
import { recordMemory } from "../../src/session/memory.js";
import { pendingOps } from "../../src/storage/team/outbox.js";
import { linkTeam } from "../../src/team/queue.js";
import { startUi } from "../../src/ui/server.js";
import { openTestApp } from "../graph/helpers.js";
import { freePort } from "../helpers/postgres.js";
import { tmpDir } from "../helpers/tmp.js";
import { login } from "./client.js";

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const flash = (r: Response) => new URL(r.headers.get("location") ?? "", "http://x").searchParams.get("msg");

describe("the viewer's shared changes", () => {
  it("say they stay queued while the team store is unreachable", async () => {
    const a = (app = openTestApp(tmpDir("memcards-ui-team-")));
    linkTeam(a.db, a.project.id, "name:payments");
    a.config.team.url = `postgres://u:pw@127.0.0.1:${await freePort()}/db?sslmode=disable`;
    const kept = recordMemory(a.scope, { category: "learning", text: "Refunds go through the settlement queue." });
    const gone = recordMemory(a.scope, { category: "learning", text: "Invoices are numbered per tenant." });
    setReviewMode(a.db, a.project.id, true);
    const waiting = recordMemory(a.scope, { category: "learning", text: "Payouts settle on the third day." });
    const ui = await startUi(a);
    try {
      const c = await login(ui);
      const edit = await c.post(`/memory/${kept.id}/edit`, { text: "Refunds go through the settlement queue only." });
      expect(flash(edit)).toBe(`unit #${kept.id} saved; team store unreachable; 2 changes queued`);
      const f = await c.post(`/memory/${gone.id}/forget`);
      expect(flash(f)).toMatch(new RegExp(`^unit #${gone.id} forgotten; team store unreachable; \\d+ changes queued$`));
      const ap = await c.post(`/memory/${waiting.id}/approve`);
      expect(flash(ap)).toMatch(/approved; team store unreachable; \d+ changes queued$/);
      // The edited unit's put (new wording), the forgotten one's removal (its unsent put withdrawn), the approved unit.
      expect(pendingOps(a.db, a.project.id).map((o) => o.op)).toEqual(["put", "forget", "put"]);
    } finally {
      await ui.close();
    }
  });
});
