// Which phases of the graph build completed, kept in one meta row, so a run after an interruption (a kill, a
// crash, a cancel) redoes what was left undone even when no file changed since.
import { randomUUID } from "node:crypto";

import { z } from "zod";

import type { Db } from "../storage/db.js";
import { writeTx } from "../storage/db.js";
import { fileCount } from "../storage/graph/files.js";
import { getMeta, getMetaJson, setMeta, setMetaJson } from "../storage/meta.js";

export const BuildPhase = z.enum(["parse", "edges", "vectors"]);
export type BuildPhase = z.infer<typeof BuildPhase>;

/**
 * The latest build. `complete` lists the phases whose latest run finished: parse and edges run in every build,
 * so they start over with each one; vectors run only in builds with vectors (not `--lexical-only`), so their
 * state carries over from build to build until a vectors phase runs again.
 */
export const BuildRecord = z.object({
  id: z.string(),
  startedAt: z.string(),
  complete: z.array(BuildPhase),
  /** Files the build's scan found (what a finished build indexes); absent in records of older builds. */
  files: z.number().int().nonnegative().optional(),
});
export type BuildRecord = z.infer<typeof BuildRecord>;

const KEY = "graph.build";
const LAST_RUN = "graph.last_run";
/** The state flag of stores written before build records: "building" until an index finished. */
const LEGACY_STATE = "graph.state";

/** The latest build record, or undefined (none yet, or unreadable). */
export function readBuild(db: Db): BuildRecord | undefined {
  return getMetaJson(db, KEY, BuildRecord);
}

/** Whether `phase` of the latest build finished (true for a store that never started a build). */
export function phaseComplete(db: Db, phase: BuildPhase): boolean {
  const rec = readBuild(db);
  if (rec) return rec.complete.includes(phase);
  return getMeta(db, LEGACY_STATE) !== "building";
}

/** Records the start of a build over `files` scanned files (a fresh id; vectors keep their state) and returns it. */
export function startBuild(db: Db, files?: number): BuildRecord {
  const rec: BuildRecord = {
    id: randomUUID(),
    startedAt: new Date().toISOString(),
    complete: phaseComplete(db, "vectors") ? ["vectors"] : [],
    ...(files !== undefined ? { files } : {}),
  };
  writeTx(db, () => {
    setMetaJson(db, KEY, rec);
    setMeta(db, LEGACY_STATE, "building");
  });
  return rec;
}

/**
 * Marks `phase` of build `buildId` complete (`done`) or started and not yet complete (`!done`). A phase is marked
 * complete only while `buildId` is the latest build: when another run started meanwhile (two index runs at once),
 * finishing this one must not mark the other's unfinished phases done. Marking a phase incomplete always applies.
 */
export function markPhase(db: Db, buildId: string, phase: BuildPhase, done: boolean): void {
  writeTx(db, () => {
    const rec = readBuild(db);
    if (!rec || (done && rec.id !== buildId)) return;
    const complete = rec.complete.filter((p) => p !== phase);
    if (done) complete.push(phase);
    setMetaJson(db, KEY, { ...rec, complete } satisfies BuildRecord);
    if (phase === "edges" && done) setMeta(db, LEGACY_STATE, "complete");
  });
}

/**
 * Whether the latest build left the index incomplete (its parse or edge phase unfinished), with how many files
 * the index holds and how many the build's scan found (`total` is undefined for records of older builds).
 */
export function indexCompleteness(db: Db): { partial: boolean; indexed: number; total?: number } {
  const indexed = fileCount(db);
  const rec = readBuild(db);
  const partial = !phaseComplete(db, "parse") || !phaseComplete(db, "edges");
  return { partial, indexed: rec?.files !== undefined ? Math.min(indexed, rec.files) : indexed, total: rec?.files };
}

/** The last index run: when it ended, how many files it scanned and parsed, how long it took. */
export const LastRun = z.object({ at: z.string(), files: z.number(), parsed: z.number(), ms: z.number() });
export type LastRun = z.infer<typeof LastRun>;

export function recordLastRun(db: Db, run: LastRun): void {
  setMetaJson(db, LAST_RUN, run);
}

/** The last index run, or undefined (none yet, or unreadable). */
export function readLastRun(db: Db): LastRun | undefined {
  return getMetaJson(db, LAST_RUN, LastRun);
}
