// get_memory_cards, record_outcome and memcards://cards/{id} through a real MCP client.
import { describe, expect, it } from "vitest";

import { countTokens } from "../../src/text/tokens.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";
import { copyPolyglot } from "../repo/fixture.js";

type Structured = Record<string, unknown>;
const TASK = "Circle.area in pyproj/shapes/geometry.py returns a negative value when the radius is negative";

describe("cards over MCP", () => {
  it("asks for an index first, then serves small results, records outcomes and serves each card by id", async () => {
    const root = copyPolyglot();
    const c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const st = await c.client.callTool({ name: "status", arguments: {} });
      expect((st.structuredContent as Structured).client_sampling).toBe(false);
      const early = await c.client.callTool({ name: "get_memory_cards", arguments: { task: TASK } });
      expect(early.isError).toBe(true);
      expect(textOf(early)).toMatch(/^NOT_INDEXED: .*build_context_graph/);

      const built = await c.client.callTool({ name: "build_context_graph", arguments: {} }, undefined, {
        timeout: 120_000,
      });
      expect(built.isError).toBeFalsy();

      const res = await c.client.callTool({ name: "get_memory_cards", arguments: { task: TASK } });
      expect(res.isError).toBeFalsy();
      const text = textOf(res);
      expect(text).toMatch(/^### 1\. (file|symbol): pyproj\/shapes\/geometry\.py/);
      expect(text).toContain("- do: ");
      const s = res.structuredContent as Structured;
      const cards = s.cards as { id: string; kind: string; scope: string; utility: number }[];
      expect(cards.length).toBeGreaterThan(2);
      expect(s.tokens as number).toBeLessThanOrEqual(1200);
      expect(s.route).toBe("deterministic");
      expect(s.audit).toBeUndefined();
      // Results stay small: the cards as markdown within the budget, the structured part a list of ids.
      expect(countTokens(text)).toBeLessThan(1200 + 100);
      expect(countTokens(JSON.stringify(s))).toBeLessThan(60 * cards.length + 60);

      const verbose = await c.client.callTool({ name: "get_memory_cards", arguments: { task: TASK, verbose: true } });
      const vs = verbose.structuredContent as Structured;
      expect(vs.audit).toMatchObject({ field_completeness: 1, action_hints: 1 });
      expect(Object.keys(vs.selected as object).sort()).toEqual(["post_selection", "pre_budget"]);

      const done = await c.client.complete({
        ref: { type: "ref/resource", uri: "memcards://cards/{id}" },
        argument: { name: "id", value: cards[0]!.id.slice(0, 4) },
      });
      expect(done.completion.values).toContain(cards[0]!.id);
      const card = await c.client.readResource({ uri: `memcards://cards/${cards[0]!.id}` });
      const body = JSON.parse((card.contents[0] as { text: string }).text) as Structured;
      expect(body.id).toBe(cards[0]!.id);
      expect(body.task).toBe(TASK);
      expect(body.components).toBeDefined();

      const rec = await c.client.callTool({
        name: "record_outcome",
        arguments: { helped: [cards[0]!.id], edited_files: ["pyproj/shapes/geometry.py"] },
      });
      expect(textOf(rec)).toBe("Recorded 2 outcomes.");
      const bad = await c.client.callTool({ name: "record_outcome", arguments: { helped: ["cnope"] } });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/^NOT_FOUND: no card with id cnope/);

      const zero = await c.client.callTool({ name: "get_memory_cards", arguments: { task: TASK, budget_tokens: 0 } });
      expect(zero.isError).toBe(true);
      expect(textOf(zero)).toMatch(/budget_tokens/);
      const empty = await c.client.callTool({ name: "get_memory_cards", arguments: { task: "" } });
      expect(empty.isError).toBe(true);
      expect(textOf(empty)).toMatch(/task is empty/);
    } finally {
      await c.close();
    }
  });
});

describe("the judge route", () => {
  const answer = (shift: number) =>
    JSON.stringify({
      no_context_action: "edit the wrong file",
      with_context_action: "edit geometry.py",
      action_shift: shift,
      necessity: 0.9,
      expected_outcome_uplift: 0.9,
      negative_transfer_risk: 0,
      reason: "names the method",
      confidence: 1,
    });

  it("lets a sampling client's model judge the top candidates, and falls back when it answers badly", async () => {
    const root = copyPolyglot();
    const prompts: string[] = [];
    const c = await connect({
      flags: { root, embedder: "offline" },
      env: { MEMCARDS_HOME: tmpDir() },
      sampling: (p) => {
        prompts.push(p);
        return /Context \((file|symbol) pyproj\/shapes\/geometry\.py/.test(p) ? `Here you go: ${answer(1)}` : "no idea";
      },
    });
    try {
      await c.client.callTool({ name: "build_context_graph", arguments: {} }, undefined, { timeout: 120_000 });
      const res = await c.client.callTool({ name: "get_memory_cards", arguments: { task: TASK, verbose: true } });
      const s = res.structuredContent as Structured;
      expect(prompts.length).toBeGreaterThan(0);
      expect(prompts.length).toBeLessThanOrEqual(6);
      expect(prompts[0]).toContain('"action_shift": 0-1');
      expect(s.route).toBe("judge");
      expect(s.judged as number).toBeGreaterThan(0);
      expect(s.judged as number).toBeLessThan(prompts.length);
      const comps = s.components as { id: string; action_shift: number }[];
      expect(comps.some((k) => k.action_shift === 1)).toBe(true);
      expect(textOf(res)).toMatch(/answered \d+ of \d+ judge requests/);

      const status = await c.client.callTool({ name: "status", arguments: {} });
      expect((status.structuredContent as Structured).client_sampling).toBe(true);
      expect(textOf(status)).toContain("client sampling: offered");
      const off = await c.client.callTool({ name: "get_memory_cards", arguments: { task: TASK, judge: false } });
      expect((off.structuredContent as Structured).route).toBe("deterministic");
    } finally {
      await c.close();
    }
  });
});
