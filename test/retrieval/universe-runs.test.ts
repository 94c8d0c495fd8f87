// The file universe rankers share per store file: a file the watcher indexes appears, one it drops vanishes, and two
// stores in one process never answer with each other's files.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { getMemoryCards } from "../../src/cards/service.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { ALL_CHANNELS, type ChannelSet, createRanker } from "../../src/retrieval/rank.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";

function repo(files: Record<string, string>): string {
  const root = join(tmpDir(), "repo");
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(root, p, ".."), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  return root;
}

/** One hook call: the store opened anew, a ranker made for the call, the cards' scopes for the task. */
async function hookCards(root: string, db: string, task: string): Promise<string[]> {
  const app = openTestApp(root, db);
  try {
    const ranker = createRanker(app.db, { embedder: app.embedding.embedder });
    const r = await getMemoryCards({ ...app.scope, ranker }, { task, budgetTokens: 1600, mode: "pre_budget" });
    return r.cards.map((c) => c.scope);
  } finally {
    await app.close();
  }
}

/** The file channel alone (full-text search over file nodes): what it returns passes through the universe. */
const FTS_ONLY: ChannelSet = { anchors: false, symbols: false, vectors: false, expansion: false, path_prior: false };

async function ranked(app: App, task: string, use: ChannelSet = ALL_CHANNELS): Promise<string[]> {
  return (await createRanker(app.db, { embedder: app.embedding.embedder }).rankWith(task, use)).map((r) => r.path);
}

describe("the universe rankers share across index runs and stores", () => {
  let rootA: string;
  let rootB: string;
  let dbA: string;
  let dbB: string;
  let a: App;
  let b: App;
  beforeAll(async () => {
    rootA = repo({
      "src/billing/invoice.py": "def total_invoice(lines):\n    return sum(l.amount for l in lines)\n",
      "src/billing/tax.py": "def vat_rate(country):\n    return 0.2\n",
    });
    rootB = repo({
      "lib/shipping/parcel.py": "def parcel_weight(items):\n    return sum(i.grams for i in items)\n",
      "lib/shipping/route.py": "def shortest_route(stops):\n    return sorted(stops)\n",
    });
    dbA = join(tmpDir(), "a.db");
    dbB = join(tmpDir(), "b.db");
    a = openTestApp(rootA, dbA);
    b = openTestApp(rootB, dbB);
    await buildGraph(a.scope, a);
    await buildGraph(b.scope, b);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it("a file the watcher indexes is ranked and carded; a file it drops is gone", async () => {
    expect(await ranked(a, "total_invoice sums the lines")).toContain("src/billing/invoice.py");
    expect(await hookCards(rootA, dbA, "refund_ledger reverses a payment")).not.toContain("src/billing/refund.py");
    expect(await ranked(a, "total_invoice", FTS_ONLY)).toEqual(["src/billing/invoice.py"]);

    writeFileSync(
      join(rootA, "src/billing/refund.py"),
      '"""Zanzibar chargebacks are reversed here."""\n\ndef refund_ledger(payment):\n    return -payment.amount\n',
    );
    await buildGraph(a.scope, a, { paths: ["src/billing/refund.py"] });
    expect(await ranked(a, "refund_ledger reverses a payment")).toContain("src/billing/refund.py");
    expect(await ranked(a, "zanzibar chargebacks", FTS_ONLY)).toEqual(["src/billing/refund.py"]);
    expect(
      (await hookCards(rootA, dbA, "zanzibar chargebacks")).some((s) => s.startsWith("src/billing/refund.py")),
    ).toBe(true);
    expect(
      (await hookCards(rootA, dbA, "refund_ledger reverses a payment")).some((s) =>
        s.startsWith("src/billing/refund.py"),
      ),
    ).toBe(true);

    rmSync(join(rootA, "src/billing/refund.py"));
    await buildGraph(a.scope, a, { paths: ["src/billing/refund.py"] });
    expect(await ranked(a, "refund_ledger reverses a payment")).not.toContain("src/billing/refund.py");
    expect(await ranked(a, "zanzibar chargebacks", FTS_ONLY)).toEqual([]);
    expect(
      (await hookCards(rootA, dbA, "refund_ledger reverses a payment")).some((s) =>
        s.startsWith("src/billing/refund.py"),
      ),
    ).toBe(false);
  });

  it("two stores ranked in turn in one process each answer with their own files", async () => {
    for (let i = 0; i < 3; i++) {
      const fromA = await ranked(a, "parcel_weight total_invoice shortest_route vat_rate");
      const fromB = await ranked(b, "parcel_weight total_invoice shortest_route vat_rate");
      expect(fromA.length).toBeGreaterThan(0);
      expect(fromB.length).toBeGreaterThan(0);
      for (const p of fromA) expect(p).toMatch(/^src\//);
      for (const p of fromB) expect(p).toMatch(/^lib\//);
      const cardsB = await hookCards(rootB, dbB, "parcel_weight in lib/shipping/parcel.py");
      expect(cardsB.some((s) => s.startsWith("lib/shipping/parcel.py"))).toBe(true);
      for (const s of cardsB) expect(s).not.toMatch(/^src\//);
    }
  });
});
