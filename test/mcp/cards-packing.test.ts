// get_memory_cards packing through a real MCP client on the polyglot fixture: the highest-utility card at a
// small budget, a covering test when room remains, files passed by the caller ranked with the others, the
// method a task concerns over its type's declaration, calibrated confidence (also on a three-file repository),
// a pack from a partial index, and stale risk kept for files a failure merely cites.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { gatherCandidates } from "../../src/cards/candidates.js";
import { indexRepository } from "../../src/graph/index-repository.js";
import { silentLogger } from "../../src/log.js";
import { createRanker } from "../../src/retrieval/rank.js";
import { components } from "../../src/scoring/utility.js";
import { emptySections } from "../../src/transcript/extraction/merge.js";
import { openTestApp } from "../graph/helpers.js";
import { connect, type Connected, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";
import { copyPolyglot } from "../repo/fixture.js";

interface Served {
  id: string;
  kind: string;
  scope: string;
  utility: number;
}
interface Pack {
  cards: Served[];
  tokens: number;
  budget: number;
  confidence: number;
  index: string;
  skipped?: { id: string; reason: string }[];
}

const PY_TASK = "Circle.area in pyproj/shapes/geometry.py returns a negative value when the radius is negative";
const RUST_TASK = "In rustcrate/src/geometry.rs a Shape::Circle reports its area with 3.14 instead of PI";
const NONSENSE = "purple elephants dance quietly under the moon while violins hum";

describe("packing over MCP", () => {
  let c: Connected;
  const cards = async (args: Record<string, unknown>) => {
    const res = await c.client.callTool({ name: "get_memory_cards", arguments: { verbose: true, ...args } });
    expect(res.isError).toBeFalsy();
    return { pack: res.structuredContent as unknown as Pack, text: textOf(res) };
  };

  beforeAll(async () => {
    const root = copyPolyglot();
    c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    const built = await c.client.callTool({ name: "build_context_graph", arguments: {} }, undefined, {
      timeout: 120_000,
    });
    expect(built.isError).toBeFalsy();
  }, 180_000);
  afterAll(async () => {
    await c.close();
  });

  it("serves the highest-utility card whenever it fits, on a Rust and a Python task", async () => {
    for (const task of [RUST_TASK, PY_TASK]) {
      const wide = await cards({ task, budget_tokens: 4000, mode: "pre_budget" });
      const best = wide.pack.cards[0]!;
      expect(wide.pack.cards.every((x) => x.utility <= best.utility)).toBe(true);
      for (const mode of ["post_selection", "pre_budget"]) {
        const small = await cards({ task, budget_tokens: 300, mode });
        expect(small.pack.tokens).toBeLessThanOrEqual(300);
        expect(small.pack.cards[0]?.id).toBe(best.id);
      }
    }
  });

  it("serves the test covering a served file when budget remains", async () => {
    const { pack, text } = await cards({ task: PY_TASK, kinds: ["test", "file"], budget_tokens: 1200 });
    const files = new Set(pack.cards.filter((x) => x.kind === "file").map((x) => x.scope));
    const test = pack.cards.find((x) => x.kind === "test");
    expect(test).toBeDefined();
    // The test card is headed by the test file and names the served file it covers.
    expect(files.has("pyproj/shapes/geometry.py")).toBe(true);
    expect(text).toContain(`test: ${test!.scope}`);
    expect(text).toContain("- when: After editing pyproj/shapes/geometry.py");
    expect(test!.scope).not.toBe("pyproj/shapes/geometry.py");
    expect(test!.scope).toMatch(/test/);
    expect(pack.skipped?.some((s) => s.id === test!.id)).toBe(false);
    expect(pack.tokens).toBeLessThanOrEqual(1200);
  });

  it("ranks files passed by the caller with the others instead of appending them", async () => {
    const base = await cards({ task: PY_TASK, budget_tokens: 1200 });
    const unrelated = "web/src/legacy.js";
    const withFile = await cards({ task: PY_TASK, budget_tokens: 1200, files: [unrelated] });
    // The task's own cards keep their places; the unrelated file brings no symbol or test card.
    expect(withFile.pack.cards.slice(0, 3).map((x) => x.id)).toEqual(base.pack.cards.slice(0, 3).map((x) => x.id));
    const about = withFile.pack.cards.filter((x) => x.scope.startsWith(unrelated));
    expect(about.filter((x) => x.kind !== "file")).toEqual([]);
    for (const x of about) expect(x.utility).toBeLessThan(base.pack.cards[0]!.utility);
    // A file of the task passed by the caller keeps its place among the task's files (second here, behind
    // Circle.java), not the end of the pack.
    const related = await cards({
      task: "the area of a circle comes out negative",
      budget_tokens: 1200,
      files: ["pyproj/shapes/geometry.py"],
    });
    const fileCards = related.pack.cards.filter((x) => x.kind === "file").map((x) => x.scope);
    const at = fileCards.indexOf("pyproj/shapes/geometry.py");
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThan(2);
    expect(related.pack.cards.findIndex((x) => x.scope.startsWith("pyproj/shapes/geometry.py"))).toBeLessThan(
      related.pack.cards.length - 1,
    );
  });

  it("names the method whose body the task concerns, not the type it belongs to", async () => {
    const { pack, text } = await cards({ task: RUST_TASK, kinds: ["symbol"], budget_tokens: 1200 });
    const top = pack.cards[0]!;
    expect(top.kind).toBe("symbol");
    expect(top.scope).toMatch(/^rustcrate\/src\/geometry\.rs:29-34$/);
    expect(text).toContain("method area at rustcrate/src/geometry.rs:29-34");
    const decl = pack.cards.find((x) => x.scope === "rustcrate/src/geometry.rs:17-20");
    if (decl) expect(decl.utility).toBeLessThan(top.utility);
  });

  it("gives a nonsense task low utilities and says there is no confident card; a real task keeps high ones", async () => {
    const real = await cards({ task: PY_TASK, budget_tokens: 1200 });
    expect(real.pack.confidence).toBeGreaterThanOrEqual(0.5);
    expect(real.pack.cards[0]!.utility).toBeGreaterThan(0.55);
    expect(real.text).not.toMatch(/No confident card/);
    const none = await cards({ task: NONSENSE, budget_tokens: 1200 });
    expect(none.pack.confidence).toBeLessThan(0.5);
    expect(none.text).toMatch(/No confident card/);
    for (const x of none.pack.cards) expect(x.utility).toBeLessThan(0.3);
    expect(none.pack.index).toBe("complete");
  });
});

describe("a pack from a partial index", () => {
  it("says `index: partial, N of M files` in its text and its structured result", async () => {
    const root = copyPolyglot();
    const db = join(tmpDir(), "memcards.db");
    const app = openTestApp(root, db);
    let batches = 0;
    try {
      const r = await indexRepository({
        db: app.db,
        projectId: app.project.id,
        root,
        logger: silentLogger,
        batchFiles: 5,
        isCancelled: () => batches >= 2,
        onProgress: (p) => {
          if (p.phase === "parse") batches++;
        },
      });
      expect(r.cancelled).toBe(true);
    } finally {
      await app.close();
    }
    const c = await connect({ flags: { root, db, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const res = await c.client.callTool({ name: "get_memory_cards", arguments: { task: PY_TASK } });
      expect(res.isError).toBeFalsy();
      const s = res.structuredContent as unknown as Pack;
      const m = /^partial, (\d+) of (\d+) files$/.exec(s.index);
      expect(m).not.toBeNull();
      expect(Number(m![1])).toBe(10);
      expect(Number(m![2])).toBeGreaterThan(10);
      expect(textOf(res)).toContain(`index: ${s.index};`);
    } finally {
      await c.close();
    }
  }, 120_000);
});

/** A three-file repository: a class with two methods, a function in another file, and a test. */
function smallRepo(): string {
  const root = tmpDir();
  mkdirSync(join(root, "src"));
  writeFileSync(
    join(root, "src/shapes.ts"),
    [
      "// shapes",
      "export class Circle {",
      "  constructor(public r: number) {}",
      "",
      "  area(): number {",
      "    return Math.PI * this.r * this.r;",
      "  }",
      "",
      "  perimeter(): number {",
      "    return 2 * Math.PI * this.r;",
      "  }",
      "}",
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(root, "src/money.ts"),
    "export function formatMoney(cents: number): string {\n  return `$${(cents / 100).toFixed(2)}`;\n}\n",
  );
  writeFileSync(
    join(root, "src/shapes.test.ts"),
    'import { Circle } from "./shapes";\ntest("area", () => { expect(new Circle(2).area()).toBeCloseTo(12.56); });\n',
  );
  return root;
}

describe("confidence on a three-file repository", () => {
  it("is confident for real tasks naming a symbol or a file, and not for nonsense", async () => {
    const c = await connect({ flags: { root: smallRepo(), embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const built = await c.client.callTool({ name: "build_context_graph", arguments: {} }, undefined, {
        timeout: 60_000,
      });
      expect(built.isError).toBeFalsy();
      const ask = async (task: string) => {
        const res = await c.client.callTool({ name: "get_memory_cards", arguments: { task, verbose: true } });
        expect(res.isError).toBeFalsy();
        return { pack: res.structuredContent as unknown as Pack, text: textOf(res) };
      };
      for (const task of [
        "Fix Circle.perimeter",
        "Fix Circle.perimeter in src/shapes.ts",
        "formatMoney drops the sign of negative amounts",
      ]) {
        const { pack, text } = await ask(task);
        expect(pack.confidence, task).toBeGreaterThanOrEqual(0.5);
        expect(text).not.toMatch(/No confident card/);
        expect(pack.cards[0]!.scope).toMatch(task.startsWith("Fix") ? /^src\/shapes\.ts/ : /^src\/money\.ts/);
      }
      for (const task of [NONSENSE, "Fix the login page redirect after the OAuth callback"]) {
        const { pack, text } = await ask(task);
        expect(pack.confidence, task).toBeLessThan(0.5);
        expect(text).toMatch(/No confident card/);
      }
    } finally {
      await c.close();
    }
  }, 120_000);
});

describe("stale risk", () => {
  it("is waived for a file the session edited, not for one a failure merely cites", async () => {
    const root = smallRepo();
    const app = openTestApp(root);
    try {
      await indexRepository({ db: app.db, projectId: app.project.id, root, logger: silentLogger });
      // Both files change on disk after indexing.
      writeFileSync(join(root, "src/shapes.ts"), "// shapes, rewritten\nexport class Circle {}\n");
      writeFileSync(join(root, "src/money.ts"), "export const formatMoney = (c: number) => String(c);\n");
      const session = emptySections();
      session.files["src/shapes.ts"] = [{ op: "edited", turn: "t2" }];
      session.failures.push({
        signature: "TypeError at src/money.ts",
        text: "TypeError: cents.toFixed is not a function\n    at formatMoney (src/money.ts:2:20)",
        category: "runtime error",
        turn: "t3",
        last_turn: "t3",
        count: 1,
      });
      const { candidates } = await gatherCandidates(
        { db: app.db, projectId: app.project.id, root, ranker: createRanker(app.db), session },
        "the area of a circle",
        [],
        new Set(["file"]),
      );
      const file = (p: string) => candidates.find((x) => x.kind === "file" && x.path === p)!;
      const edited = file("src/shapes.ts");
      const cited = file("src/money.ts");
      expect(components(cited, 100).risk).toBeGreaterThan(0.5);
      expect(components(edited, 100).risk).toBe(0);
      expect(edited.signals).toMatchObject({ stale: true, session_hit: true, edited: true });
      expect(cited.signals).toMatchObject({ stale: true, session_hit: true, edited: false });
      // Cited by a failure, the file still ranks as a strong lead.
      expect(cited.signals.relative_score).toBe(1);
    } finally {
      await app.close();
    }
  }, 60_000);
});
