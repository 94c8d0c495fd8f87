// Hostile inputs to the cards pipeline: passed files and session failures that point outside the repository
// or at nothing indexed bring no card and read nothing; a nonsense flood stays low and bounded.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { getMemoryCards } from "../../src/cards/service.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { compressContext } from "../../src/session/compress.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

const TASK = "Circle.area in pyproj/shapes/geometry.py returns a negative value when the radius is negative";

describe("cards with hostile inputs", () => {
  let root: string;
  let app: App;
  beforeAll(async () => {
    root = copyPolyglot();
    // A file beside the repository that no card may ever name.
    writeFileSync(join(dirname(root), "outside-secret.py"), "def leaked_secret():\n    return 'x'\n");
    app = openTestApp(root);
    await buildGraph(app.scope, app, { lexicalOnly: true });
  });
  afterAll(async () => {
    await app.close();
  });
  const deps = () => ({ ...app.scope, ranker: app.ranker });

  it("gives passed files outside the repository or not indexed no card and leaves the pack as it was", async () => {
    const base = await getMemoryCards(deps(), { task: TASK, budgetTokens: 1200 });
    const hostile = ["../outside-secret.py", "/etc/passwd", "pyproj/../../outside-secret.py", "no/such/file.py"];
    const r = await getMemoryCards(deps(), { task: TASK, budgetTokens: 1200, files: hostile });
    expect(r.cards.map((c) => c.id)).toEqual(base.cards.map((c) => c.id));
    const text = JSON.stringify(r.cards);
    expect(text).not.toContain("outside-secret");
    expect(text).not.toContain("passwd");
  });

  it("resolves a session failure's paths only to indexed files", async () => {
    compressContext(app.scope, {
      sessionId: "hostile",
      keepRecent: 0,
      messages: [
        { role: "user", content: "Fix the area. Keep the float return type." },
        {
          role: "tool",
          content:
            'FAILED ../outside-secret.py::test_x - AssertionError\nTraceback (most recent call last):\n  File "/etc/passwd", line 1, in <module>\nAssertionError',
        },
      ],
    });
    const r = await getMemoryCards(deps(), { task: TASK, budgetTokens: 2000, sessionId: "hostile" });
    const text = JSON.stringify(r.cards.filter((c) => c.kind === "file" || c.kind === "test" || c.kind === "symbol"));
    expect(text).not.toContain("outside-secret");
    expect(text).not.toContain("/etc/passwd");
    expect(r.tokens).toBeLessThanOrEqual(2000);
  });

  it("keeps a flood of unknown words low and within budget", async () => {
    const words = Array.from({ length: 5000 }, (_, i) => `zq${(i * 7919).toString(36)}x`).join(" ");
    const r = await getMemoryCards(deps(), { task: words, budgetTokens: 300 });
    expect(r.confidence).toBeLessThan(0.5);
    expect(r.notes.join(" ")).toMatch(/No confident card/);
    for (const c of r.cards) expect(c.utility).toBeLessThan(0.3);
    expect(r.tokens).toBeLessThanOrEqual(300);
  });
});
