// get_memory_cards draws on the team's units (the local copy a team pull writes), each marked with its author.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { getMemoryCards } from "../../src/cards/service.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { cacheTeamUnits } from "../../src/storage/team/outbox.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

const TASK = "Circle.area in pyproj/shapes/geometry.py returns a negative value when the radius is negative";

describe("memory cards from team units", () => {
  let app: App;
  beforeAll(async () => {
    app = openTestApp(copyPolyglot("team-cards"));
    await buildGraph(app.scope, app, { lexicalOnly: true });
  });
  afterAll(async () => {
    await app.close();
  });

  it("a team rule on the task's code becomes a constraint card naming its author; inactive ones do not", async () => {
    const unit = (n: number, text: string, status = "active", category = "commitment") => ({
      uid: `00000000-0000-0000-0000-00000000000${n}`,
      seq: n,
      category,
      text,
      status,
      author: "alice",
      machine: "alice-laptop",
      created_at: new Date().toISOString(),
    });
    cacheTeamUnits(
      app.db,
      app.project.id,
      [
        unit(1, "Circle.area in geometry.py must raise ValueError for a negative radius."),
        unit(2, "Circle.area in geometry.py may return a negative radius value.", "conflict"),
        unit(3, "Circle.area radius geometry preference text.", "active", "preference"),
      ],
      [],
    );
    const r = await getMemoryCards({ ...app.scope, ranker: app.ranker }, { task: TASK, budgetTokens: 1600 });
    const team = r.cards.filter((c) => c.evidence.includes("by alice"));
    expect(team).toHaveLength(1);
    expect(team[0]).toMatchObject({ kind: "constraint" });
    expect(team[0]!.evidence).toBe(
      'team rule by alice: "Circle.area in geometry.py must raise ValueError for a negative radius."',
    );
    expect(team[0]!.action_hint).toMatch(/^Respect the team's rule \(alice\)/);
  });
});
