// Utility components, packing and the card audit: pure functions, tested with tables of cases.
import { describe, expect, it } from "vitest";

import { auditCards, makeCard } from "../../src/scoring/cards.js";
import { pack, type PackInput } from "../../src/scoring/pack.js";
import type { Candidate } from "../../src/scoring/schema.js";
import { components, utilityOf } from "../../src/scoring/utility.js";

function cand(over: Omit<Partial<Candidate>, "signals"> & { signals?: Partial<Candidate["signals"]> } = {}): Candidate {
  const { signals, ...rest } = over;
  return {
    key: "file:src/a.py",
    kind: "file",
    path: "src/a.py",
    text: "def parse(x)",
    raw_tokens: 120,
    about: {},
    ...rest,
    signals: {
      channels: { bm25: 1 },
      anchor_hit: false,
      graph_distance: 0,
      overlap: 0.2,
      stale: false,
      conflict: false,
      off_scope: false,
      fused_rank: 3,
      ...signals,
    },
  };
}

const u = (c: Candidate, tokens = 80) => utilityOf(components(c, tokens));

describe("utility components", () => {
  it("respond to their own signals", () => {
    const plain = cand();
    const k = components(plain, 80);
    expect(components(cand({ signals: { anchor_hit: true } }), 80).actionShift).toBeGreaterThan(k.actionShift);
    expect(components(cand({ signals: { fused_rank: 1 } }), 80).actionShift).toBeGreaterThan(k.actionShift);
    expect(components(cand({ signals: { fused_rank: 1 } }), 80).necessity).toBeGreaterThan(k.necessity);
    const rule = cand({ kind: "rule", key: "rule:AGENTS.md" });
    expect(components({ ...rule, signals: { ...rule.signals, anchor_hit: true } }, 80).necessity).toBeGreaterThan(
      components(rule, 80).necessity,
    );
    expect(components(cand({ signals: { outcome: { helped: 4, total: 4 } } }), 80).outcomeUplift).toBeGreaterThan(
      k.outcomeUplift,
    );
    expect(components(cand({ signals: { outcome: { helped: 0, total: 4 } } }), 80).outcomeUplift).toBeLessThan(
      k.outcomeUplift,
    );
    expect(components(cand({ signals: { stale: true } }), 80).risk).toBeGreaterThan(0);
    expect(components(cand({ signals: { conflict: true } }), 80).risk).toBeGreaterThan(0);
    expect(components(cand({ signals: { off_scope: true } }), 80).risk).toBeGreaterThan(0);
    expect(components(plain, 900).cost).toBeGreaterThan(k.cost);
    expect(k.risk).toBe(0);
  });

  it("rank stale, conflicting and off-scope units below the same unit without the risk", () => {
    const clean = u(cand());
    for (const risk of [{ stale: true }, { conflict: true }, { off_scope: true }])
      expect(u(cand({ signals: risk }))).toBeLessThan(clean);
    // The weights of design.md §4.
    const k = { actionShift: 1, necessity: 1, outcomeUplift: 1, risk: 1, cost: 1 };
    expect(utilityOf(k)).toBeCloseTo(0.34 + 0.26 + 0.28 - 0.22 - 0.08, 10);
  });

  it("give a user constraint that the task touches more weight than an unrelated one", () => {
    const on = cand({
      kind: "constraint",
      key: "constraint:t1",
      signals: { overlap: 0.8, graph_distance: 0, fused_rank: undefined, channels: {} },
    });
    const off = cand({
      kind: "constraint",
      key: "constraint:t2",
      signals: { overlap: 0, graph_distance: 2, fused_rank: undefined, channels: {} },
    });
    expect(u(on)).toBeGreaterThan(u(off));
  });
});

function item(
  id: string,
  utility: number,
  tokens: number,
  over: Partial<PackInput> & { raw?: number; evidence?: string; kind?: Candidate["kind"] } = {},
): PackInput {
  const card = makeCard(
    cand({ key: id, kind: over.kind ?? "file", raw_tokens: over.raw ?? tokens, path: `src/${id}.py` }),
    components(cand(), tokens),
    utility,
    id,
  );
  return {
    card: { ...card, tokens, evidence: over.evidence ?? `${id} evidence words ${id}` },
    governing: over.governing ?? false,
    blocked: over.blocked ?? false,
  };
}

describe("packing", () => {
  it("never exceeds the budget, in either mode, for any budget", () => {
    const items = Array.from({ length: 30 }, (_, i) =>
      item(`u${i}`, 0.2 + ((i * 37) % 50) / 100, 40 + ((i * 53) % 200), { raw: 60 + ((i * 71) % 900) }),
    );
    for (const budget of [50, 120, 200, 400, 800, 1600, 5000]) {
      for (const mode of ["post_selection", "pre_budget"] as const) {
        const r = pack(items, budget, mode);
        const spent = r.selected.reduce((a, id) => a + items.find((x) => x.card.id === id)!.card.tokens, 0);
        expect(spent).toBe(r.tokens);
        expect(spent).toBeLessThanOrEqual(budget);
      }
    }
  });

  it("fits more units when compressing first than when choosing on raw cost", () => {
    const items = Array.from({ length: 12 }, (_, i) => item(`u${i}`, 0.5, 60, { raw: 300 }));
    const post = pack(items, 600, "post_selection");
    const pre = pack(items, 600, "pre_budget");
    expect(post.selected.length).toBe(2);
    expect(pre.selected.length).toBe(10);
  });

  it("reserves room for governing rules, skips near-duplicates and blocked conflicts", () => {
    const items = [
      item("big", 0.5, 380),
      item("rule", 0.1, 90, { governing: true, kind: "rule" }),
      item("dup1", 0.6, 50, { evidence: "same words about parse in src/x.py" }),
      item("dup2", 0.55, 50, { evidence: "same words about parse in src/x.py" }),
      item("bad", 0.95, 30, { blocked: true }),
    ];
    const r = pack(items, 500, "pre_budget");
    expect(r.selected).toContain("rule");
    expect(r.selected).toContain("dup1");
    expect(r.selected).not.toContain("dup2");
    expect(r.selected).not.toContain("bad");
    expect(r.skipped).toEqual(
      expect.arrayContaining([
        { id: "dup2", reason: "duplicate" },
        { id: "bad", reason: "conflict" },
      ]),
    );
    // Without the reserve the rule would lose to the big card.
    const noReserve = pack(items, 500, "pre_budget", { ruleReserve: 0 });
    expect(noReserve.selected).not.toContain("rule");
  });

  it("judges each item by its own words, also when two items carry one card id", () => {
    // A test file is both a file card and a test card: one key, one id, two texts.
    const words = "same words about parse in src/x.py and the config loader it reads";
    const items = [
      item("a", 0.9, 60, { evidence: words }),
      item("x", 0.6, 100, { evidence: "nothing alike here at all" }),
      item("x", 0.2, 40, { kind: "test", evidence: words }),
    ];
    const r = pack(items, 120, "pre_budget");
    expect(r.selected).toEqual(["a"]);
  });

  it("serves the highest-utility card whenever it fits, before cheaper lower ones", () => {
    const items = [item("top", 0.67, 180, { raw: 400 }), item("s1", 0.41, 70), item("s2", 0.41, 72)];
    for (const mode of ["post_selection", "pre_budget"] as const) {
      const r = pack(items, 300, mode);
      expect(r.selected[0]).toBe("top");
      expect(r.tokens).toBeLessThanOrEqual(300);
    }
    // Too big for the budget: the others are served instead.
    expect(pack(items, 150, "pre_budget").selected).toEqual(["s1", "s2"]);
  });

  it("serves a test covering a served file when room remains, even after raw costs used up the selection", () => {
    const file = (id: string, u: number) => item(id, u, 110, { raw: 400 });
    const test = item("t", 0.3, 107, { kind: "test", raw: 400 });
    test.card.scope = "src/f1.py";
    const other = item("t2", 0.35, 100, { kind: "test", raw: 400 });
    other.card.scope = "src/elsewhere.py";
    const items = [file("f1", 0.6), file("f2", 0.5), file("f3", 0.45), test, other];
    const r = pack(items, 1200, "post_selection");
    expect(r.selected).toContain("t");
    expect(r.selected).not.toContain("t2");
    expect(r.skipped.find((s) => s.id === "t")).toBeUndefined();
    expect(r.tokens).toBeLessThanOrEqual(1200);
    // No room left: no test.
    expect(pack(items, 200, "post_selection").selected).toEqual(["f1"]);
  });
});

describe("card audit", () => {
  it("passes generated cards of every kind and flags broken ones", () => {
    const kinds: Candidate["kind"][] = ["file", "symbol", "test", "rule", "constraint", "failure"];
    const cards = kinds.map((kind, i) =>
      makeCard(
        cand({
          kind,
          key: `k${i}`,
          name: "parse",
          lines: [3, 9],
          about: { covers: "src/a.py", governs: "src/", turn: "t4", kind: "function" },
        }),
        components(cand(), 60),
        0.5,
        `c${i}`,
      ),
    );
    const a = auditCards(cards);
    expect(a).toMatchObject({ cards: 6, fieldCompleteness: 1, actionHints: 1, noPlaceholders: 1, problems: [] });
    const broken = auditCards([
      { ...cards[0]!, action_hint: "maybe look at it", scope: "" },
      { ...cards[1]!, evidence: "see {path}" },
    ]);
    expect(broken.fieldCompleteness).toBe(0.5);
    expect(broken.actionHints).toBe(0.5);
    expect(broken.noPlaceholders).toBe(0.5);
    expect(broken.problems.length).toBe(3);
  });
});
