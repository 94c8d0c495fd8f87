// An index run reports the graph's counts. One that rewrote edges counts them again; a no-change run reads the edge
// counts the last run kept while the edge total is unchanged, and counts again once it is not: edges written or
// deleted between runs (a memory's links, a forgotten node's edges) show in the next run's counts.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { indexRepository } from "../../src/graph/index-repository.js";
import { silentLogger } from "../../src/log.js";
import { writeTx } from "../../src/storage/db.js";
import { replaceEdgesFrom } from "../../src/storage/graph/edges.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";

describe("edge counts of a no-change index", () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it("follow edges written and deleted between runs", async () => {
    const root = tmpDir();
    writeFileSync(join(root, "a.py"), "from b import beta\n\ndef alpha(x):\n    return beta(x)\n");
    writeFileSync(join(root, "b.py"), "def beta(x):\n    return x + 1\n\ndef gamma():\n    return 3\n");
    app = openTestApp(root);
    const a = app;
    const index = () => indexRepository({ db: a.db, projectId: a.project.id, root, logger: silentLogger });
    const grouped = () =>
      Object.fromEntries(
        (
          a.db.prepare("SELECT type, COUNT(*) AS n FROM edges GROUP BY type").all() as { type: string; n: number }[]
        ).map((r) => [r.type, r.n]),
      );
    const first = await index();
    expect(first.counts.edges).toEqual(grouped());
    expect(first.counts.edges.contains).toBeGreaterThan(0);

    // Another writer links one node to the others under a type no index run writes.
    const ids = (a.db.prepare("SELECT id FROM nodes ORDER BY id").all() as { id: number }[]).map((r) => r.id);
    writeTx(a.db, () =>
      replaceEdgesFrom(
        a.db,
        ids[0]!,
        "task_memory",
        ids.slice(1).map((dst) => ({ dst, weight: 1 })),
      ),
    );
    const linked = await index();
    expect(linked.files.parsed).toBe(0);
    expect(linked.counts.edges.task_memory).toBe(ids.length - 1);
    expect(linked.counts.edges).toEqual(grouped());

    // And takes some of them back.
    writeTx(a.db, () => replaceEdgesFrom(a.db, ids[0]!, "task_memory", [{ dst: ids[1]!, weight: 1 }]));
    const unlinked = await index();
    expect(unlinked.counts.edges.task_memory).toBe(1);
    expect(unlinked.counts.edges).toEqual(grouped());

    // Two writers between runs, one adding edges of a type and one deleting as many of another: the total is the
    // one the last run kept, the counts per type are not.
    const total = () => (a.db.prepare("SELECT COUNT(*) AS n FROM edges").get() as { n: number }).n;
    const before = total();
    const file = (a.db.prepare("SELECT id FROM nodes WHERE key = 'file:b.py'").get() as { id: number }).id;
    const contained = a.db.prepare("SELECT COUNT(*) AS n FROM edges WHERE src = ? AND type = 'contains'").get(file) as {
      n: number;
    };
    expect(contained.n).toBeGreaterThan(0);
    writeTx(a.db, () => replaceEdgesFrom(a.db, file, "contains", []));
    writeTx(a.db, () =>
      replaceEdgesFrom(
        a.db,
        ids[0]!,
        "task_memory",
        ids.slice(1, 2 + contained.n).map((dst) => ({ dst, weight: 1 })),
      ),
    );
    expect(total()).toBe(before);
    const swapped = await index();
    expect(swapped.files.parsed).toBe(0);
    expect(swapped.counts.edges).toEqual(grouped());

    // A kept count in another format is counted again.
    a.db.prepare("UPDATE meta SET value = 'not json' WHERE key = 'graph.edge_counts'").run();
    expect((await index()).counts.edges).toEqual(grouped());
  });
});
