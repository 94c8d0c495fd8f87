// get_memory_cards on the polyglot fixture: the file, symbol, test and rule for a task; session units;
// staleness; outcomes changing a later ranking; bad input.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { getMemoryCards, recordOutcome } from "../../src/cards/service.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { compressContext } from "../../src/session/compress.js";
import { servedCard } from "../../src/storage/cards.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";
import { copyPolyglot } from "../repo/fixture.js";

/** The cards' dependencies of an app: its project and its ranker. */
const cardsDeps = (a: App) => ({ ...a.scope, ranker: a.ranker });

const TASK = "Circle.area in pyproj/shapes/geometry.py returns a negative value when the radius is negative";

describe("memory cards on the polyglot fixture", () => {
  let root: string;
  let app: App;
  beforeAll(async () => {
    root = copyPolyglot();
    app = openTestApp(root);
    await buildGraph(app.scope, app);
  });
  afterAll(async () => {
    await app.close();
  });

  it("serves the file and symbol to edit, the covering test and the governing rule, within the budget", async () => {
    const r = await getMemoryCards(cardsDeps(app), { task: TASK, budgetTokens: 1600, mode: "pre_budget" });
    expect(r.tokens).toBeLessThanOrEqual(1600);
    expect(r.cards.reduce((a, c) => a + c.tokens, 0)).toBe(r.tokens);
    const top = r.cards[0]!;
    expect(top.scope).toMatch(/^pyproj\/shapes\/geometry\.py/);
    const kinds = new Set(r.cards.map((c) => c.kind));
    expect([...kinds]).toEqual(expect.arrayContaining(["file", "symbol", "test", "rule"]));
    const test = r.cards.find((c) => c.kind === "test")!;
    expect(test.action_hint).toBe("Run pyproj/tests/test_geometry.py and add a case for this task");
    const rule = r.cards.find((c) => c.kind === "rule" && c.evidence.startsWith(".cursor/rules/python-style.mdc"));
    expect(rule?.scope).toContain("pyproj/shapes/geometry.py");
    const sym = r.cards.find((c) => c.kind === "symbol" && c.scope.startsWith("pyproj/shapes/geometry.py:"))!;
    expect(sym.evidence).toMatch(/^method area at pyproj\/shapes\/geometry\.py:\d+-\d+/);
    expect(r.audit).toMatchObject({ fieldCompleteness: 1, actionHints: 1, noPlaceholders: 1 });
    // Both modes are reported; choosing on raw cost fits no more units than compressing first.
    expect(r.selected.post_selection.length).toBeLessThanOrEqual(r.selected.pre_budget.length);
    expect(servedCard(app.db, app.project.id, top.id)?.unit_key).toBe(top.source);
    // A served card is stored as stores have always held it: its components' keys in snake_case.
    const stored = servedCard(app.db, app.project.id, top.id)!.card as { components: Record<string, number> };
    expect(Object.keys(stored.components).sort()).toEqual([
      "action_shift",
      "cost",
      "necessity",
      "outcome_uplift",
      "risk",
    ]);
    expect(stored.components.outcome_uplift).toBe(top.components.outcomeUplift);
  });

  it("holds any budget from 50 tokens up", async () => {
    for (const budget of [50, 120, 200, 400, 800]) {
      for (const mode of ["post_selection", "pre_budget"] as const) {
        const r = await getMemoryCards(cardsDeps(app), { task: TASK, budgetTokens: budget, mode });
        expect(r.tokens).toBeLessThanOrEqual(budget);
      }
    }
  });

  it("takes part the session's user constraints and failures", async () => {
    compressContext(
      { db: app.db, projectId: app.project.id, root },
      {
        sessionId: "s-geo",
        keepRecent: 0,
        messages: [
          {
            role: "user",
            content: "Never change the public signature of Circle.area in geometry.py; keep the float return type.",
          },
          { role: "assistant", content: "Understood." },
        ],
      },
    );
    const r = await getMemoryCards(cardsDeps(app), {
      task: TASK,
      sessionId: "s-geo",
      budgetTokens: 1600,
      mode: "pre_budget",
    });
    const c = r.cards.find((x) => x.kind === "constraint");
    expect(c?.evidence).toContain("Never change the public signature of Circle.area");
    expect(c?.action_hint).toMatch(/^Respect /);
    // Without a session: the project's warm memory units from earlier sessions take part too.
    const later = await getMemoryCards(cardsDeps(app), { task: TASK, budgetTokens: 1600, mode: "pre_budget" });
    expect(later.cards.find((x) => x.kind === "constraint")?.evidence).toContain(
      "Never change the public signature of Circle.area",
    );
    const none = await getMemoryCards(cardsDeps(app), { task: TASK, sessionId: "nope" });
    expect(none.notes.join(" ")).toMatch(/no stored summary/);
  });

  it("flags a card whose file changed since indexing as stale, never silently", async () => {
    const own = copyPolyglot("stale");
    const a = openTestApp(own);
    try {
      await buildGraph(a.scope, a, { lexicalOnly: true });
      appendFileSync(join(own, "pyproj/shapes/geometry.py"), "\n# edited after indexing\n");
      const r = await getMemoryCards(cardsDeps(a), { task: TASK, budgetTokens: 1600 });
      const geo = r.cards.filter(
        (c) => (c.kind === "file" || c.kind === "symbol") && c.scope.startsWith("pyproj/shapes/geometry.py"),
      );
      expect(geo.length).toBeGreaterThan(0);
      for (const c of geo) {
        expect(c.stale).toBe(true);
        expect(c.components.risk).toBeGreaterThan(0);
      }
      expect(r.notes.join(" ")).toMatch(/changed since indexing/);
    } finally {
      await a.close();
    }
  });

  it("lets reported outcomes change a later ranking", async () => {
    const own = copyPolyglot("outcomes");
    const a = openTestApp(own);
    try {
      await buildGraph(a.scope, a, { lexicalOnly: true });
      const task = "the area of a circle is wrong";
      const before = await getMemoryCards(cardsDeps(a), {
        task,
        kinds: ["file"],
        budgetTokens: 2000,
        mode: "pre_budget",
      });
      const order = before.cards.map((c) => c.scope);
      const loser = before.cards[0]!;
      const winner =
        before.cards.find((c) => c.id !== loser.id && c.scope === "pyproj/shapes/geometry.py") ?? before.cards[1]!;
      expect(loser.id).not.toBe(winner.id);
      const deps = {
        db: a.db,
        projectId: a.project.id,
        unitKeyOfCard: (id: string) => servedCard(a.db, a.project.id, id)?.unit_key,
      };
      // Enough consistent reports to outweigh the retrieval gap between the two files (the loser's fused score
      // is about twice the winner's on this fixture).
      for (let i = 0; i < 12; i++) recordOutcome(deps, { helped: [winner.id], notHelpful: [loser.id] });
      const after = await getMemoryCards(cardsDeps(a), {
        task,
        kinds: ["file"],
        budgetTokens: 2000,
        mode: "pre_budget",
      });
      const w = after.cards.find((c) => c.id === winner.id)!;
      const l = after.cards.find((c) => c.id === loser.id)!;
      expect(w.components.outcomeUplift).toBeGreaterThan(
        before.cards.find((c) => c.id === winner.id)!.components.outcomeUplift,
      );
      expect(after.cards.map((c) => c.scope).indexOf(w.scope)).toBeLessThan(
        after.cards.map((c) => c.scope).indexOf(l.scope),
      );
      expect(order.indexOf(winner.scope)).toBeGreaterThan(order.indexOf(loser.scope));
      expect(() => recordOutcome(deps, { helped: ["cnope"] })).toThrow(/no card with id cnope/);
    } finally {
      await a.close();
    }
  });

  it("gives clear errors: empty task, tiny budget, unindexed project; reads a 1 MB task in part", async () => {
    await expect(getMemoryCards(cardsDeps(app), { task: "   " })).rejects.toThrow(/task is empty/);
    await expect(getMemoryCards(cardsDeps(app), { task: TASK, budgetTokens: 0 })).rejects.toThrow(/budget_tokens|>=50/);
    await expect(getMemoryCards(cardsDeps(app), { task: TASK, budgetTokens: -5 })).rejects.toThrow();
    const huge = `${TASK}\n${"log line with noise 12345\n".repeat(40_000)}`;
    expect(huge.length).toBeGreaterThan(1_000_000 - 100_000);
    const r = await getMemoryCards(cardsDeps(app), { task: huge.slice(0, 1_000_000) });
    expect(r.notes[0]).toMatch(/first 20000 were used/);
    // The first code card is still the task's file; the noise only lowers how confident the pack is.
    expect(r.cards.find((c) => c.kind === "file" || c.kind === "symbol")?.scope).toMatch(
      /^pyproj\/shapes\/geometry\.py/,
    );
    const empty = tmpDir();
    writeFileSync(join(empty, "x.py"), "x = 1\n");
    const fresh = openTestApp(empty);
    try {
      await expect(getMemoryCards(cardsDeps(fresh), { task: TASK })).rejects.toThrow(/build_context_graph/);
    } finally {
      await fresh.close();
    }
  });
});

describe("memory cards on a file of many definitions", () => {
  let app: App;
  beforeAll(async () => {
    const root = join(tmpDir(), "repo");
    mkdirSync(join(root, "pkg"), { recursive: true });
    // 450 functions: the one the task names is defined past the file's 400th node.
    const defs = Array.from({ length: 450 }, (_, i) => `def step_${i}(x):\n    return x + ${i}\n`).join("\n");
    writeFileSync(join(root, "pkg", "steps.py"), defs);
    writeFileSync(join(root, "pkg", "other.py"), "def unrelated(y):\n    return y\n");
    app = openTestApp(root);
    await buildGraph(app.scope, app);
  });
  afterAll(async () => {
    await app.close();
  });

  it("names the definition the task names, wherever it sits in the file", async () => {
    const r = await getMemoryCards(cardsDeps(app), { task: "fix step_440 in pkg/steps.py", budgetTokens: 1200 });
    const line = 1 + 3 * 440;
    expect(r.cards.map((c) => c.scope)).toContain(`pkg/steps.py:${line}-${line + 1}`);
    const file = r.cards.find((c) => c.kind === "file" && c.scope === "pkg/steps.py");
    expect(file?.evidence).toContain(`step_440 (L${line})`);
  });
});
