// The duplicate and contradiction checks ask the index for only the rarest words (or pairs of them): every unit a
// full scan would find at the Jaccard threshold is still among the candidates, across scripts, case folding,
// accents, identifiers split into parts, units of other projects and categories, and the unit itself left out.
import { join } from "node:path";

import { expect, it } from "vitest";

import { openDatabase } from "../../src/storage/db.js";
import { indexMemory, insertMemory, similarMemories } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { identifierTokens } from "../../src/text/identifiers.js";
import { tmpDir } from "../helpers/tmp.js";

const words = (t: string) => new Set(identifierTokens(t));
function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / Math.max(1, a.size + b.size - inter);
}

const VOCAB = (
  "a b c d e f g h i j k l m n o p q r s t u v w x y z0 Café café CAFE cafe\u0301 naïve ß ss straße STRASSE ǅ ﬁ ﬁx " +
  "fix ı I İ i\u0307 x_y x$y 1 01 1e3 日本 日本語 Ω ω Ωmega parseHTTP http parse $x _ __ αβγ ᾳ ᾼ हिन्दी हिन्द कैश"
).split(" ");

it("finds every unit of the category in force that reaches the threshold, as a full scan does", () => {
  let seed = 777;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const text = () =>
    Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]!).join(" ");
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  const p = upsertProject(db, "p1", dir).id;
  const other = upsertProject(db, "p2", join(dir, "other")).id;
  const now = new Date().toISOString();
  const units: { id: number; text: string; category: string; status: string; project: number }[] = [];
  for (let i = 0; i < 800; i++) {
    const u = {
      text: text(),
      category: rnd() < 0.7 ? "learning" : "commitment",
      project: rnd() < 0.8 ? p : other,
      status: rnd() < 0.1 ? "superseded" : rnd() < 0.1 ? "conflict" : "active",
    };
    const id = insertMemory(db, {
      project_id: u.project,
      session_id: null,
      category: u.category,
      text: u.text,
      record: {},
      merge_key: `k${i}`,
      confidence: 0.5,
      importance: 0.5,
      tier: "warm",
      status: u.status,
      superseded_by: null,
      conflicts_with: null,
      evidence: [],
      files: [],
      created_at: now,
      updated_at: now,
    } as Parameters<typeof insertMemory>[1]);
    indexMemory(db, id, identifierTokens(`${u.category} ${u.text}`).join(" "));
    units.push({ id, ...u });
  }
  const missed: string[] = [];
  for (let q = 0; q < 400; q++) {
    const self = rnd() < 0.3 ? units[Math.floor(rnd() * units.length)] : undefined;
    const w = words(self ? self.text : text());
    for (const t of [0.85, 0.5, 0.25]) {
      const found = new Set(
        similarMemories(db, p, "learning", w, t, {
          self: self?.id,
          // The filter itself: no cap on the units read (a write reads the newest few hundred at most).
          newest: units.length,
          accept: (m) => jaccard(w, words(m.text)) >= t,
        }).map((m) => m.id),
      );
      for (const u of units)
        if (
          u.project === p &&
          u.category === "learning" &&
          u.status !== "superseded" &&
          u.id !== self?.id &&
          jaccard(w, words(u.text)) >= t &&
          !found.has(u.id)
        )
          missed.push(`${t}: [${[...w].join(" ")}] missed "${u.text}"`);
    }
  }
  expect(missed).toEqual([]);
});
