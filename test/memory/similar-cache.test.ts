// The duplicate, contradiction and same-subject checks keep each common term's count on the connection: what they
// find is what a new connection (nothing kept) finds, after units are added, superseded, reworded and forgotten on
// this connection, and after another connection writes.
import { join } from "node:path";

import { expect, it } from "vitest";

import { rewordUnit } from "../../src/memory/curate.js";
import { writeUnit } from "../../src/memory/distill.js";
import { type Db, openDatabase } from "../../src/storage/db.js";
import { deleteMemories, similarMemories } from "../../src/storage/memories.js";
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
