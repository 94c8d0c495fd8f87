// The duplicate, contradiction and same-subject checks keep each common term's count on the connection: what they
// find is what a new connection (nothing kept) finds, after units are added, superseded, reworded and forgotten on
// this connection, and after another connection writes.
import { join } from "node:path";

import { expect, it } from "vitest";

import { rewordUnit } from "../../src/memory/curate.js";
import { writeUnit } from "../../src/memory/distill.js";
import { type Db, openDatabase } from "../../src/storage/db.js";
import {
  deleteMemories,
  indexMemory,
  insertMemory,
  similarMemories,
  updateMemory,
} from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { identifierTokens } from "../../src/text/identifiers.js";
import { tmpDir } from "../helpers/tmp.js";

/** Few names, so that most of them are held by more units than a term's count reads. */
const NAMES = Array.from({ length: 12 }, (_, i) => `parse_${["token", "header", "cache", "queue"][i % 4]}${i}`);
const FILES = ["src/lexer.py", "src/cache.py", "src/queue.py"];

function unit(i: number) {
  const n = (k: number) => NAMES[(i * 7 + k * 5) % NAMES.length]!;
  const f = FILES[i % FILES.length]!;
  return i % 3 === 0
    ? { category: "commitment" as const, text: `${i % 2 ? "always" : "never"} call ${n(1)} before ${n(2)} in ${f}` }
    : { category: "learning" as const, text: `${n(1)} in ${f} depends on ${n(2)} and ${n(3)}; ${n(4)} breaks (${i})` };
}

function write(db: Db, projectId: number, i: number): void {
  const u = unit(i);
  writeUnit(db, projectId, "s1", {
    ...u,
    record: {},
    key: u.text.toLowerCase(),
    confidence: 0.6,
    evidence: [{ session: "s1", turn: `t${i}`, quote: u.text }],
    files: [],
  });
}

/** Every check's answer for a set of probes: learnings at the duplicate and same-subject overlaps, commitments. */
function answers(db: Db, projectId: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < 24; i++) {
    const u = unit(1000 + i);
    // Half the probes also name their category: a word every unit of it is indexed under until it is superseded.
    const words = identifierTokens(i % 2 ? `${u.category} ${u.text}` : u.text);
    for (const overlap of [0.25, 0.5, 0.85]) {
      for (const newest of [undefined, 4, 1]) {
        const opts = newest === undefined ? {} : { newest };
        out.push(similarMemories(db, projectId, u.category, words, overlap, opts).map((m) => m.id));
      }
    }
  }
  return out;
}

/** What a new connection to the same file answers (it has kept nothing). */
function fresh(path: string, projectId: number): number[][] {
  const db = openDatabase(path);
  try {
    return answers(db, projectId);
  } finally {
    db.close();
  }
}

it("answers as a new connection does while units are added, superseded, reworded and forgotten", () => {
  const dir = tmpDir();
  const path = join(dir, "m.db");
  const db = openDatabase(path);
  const p = upsertProject(db, "p1", dir).id;
  for (let i = 0; i < 400; i++) write(db, p, i);
  const superseded = db.prepare("SELECT count(*) AS n FROM memories WHERE status = 'superseded'").get() as {
    n: number;
  };
  expect(superseded.n).toBeGreaterThan(50);
  // The kept counts are used: the same probes again on this connection.
  const warm = answers(db, p);
  expect(warm.some((a) => a.length > 0)).toBe(true);
  expect(answers(db, p)).toEqual(warm);
  expect(warm).toEqual(fresh(path, p));

  // More units, some of which supersede the first ones holding the category's word.
  for (let i = 400; i < 500; i++) write(db, p, i);
  expect(answers(db, p)).toEqual(fresh(path, p));

  // A reword takes words from the oldest units; a forget removes units.
  const oldest = db.prepare("SELECT id FROM memories WHERE project_id = ? ORDER BY id LIMIT 40").all(p) as {
    id: number;
  }[];
  for (const { id } of oldest.slice(0, 20)) rewordUnit({ db, projectId: p, root: dir }, id, `renamed unit ${id}`);
  expect(answers(db, p)).toEqual(fresh(path, p));
  deleteMemories(
    db,
    p,
    oldest.slice(20).map((r) => r.id),
    {},
  );
  expect(answers(db, p)).toEqual(fresh(path, p));

  // Another connection's writes (a forget of the next oldest units among them) are seen here too.
  const other = openDatabase(path);
  const next = other.prepare("SELECT id FROM memories WHERE project_id = ? ORDER BY id LIMIT 60").all(p) as {
    id: number;
  }[];
  deleteMemories(
    other,
    p,
    next.map((r) => r.id),
    {},
  );
  for (let i = 500; i < 540; i++) write(other, p, i);
  other.close();
  expect(answers(db, p)).toEqual(fresh(path, p));
  db.close();
}, 120_000);

/**
 * A store where which two of three words a check asks for turns on one word's count: "alpha" is held by units 1..70
 * (of category learning, in their text or only in the request they answered), "gamma" by 31..100, "beta" by 1..5,
 * 61..64 and 101..400 (71..400 are decisions). Past the count's cap the rarer word is the one whose first units reach
 * further (beta, then gamma, then alpha); once alpha loses ten of its first units it is the rarest, and a check of
 * alpha, beta and gamma that must find all three asks for alpha and beta instead of beta and gamma.
 */
function skewed(db: Db, projectId: number, inRequest: boolean): void {
  const now = new Date().toISOString();
  db.transaction(() => {
    for (let i = 1; i <= 400; i++) {
      const category = i <= 70 ? "learning" : "decision";
      const words = [
        i <= 70 && !inRequest ? "alpha" : "",
        i <= 5 || (i >= 61 && i <= 64) || i > 100 ? "beta" : "",
        i >= 31 && i <= 100 ? "gamma" : "",
        `unit${i}`,
      ].filter(Boolean);
      const text = words.join(" ");
      const request = i <= 70 && inRequest ? "alpha please" : undefined;
      const id = insertMemory(db, {
        project_id: projectId,
        session_id: "s1",
        category,
        text,
        record: request ? { request } : {},
        merge_key: text,
        confidence: 0.6,
        importance: 0.5,
        tier: "warm",
        status: "active",
        superseded_by: null,
        conflicts_with: null,
        evidence: [],
        files: [],
        created_at: now,
        updated_at: now,
      });
      expect(id).toBe(i);
      // As distillation indexes a unit: its category, its text, and a request its text leaves out.
      indexMemory(db, id, identifierTokens(`${category} ${text} ${request ?? ""}`).join(" "));
    }
  })();
}

const probe = (db: Db, projectId: number, word: string) =>
  similarMemories(db, projectId, "learning", [word, "beta", "gamma"], 1)
    .map((m) => m.id)
    .sort((a, b) => a - b);

/** Units 6..15: alpha's first units after the five it shares with beta. */
const TEN = Array.from({ length: 10 }, (_, i) => 6 + i);

function storeWith(inRequest: boolean) {
  const dir = tmpDir();
  const path = join(dir, "m.db");
  const db = openDatabase(path);
  const p = upsertProject(db, "p1", dir).id;
  skewed(db, p, inRequest);
  return { dir, path, db, p };
}

function freshProbe(path: string, projectId: number, word: string): number[] {
  const db = openDatabase(path);
  try {
    return probe(db, projectId, word);
  } finally {
    db.close();
  }
}

it("finds a word's units again once a forget on this connection makes it rare", () => {
  const { path, db, p } = storeWith(false);
  expect(probe(db, p, "alpha")).toEqual([61, 62, 63, 64]);
  deleteMemories(db, p, TEN, {});
  expect(probe(db, p, "alpha")).toEqual([1, 2, 3, 4, 5, 61, 62, 63, 64]);
  expect(probe(db, p, "alpha")).toEqual(freshProbe(path, p, "alpha"));
  db.close();
});

it("finds a word's units again once a reword on this connection makes it rare", () => {
  const { dir, path, db, p } = storeWith(false);
  expect(probe(db, p, "alpha")).toEqual([61, 62, 63, 64]);
  for (const id of TEN) rewordUnit({ db, projectId: p, root: dir }, id, `renamed unit${id}`);
  expect(probe(db, p, "alpha")).toEqual([1, 2, 3, 4, 5, 61, 62, 63, 64]);
  expect(probe(db, p, "alpha")).toEqual(freshProbe(path, p, "alpha"));
  db.close();
});

it("finds a category's units again once supersessions make its word rare", () => {
  const { path, db, p } = storeWith(false);
  expect(probe(db, p, "learning")).toEqual([61, 62, 63, 64]);
  db.transaction(() => {
    for (const id of TEN) updateMemory(db, id, { status: "superseded", superseded_by: 70 });
  })();
  expect(probe(db, p, "learning")).toEqual([1, 2, 3, 4, 5, 61, 62, 63, 64]);
  expect(probe(db, p, "learning")).toEqual(freshProbe(path, p, "learning"));
  db.close();
});

it("finds a request's word again once supersessions make it rare", () => {
  const { path, db, p } = storeWith(true);
  expect(probe(db, p, "alpha")).toEqual([61, 62, 63, 64]);
  db.transaction(() => {
    for (const id of TEN) updateMemory(db, id, { status: "superseded", superseded_by: 70 });
  })();
  expect(probe(db, p, "alpha")).toEqual([1, 2, 3, 4, 5, 61, 62, 63, 64]);
  expect(probe(db, p, "alpha")).toEqual(freshProbe(path, p, "alpha"));
  db.close();
});

it("finds a word's units again once another connection's forget makes it rare", () => {
  const { path, db, p } = storeWith(false);
  expect(probe(db, p, "alpha")).toEqual([61, 62, 63, 64]);
  const other = openDatabase(path);
  deleteMemories(other, p, TEN, {});
  other.close();
  expect(probe(db, p, "alpha")).toEqual([1, 2, 3, 4, 5, 61, 62, 63, 64]);
  db.close();
});
