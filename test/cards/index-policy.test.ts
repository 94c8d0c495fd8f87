// The indexing policy of get_memory_cards and `memcards cards`: one function, an explicit option for each front.
import { afterEach, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { getMemoryCards } from "../../src/cards/service.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

/** The cards' dependencies of an app: its project and its ranker. */
const cardsDeps = (a: App) => ({ ...a.scope, ranker: a.ranker });

describe("cards on a project with no context graph", () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it("answers NOT_INDEXED without indexFirst (the MCP tool) and builds nothing", async () => {
    app = openTestApp(copyPolyglot());
    await expect(getMemoryCards(cardsDeps(app), { task: "clamp a value" })).rejects.toMatchObject({
      code: "NOT_INDEXED",
    });
    const files = app.db.prepare("SELECT COUNT(*) AS n FROM files").get() as { n: number };
    expect(files.n).toBe(0);
  });

  it("indexes first with indexFirst (the CLI), once, then ranks the fresh graph", async () => {
    const a = openTestApp(copyPolyglot());
    app = a;
    let calls = 0;
    const indexFirst = async () => {
      calls++;
      await buildGraph(a.scope, a);
    };
    const r = await getMemoryCards({ ...cardsDeps(a), indexFirst }, { task: "clamp a value between bounds" });
    expect(calls).toBe(1);
    expect(r.cards.length).toBeGreaterThan(0);
    await getMemoryCards({ ...cardsDeps(a), indexFirst }, { task: "clamp a value between bounds" });
    expect(calls).toBe(1);
  });

  it("still refuses when indexFirst leaves the project without a graph", async () => {
    app = openTestApp(copyPolyglot());
    const r = getMemoryCards({ ...cardsDeps(app), indexFirst: async () => {} }, { task: "clamp a value" });
    await expect(r).rejects.toMatchObject({ code: "NOT_INDEXED" });
  });
});
