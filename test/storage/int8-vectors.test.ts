// Vectors are stored as int8 and read back as unit Float32Arrays: nearest neighbours rank as with float32, and a
// store written with float32 vectors is re-embedded into the int8 table when it is next opened.
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { describe, expect, it } from "vitest";

import { createOfflineEmbedder, offlineEmbed } from "../../src/embeddings/offline.js";
import { openDatabase, writeTx } from "../../src/storage/db.js";
import { bindEmbedder, getEmbedderBinding, setMeta } from "../../src/storage/meta.js";
import { upsertProject } from "../../src/storage/projects.js";
import {
  dequantizeVector,
  insertVectorItem,
  nearestVectors,
  pendingVectorItems,
  quantizeVector,
} from "../../src/storage/vectors.js";
import { embedPending } from "../../src/vectors/embed-pending.js";
import { tmpDir } from "../helpers/tmp.js";

const MIGRATIONS = join(fileURLToPath(import.meta.url), "..", "..", "..", "src", "storage", "migrations");
const TEXTS = [
  "def parse_config(path): read the settings file",
  "class HttpClient: send requests with retries",
  "def render_page(template, context): fill the template",
  "def retry_request(client, attempts): send again on failure",
];

const cosine = (a: Float32Array, b: Float32Array) => {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return d / Math.sqrt(na * nb);
};

describe("int8 vectors", () => {
  it("keep each vector's direction: a stored vector reads back as a unit vector within 1% cosine", () => {
    for (const t of TEXTS) {
      const v = offlineEmbed(t);
      const back = dequantizeVector(quantizeVector(v));
      expect(back).toHaveLength(v.length);
      expect(cosine(v, back)).toBeGreaterThan(0.99);
      expect(Math.hypot(...back)).toBeCloseTo(1, 5);
    }
    expect(dequantizeVector(quantizeVector(new Float32Array(8))).every((x) => x === 0)).toBe(true);
  });

  it("replace a float32 table when an older store is opened, and rank neighbours as float32 does", async () => {
    // An older store: migrations up to 0013, a float32 vec0 table, every item embedded.
    const older = tmpDir("memcards-old-migrations-");
    for (const f of readdirSync(MIGRATIONS))
      if (/^(\d{4})_/.test(f) && Number(f.slice(0, 4)) <= 13) copyFileSync(join(MIGRATIONS, f), join(older, f));
    const dir = tmpDir("memcards-int8-");
    mkdirSync(dir, { recursive: true });
    const path = join(dir, "store.db");
    const embedder = createOfflineEmbedder();
    let db = openDatabase(path, { migrationsDir: older });
    const project = upsertProject(db, "k", dir);
    writeTx(db, () => {
      db.exec(`CREATE VIRTUAL TABLE vectors USING vec0(embedding float[${embedder.dimension}] distance_metric=cosine)`);
      setMeta(db, "embedder_id", embedder.id);
      setMeta(db, "embedder_dimension", String(embedder.dimension));
      TEXTS.forEach((t, i) => insertVectorItem(db, project.id, "node", i + 1, t));
      const ins = db.prepare("INSERT INTO vectors (rowid, embedding) VALUES (?, ?)");
      for (const item of db.prepare("SELECT id, text FROM vector_items").all() as { id: number; text: string }[]) {
        ins.run(BigInt(item.id), offlineEmbed(item.text));
      }
      db.prepare("UPDATE vector_items SET embedded = 1").run();
    });
    db.close();

    db = openDatabase(path);
    try {
      expect(getEmbedderBinding(db)).toEqual({ id: embedder.id, dimension: embedder.dimension });
      expect(pendingVectorItems(db, 100)).toHaveLength(TEXTS.length);
      expect(bindEmbedder(db, { id: embedder.id, dimension: embedder.dimension })).toBe(true);
      const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'vectors'").get() as { sql: string }).sql;
      expect(sql).toContain("int8[256]");
      expect(await embedPending(db, embedder)).toBe(TEXTS.length);
      expect(bindEmbedder(db, { id: embedder.id, dimension: embedder.dimension })).toBe(false);

      const query = offlineEmbed("send a request again after a failure with retries");
      const byFloat = TEXTS.map((t, i) => ({ owner: i + 1, sim: cosine(query, offlineEmbed(t)) })).sort(
        (a, b) => b.sim - a.sim,
      );
      const near = nearestVectors(db, query, TEXTS.length, "node");
      expect(near.map((n) => n.ownerId)).toEqual(byFloat.map((b) => b.owner));
      near.forEach((n, i) => expect(1 - n.distance).toBeCloseTo(byFloat[i]!.sim, 1));
    } finally {
      db.close();
    }
  });
});
