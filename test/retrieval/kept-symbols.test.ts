// A ranker keeps the symbols of the files it read last: what it ranks follows the store as a new ranker's would, also
// after an index run that wrote some files and stopped before it finished (the ranker is replaced only when one ends).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { buildGraph } from "../../src/graph/build-graph.js";
import { createRanker } from "../../src/retrieval/rank.js";
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
});
