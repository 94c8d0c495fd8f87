// Curating units by hand: edit a unit's text, pin it (always warm), approve or reject a unit waiting for review.
// Rejecting deletes the unit as forget does.
import { AppError } from "../errors.js";
import { writeTx } from "../storage/db.js";
import { getMemory } from "../storage/memories.js";
import { moveUnitStatus, replaceUnitText, setUnitPinned } from "../storage/ui.js";
import { identifierTokens } from "../text/identifiers.js";
import { redact } from "../text/redact.js";
import { linkUnitNode } from "./distill.js";
import { forget, type MemoryDeps } from "./service.js";

const MAX_UNIT_CHARS = 4000;

function unitOf(deps: MemoryDeps, id: number) {
  const m = getMemory(deps.db, id);
  if (!m || m.project_id !== deps.projectId) throw new AppError("NOT_FOUND", `no memory unit #${id} in this project`);
  return m;
}

/** Rewrites a unit's text (redacted); its search index, graph node and vector text follow. */
export function editUnit(deps: MemoryDeps, id: number, text: string): void {
  const m = unitOf(deps, id);
  const clean = redact(text).trim();
  if (!clean || clean === "[private]")
    throw new AppError("BAD_INPUT", "a unit's text cannot be empty (or only private content); forget it instead");
  if (clean.length > MAX_UNIT_CHARS)
    throw new AppError("BAD_INPUT", `a unit's text is at most ${MAX_UNIT_CHARS} characters (got ${clean.length})`);
  const tokens = identifierTokens(`${m.category} ${clean}`).join(" ");
  replaceUnitText(deps.db, deps.projectId, id, clean, tokens, new Date().toISOString());
}

/** Pins a unit (warm for good: recall and cards consider it) or unpins it. */
export function pinUnit(deps: MemoryDeps, id: number, pinned: boolean): void {
  unitOf(deps, id);
  setUnitPinned(deps.db, deps.projectId, id, pinned, new Date().toISOString());
}

/** Approves a unit waiting for review: it becomes active and gets its graph node. */
export function approveUnit(deps: MemoryDeps, id: number): void {
  const m = unitOf(deps, id);
  if (m.status !== "pending") throw new AppError("BAD_INPUT", `unit #${id} is ${m.status}, not waiting for review`);
  writeTx(deps.db, () => {
    moveUnitStatus(deps.db, deps.projectId, id, "pending", "active", new Date().toISOString());
    linkUnitNode(deps.db, deps.projectId, id, m);
  });
}

/** Rejects a unit waiting for review: deleted for real, as forget deletes. */
export function rejectUnit(deps: MemoryDeps, id: number): void {
  const m = unitOf(deps, id);
  if (m.status !== "pending") throw new AppError("BAD_INPUT", `unit #${id} is ${m.status}, not waiting for review`);
  forget(deps, { id });
}
