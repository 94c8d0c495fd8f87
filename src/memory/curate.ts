// Curating units by hand: reword a unit's text, pin it (always warm), approve or reject a unit waiting for review.
// Rejecting deletes the unit as forget does. Sharing an edited, approved or rejected unit with the team is composed
// above (session/curate.ts), so memory/ and team/ never import each other here.
import { AppError } from "../errors.js";
import { checkpointWal, optimizeFts, writeTx } from "../storage/db.js";
import { getNodeByKey } from "../storage/graph/nodes.js";
import { getMemory, indexUnitText, moveMemoryStatus, rewordMemory, setMemoryPinned } from "../storage/memories.js";
import { redact } from "../text/redact.js";
import { signature } from "../text/signature.js";
import { linkUnitNode, settleUnit } from "./distill.js";
import { forgetUnits, type MemoryDeps } from "./service.js";

/** The longest text a unit may have (an edit or an imported line). */
export const MAX_UNIT_CHARS = 4000;

function unitOf(deps: MemoryDeps, id: number) {
  const m = getMemory(deps.db, id);
  if (!m || m.project_id !== deps.projectId) throw new AppError("NOT_FOUND", `no memory unit #${id} in this project`);
  return m;
}

/**
 * The merge key of a unit's text, as distillation and record_memory derive it: a metric is keyed by its name
 * (`name: value unit`), anything else by the signature of its text.
 */
function keyOf(category: string, text: string): string {
  const metric = category === "performance" ? /^(.+?):\s*-?\d/.exec(text) : null;
  return metric ? metric[1]!.trim().toLowerCase() : signature(text);
}

/** A copy of `v` (a record or an evidence list) with the old wording replaced wherever a string carries it. */
function reword<T>(v: T, from: string, to: string): T {
  if (typeof v === "string") {
    if (v.includes(from)) return v.split(from).join(to) as T;
    // A truncated copy of the old text (a summary, a quote cut at 500 characters).
    if (v.length >= 40 && from.startsWith(v)) return to.slice(0, v.length) as T;
    return v;
  }
  if (Array.isArray(v)) return v.map((x: unknown) => reword(x, from, to)) as T;
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, reword(x, from, to)])) as T;
  return v;
}

/**
 * Rewrites a unit's text (redacted): its merge key is derived again, the old wording is replaced in its record and
 * evidence quotes, and its search index, graph node and vector text follow; the WAL is emptied so the old wording
 * is gone from the store. `alsoRewrite` runs in the same transaction, before the WAL is emptied: the other copies
 * of the wording a caller keeps (the team queue's) leave the store with it. A unit gone by the time of the write is
 * left alone.
 */
export function rewordUnit(deps: MemoryDeps, id: number, text: string, alsoRewrite?: () => void): void {
  const m = unitOf(deps, id);
  const clean = redact(text).trim();
  if (!clean || clean === "[private]")
    throw new AppError("BAD_INPUT", "a unit's text cannot be empty (or only private content); forget it instead");
  if (clean.length > MAX_UNIT_CHARS)
    throw new AppError("BAD_INPUT", `a unit's text is at most ${MAX_UNIT_CHARS} characters (got ${clean.length})`);
  const old = m.text.trim();
  const { db, projectId } = deps;
  const done = writeTx(db, () => {
    const reworded = rewordMemory(db, projectId, id, {
      text: clean,
      merge_key: keyOf(m.category, clean),
      record: old ? reword(m.record, old, clean) : m.record,
      evidence: old ? reword(m.evidence, old, clean) : m.evidence,
      updated_at: new Date().toISOString(),
    });
    // Gone since it was read (forgotten by another process): nothing of it is indexed again.
    if (!reworded) return false;
    indexUnitText(db, id, m.category, clean);
    // A unit in force has a graph node (a unit waiting for review has none yet): written again as distillation
    // writes it, its vector text re-queued and the old vector dropped.
    const node = getNodeByKey(db, `memory:${id}`) !== undefined;
    if (node) linkUnitNode(db, projectId, id, { category: m.category, text: clean, files: m.files });
    alsoRewrite?.();
    // The old wording must not linger in the indexes' pages.
    optimizeFts(db, "memories_fts");
    if (node) optimizeFts(db, "nodes_fts");
    return true;
  });
  // Freed pages are zeroed (secure_delete); the log that still holds the old pages is emptied.
  if (done) checkpointWal(db, "TRUNCATE");
}

/** Pins a unit (warm for good: recall and cards consider it) or unpins it. */
export function pinUnit(deps: MemoryDeps, id: number, pinned: boolean): void {
  unitOf(deps, id);
  setMemoryPinned(deps.db, deps.projectId, id, pinned, new Date().toISOString());
}

/**
 * Approves a unit waiting for review: it becomes active and is cross-referenced as a unit written active is (a
 * metric supersedes the previous value, a contradicted commitment is flagged) and gets its graph node.
 */
export function approvePending(deps: MemoryDeps, id: number): { superseded?: number; conflictsWith?: number } {
  const m = unitOf(deps, id);
  if (m.status !== "pending") throw new AppError("BAD_INPUT", `unit #${id} is ${m.status}, not waiting for review`);
  return writeTx(deps.db, () => {
    const now = new Date().toISOString();
    if (!moveMemoryStatus(deps.db, deps.projectId, id, "pending", "active", now))
      throw new AppError("BAD_INPUT", `unit #${id} is no longer waiting for review`);
    return settleUnit(deps.db, deps.projectId, id, { ...m, key: m.merge_key }, now);
  });
}

/**
 * Rejects a unit waiting for review: deleted for real, as forget deletes (`beforeDelete` as in `forgetUnits`, with
 * the unit's id).
 */
export function rejectPending(deps: MemoryDeps, id: number, beforeDelete: (ids: readonly number[]) => void): void {
  const m = unitOf(deps, id);
  if (m.status !== "pending") throw new AppError("BAD_INPUT", `unit #${id} is ${m.status}, not waiting for review`);
  forgetUnits(deps, { id }, beforeDelete);
}
