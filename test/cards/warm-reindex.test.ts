// The server's warm-up runs the cards path without recording anything, and cards made after an index run show the
// files as that run left them: neither the app's new ranker nor a ranker kept from before the run (its files' symbols,
// bodies and vectors held in memory) serves what the run replaced.
import { appendFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { getMemoryCards, warmCards } from "../../src/cards/service.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { createRanker, type Ranker } from "../../src/retrieval/rank.js";
import { embedPending } from "../../src/vectors/embed-pending.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

const TASK = "wrap_angle_degrees in pyproj/shapes/util.py calls clamp and returns 360 for a full turn instead of 0";
const FILE = "pyproj/shapes/util.py";

/** What the cards for TASK say about `FILE`: the names its file card says it defines, and its symbol cards' names. */
async function cardsOfFile(app: App, ranker: Ranker): Promise<string> {
  const r = await getMemoryCards({ ...app.scope, ranker }, { task: TASK, budgetTokens: 4000 });
  return r.cards
    .filter((c) => c.scope.startsWith(FILE))
    .map((c) => `${c.evidence} ${c.action_hint}`)
    .join("\n");
}

describe("cards: the warm-up, and caches across an index run", () => {
  let root: string;
  let app: App;
  beforeAll(async () => {
    root = copyPolyglot();
    app = openTestApp(root);
    await buildGraph(app.scope, app);
    await embedPending(app.db, app.embedding.embedder);
  });
  afterAll(async () => {
    await app.close();
  });

  it("warms the cards path without recording a served card", async () => {
    const served = () => (app.db.prepare("SELECT count(*) AS n FROM cards_served").get() as { n: number }).n;
    const before = served();
    app.ranker.warm();
    await app.ranker.warmed();
    // It ran the path (a ranker nothing had used yet), and stored nothing.
    expect(await warmCards({ ...app.scope, ranker: app.ranker })).toBe(true);
    expect(served()).toBe(before);
  });

  it("runs no second cards call once a real call has used the ranker (the path is warm, the call's CPU is the user's)", async () => {
    const ranker = createRanker(app.db, { embedder: app.embedding.embedder, root: app.scope.root });
    await getMemoryCards({ ...app.scope, ranker }, { task: TASK });
    expect(await warmCards({ ...app.scope, ranker })).toBe(false);
  });

  it("serves a file's new symbols after the index run that added them, from a new ranker and from a kept one", async () => {
    const kept = app.ranker;
    kept.warm();
    await kept.warmed();
    // The file is ranked, and its symbols, bodies and vectors read, before it changes.
    const first = await cardsOfFile(app, kept);
    expect(first).toMatch(/clamp/);
    expect(first).not.toMatch(/wrap_angle_degrees/);

    appendFileSync(join(root, FILE), "\n\ndef wrap_angle_degrees(angle):\n    return clamp(angle % 360, 0, 360)\n");
    await buildGraph(app.scope, app, { paths: [FILE] });
    await embedPending(app.db, app.embedding.embedder);

    expect(app.ranker).not.toBe(kept);
    expect(await cardsOfFile(app, app.ranker)).toMatch(/wrap_angle_degrees/);
    // A ranker kept across the run (a worker between two checks of the index's stamp) reads the file again.
    expect(await cardsOfFile(app, kept)).toMatch(/wrap_angle_degrees/);
  });
});
