// Queued items are embedded in batches and their vectors written in groups: every item ends with the vector of its
// current text, one whose text changes while its vector is held is embedded again with the new words, a write lands
// once enough vectors are held, and an aborted run keeps the vectors it computed.
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { createOfflineEmbedder, offlineEmbed } from "../../src/embeddings/offline.js";
import type { Embedder } from "../../src/embeddings/provider.js";
import { type Db, openDatabase, writeTx } from "../../src/storage/db.js";
import { bindEmbedder } from "../../src/storage/meta.js";
import { upsertProject } from "../../src/storage/projects.js";
import { dequantizeVector, insertVectorItem, pendingVectorItems, upsertVectorItem } from "../../src/storage/vectors.js";
import { embedPending } from "../../src/vectors/embed-pending.js";
import { tmpDir } from "../helpers/tmp.js";

const ITEMS = 150;
const textOf = (i: number) => `def handler_${i}(request): route number ${i} of the service`;

function openStore(): { db: Db; projectId: number; embedder: Embedder } {
  const dir = tmpDir("memcards-embed-writes-");
  const db = openDatabase(join(dir, "store.db"));
  const projectId = upsertProject(db, "k", dir).id;
  const embedder = createOfflineEmbedder();
  bindEmbedder(db, { id: embedder.id, dimension: embedder.dimension });
  writeTx(db, () => {
    for (let i = 1; i <= ITEMS; i++) insertVectorItem(db, projectId, "node", i, textOf(i));
  });
  return { db, projectId, embedder };
}

/** Each stored vector against the embedding of the text it should hold, by item owner. */
function storedMatches(db: Db, expected: (owner: number) => string): number {
  const rows = db
    .prepare("SELECT i.owner_id AS owner, v.embedding AS e FROM vector_items i JOIN vectors v ON v.rowid = i.id")
    .all() as { owner: number; e: Buffer }[];
  let same = 0;
  for (const r of rows) {
    const want = offlineEmbed(expected(r.owner));
    const got = dequantizeVector(r.e);
    let dot = 0;
    for (let d = 0; d < want.length; d++) dot += want[d]! * got[d]!;
    if (dot > 0.99) same++;
  }
  return same;
}

describe("embedPending", () => {
  it("embeds every queued item in small batches, writing them in larger groups", async () => {
    const { db, projectId, embedder } = openStore();
    try {
      const calls: number[] = [];
      const writes: number[] = [];
      const counting: Embedder = { ...embedder, embed: (texts) => (calls.push(texts.length), embedder.embed(texts)) };
      const done = await embedPending(db, counting, {
        projectId,
        batchSize: 16,
        writeItems: 64,
        // Writes by count only: however slow the machine, no write is made by the clock.
        writeAfterMs: Number.POSITIVE_INFINITY,
        onProgress: (n) => writes.push(n),
      });
      expect(done).toBe(ITEMS);
      expect(calls.length).toBe(Math.ceil(ITEMS / 16));
      // Progress is reported per write: one per 64 held vectors (64, 128) and the rest at the end.
      expect(writes).toEqual([64, 128, ITEMS]);
      expect(writes.at(-1)).toBe(ITEMS);
      expect(pendingVectorItems(db, 10, projectId)).toHaveLength(0);
      expect(storedMatches(db, textOf)).toBe(ITEMS);
    } finally {
      db.close();
    }
  });

  it("embeds an item again with its new text when the text changed while its vector was held", async () => {
    const { db, projectId, embedder } = openStore();
    try {
      const changed = 3;
      const newText = "class ChangedWhileHeld: a completely different text about caching tokens";
      let calls = 0;
      const changing: Embedder = {
        ...embedder,
        embed: (texts) => {
          // After the first batch (which held item 3's vector), its text changes before the write.
          if (++calls === 2) writeTx(db, () => upsertVectorItem(db, projectId, "node", changed, newText));
          return embedder.embed(texts);
        },
      };
      expect(
        await embedPending(db, changing, {
          projectId,
          batchSize: 10,
          writeItems: 1000,
          writeAfterMs: Number.POSITIVE_INFINITY,
        }),
      ).toBeGreaterThan(0);
      expect(pendingVectorItems(db, 10, projectId)).toHaveLength(0);
      expect(storedMatches(db, (o) => (o === changed ? newText : textOf(o)))).toBe(ITEMS);
    } finally {
      db.close();
    }
  });

  it("keeps the vectors an aborted run computed", async () => {
    const { db, projectId, embedder } = openStore();
    try {
      const controller = new AbortController();
      let calls = 0;
      const stopping: Embedder = {
        ...embedder,
        embed: (texts) => {
          if (++calls === 3) controller.abort();
          return embedder.embed(texts);
        },
      };
      const done = await embedPending(db, stopping, {
        projectId,
        batchSize: 20,
        writeItems: 1000,
        writeAfterMs: Number.POSITIVE_INFINITY,
        signal: controller.signal,
      });
      expect(done).toBe(60);
      expect(pendingVectorItems(db, ITEMS, projectId)).toHaveLength(ITEMS - 60);
      expect(storedMatches(db, textOf)).toBe(60);
    } finally {
      db.close();
    }
  });
});
