// A symbol's vector item keeps no text when its node's row composes the same words; the embedder then reads the row.
// Whatever the row holds at embed time, the words embedded are those the index redacted as the symbol's embed text.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { pendingVectorItems, storeVectors } from "../../src/storage/vectors.js";
import { redact } from "../../src/text/redact.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";

/** 40 characters an AWS label right before them marks a secret key, and that alone read as an identifier. */
const KEY = "AAAbbbCCC111dddEEE222fffGGG333hhhIII444j";

/** A class whose name labels the key only in a method's embed text (the class line is far above the key's line). */
const source = (value: string) =>
  [
    "class AwsSecrets:",
    '    """Reads the deployment settings of the storage buckets and the queues of every region."""',
    "",
    "    region = 'eu-west-1'",
    "",
    `    def get(self, k='${value}'):`,
    "        return k",
    "",
  ].join("\n");

describe("a symbol's embed text composed from its node's row", () => {
  const apps: App[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
  });

  it("stays the redacted embed text when an edit changes the row but not the redacted text", async () => {
    // The label makes the key a secret only in the embed text: the file and the signature alone keep it.
    expect(redact(`method AwsSecrets.get in pkg/store.py: def get(self, k='${KEY}')`)).not.toContain(KEY);
    expect(redact(source(KEY))).toContain(KEY);

    const root = tmpDir("memcards-symtext-");
    mkdirSync(join(root, "pkg"));
    const file = join(root, "pkg", "store.py");
    // First written with the marker a redacted copy of the key shows (a pasted redacted snippet)...
    writeFileSync(file, source("[redacted aws secret]"));
    const app = openTestApp(root);
    apps.push(app);
    await buildGraph(app.scope, app, { lexicalOnly: true });
    // ... then with the key itself: the redacted embed text is the same words as before.
    writeFileSync(file, source(KEY));
    await buildGraph(app.scope, app, { lexicalOnly: true });

    const row = app.db
      .prepare(
        `SELECT i.id AS id FROM vector_items i JOIN nodes n ON n.id = i.owner_id
         WHERE n.type = 'symbol' AND n.name = 'get'`,
      )
      .get() as { id: number } | undefined;
    expect(row).toBeDefined();
    const text = pendingVectorItems(app.db, 10_000).find((i) => i.id === row!.id)?.text;
    expect(text).toBeDefined();
    expect(text).not.toContain(KEY);
    expect(text).toContain("[redacted aws secret]");
  }, 60_000);
});

describe("a symbol edited while its vector is computed", () => {
  it("stays queued: the vector of its old words is not stored as that of its new ones", async () => {
    const root = tmpDir("memcards-symrace-");
    mkdirSync(join(root, "pkg"));
    const file = join(root, "pkg", "shapes.py");
    writeFileSync(file, "def area(width, height):\n    return width * height\n");
    const app = openTestApp(root);
    try {
      await buildGraph(app.scope, app, { lexicalOnly: true });
      const id = (
        app.db
          .prepare("SELECT i.id AS id FROM vector_items i JOIN nodes n ON n.id = i.owner_id WHERE n.name = 'area'")
          .get() as { id: number }
      ).id;
      // An embedder takes the queued items (one index run)...
      const taken = pendingVectorItems(app.db, 10_000);
      expect(taken.find((i) => i.id === id)?.text).toContain("area(width, height)");
      // ... another run re-indexes the symbol with new words while the vectors are computed...
      writeFileSync(file, "def area(radius):\n    return 3.14159 * radius * radius\n");
      await buildGraph(app.scope, app, { lexicalOnly: true });
      // ... and the first run stores what it computed.
      storeVectors(
        app.db,
        taken.map((i) => ({ ...i, vector: Float32Array.from({ length: app.embedding.embedder.dimension }, () => 1) })),
      );
      const again = pendingVectorItems(app.db, 10_000).find((i) => i.id === id);
      expect(again?.text).toContain("area(radius)");
    } finally {
      await app.close();
    }
  }, 60_000);
});
