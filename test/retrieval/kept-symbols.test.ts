// A ranker keeps the symbols of the files it read last: what it ranks follows the store as a new ranker's would, also
// after an index run that wrote some files and stopped before it finished (the ranker is replaced only when one ends).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { buildGraph } from "../../src/graph/build-graph.js";
import { fileSymbolsReader } from "../../src/retrieval/file-symbols.js";
import { createRanker } from "../../src/retrieval/rank.js";
import { allBodiesFromLines, bodiesForTokens, bodiesFromLines } from "../../src/retrieval/symbols.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

describe("the symbols a ranker keeps", () => {
  it("follow the files an interrupted index run re-parsed", async () => {
    const root = copyPolyglot();
    const app = openTestApp(root);
    try {
      await buildGraph(app.scope, app);
      const ranker = app.ranker;
      const file = (await ranker.rank("circle radius", 10)).map((f) => f.path).find((p) => p.endsWith(".py"))!;
      const names = async (r: typeof ranker) =>
        (await r.rankSymbols("zebrafish habitat", 100, { files: [file] })).map((s) => s.name);
      expect(await names(ranker)).not.toContain("zebrafish_habitat");

      writeFileSync(
        join(root, file),
        `${readFileSync(join(root, file), "utf8")}\n\ndef zebrafish_habitat(x):\n    return x.zebrafish + habitat\n`,
      );
      // The run writes the parsed file, then stops (a kill, a crash) before its edge phase.
      const stop = new Error("stopped");
      await expect(
        buildGraph(app.scope, app, {
          onProgress: (p) => {
            if (p.phase === "edges") throw stop;
          },
        }),
      ).rejects.toBe(stop);

      const fresh = createRanker(app.db, { root });
      expect(await names(fresh)).toContain("zebrafish_habitat");
      expect(await names(app.ranker)).toEqual(await names(fresh));
    } finally {
      await app.close();
    }
  });

  it("tokenize a file the index kept no bodies for (a test) once, and again once the index holds another content", async () => {
    const root = copyPolyglot();
    const app = openTestApp(root);
    const file = "pyproj/tests/test_geometry.py";
    const write = (body: string) => writeFileSync(join(root, file), `from shapes.geometry import Circle\n\n${body}`);
    try {
      write("def test_area():\n    assert Circle(1).area() > 3\n\n\ndef test_kept():\n    assert walrus_tusk(1)\n");
      await buildGraph(app.scope, app);
      expect(fileSymbolsReader(app.db)(file).stored).toBeUndefined();
      const ranker = createRanker(app.db, { root });
      const best = async (q: string) => (await ranker.rankSymbols(q, 1, { files: [file] }))[0]?.name;
      expect(await best("walrus tusk")).toBe("test_kept");
      // The file changes on disk, not in the index: the ranker keeps what it read, as it does for stored bodies.
      write("def test_area():\n    assert Circle(1).area() > 3\n\n\ndef test_kept():\n    assert narwhal_horn(1)\n");
      expect((await ranker.rankSymbols("narwhal horn", 5, { files: [file] })).every((s) => s.features.body === 0)).toBe(
        true,
      );
      expect(await best("walrus tusk")).toBe("test_kept");
      await buildGraph(app.scope, app);
      const after = createRanker(app.db, { root });
      expect((await after.rankSymbols("narwhal horn", 1, { files: [file] }))[0]?.name).toBe("test_kept");
    } finally {
      await app.close();
    }
  });

  it("count a file's bodies from its lines as the per-query count does, in the same order", () => {
    const root = copyPolyglot();
    const app = openTestApp(root);
    return buildGraph(app.scope, app)
      .then(() => {
        for (const file of ["pyproj/shapes/geometry.py", "pyproj/tests/test_geometry.py"]) {
          const { syms } = fileSymbolsReader(app.db)(file);
          const lines = readFileSync(join(root, file), "utf8").split("\n");
          expect(syms.length).toBeGreaterThan(0);
          for (const q of [new Set(["circle", "area", "radius"]), new Set(["assert", "self", "return", "nothing"])]) {
            const cut = bodiesForTokens(allBodiesFromLines(syms, lines), q);
            const direct = bodiesFromLines(syms, lines, q);
            expect(cut.map((b) => b && { len: b.len, tf: [...b.tf] })).toEqual(
              direct.map((b) => b && { len: b.len, tf: [...b.tf] }),
            );
          }
        }
      })
      .finally(() => app.close());
  });
});
