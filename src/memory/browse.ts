// The units as the viewer shows them: a page of units under filters, units by id, the filter bar's counts, a
// project's units for `memcards memories`, and what a unit's card shows beside its text.
import { fileStamp } from "../storage/graph/files.js";
import {
  browseMemories,
  getMemory,
  listMemories,
  memoriesById,
  memoryCounts,
  type MemoryCursor,
  type MemoryFilter,
  type MemoryRow,
  supersededBy,
} from "../storage/memories.js";
import type { ProjectScope } from "../storage/scope.js";

export type { MemoryCursor, MemoryFilter, MemoryRow };

type Scope = Pick<ProjectScope, "db" | "projectId">;

/** One page of the project's units under `filter`, newest first (from `cursor`), and how many match in all. */
export function browseUnits(
  scope: Scope,
  filter: MemoryFilter,
  limit: number,
  cursor: MemoryCursor = { offset: 0 },
): { units: MemoryRow[]; total: number } {
  return browseMemories(scope.db, scope.projectId, filter, limit, cursor);
}

/** The project's units with these ids, in the order given (ids of other projects or of no unit are left out). */
export function unitsById(scope: Scope, ids: readonly number[]): MemoryRow[] {
  return memoriesById(scope.db, scope.projectId, ids);
}

/** How many units there are per category, tier and status. */
export function unitFacets(scope: Scope): { category: string; tier: string; status: string; n: number }[] {
  return memoryCounts(scope.db, scope.projectId);
}

/** The project's units, most important first: active ones unless `includeInactive`, at most `limit` (100). */
export function listUnits(
  scope: Scope,
  opts: { category?: string; tier?: string; includeInactive?: boolean; limit?: number } = {},
): MemoryRow[] {
  return listMemories(scope.db, scope.projectId, opts);
}

/** What a unit's card shows beside its text. */
export interface UnitContext {
  /** The units it superseded, newest first (at most five). */
  history: { id: number; text: string }[];
  /** The unit it conflicts with, if any. */
  conflict: MemoryRow | undefined;
  /** The files it cites that the index saw change after the unit was last written. */
  staleFiles: string[];
}

export function unitContext(scope: Scope, u: MemoryRow): UnitContext {
  const written = Date.parse(u.updated_at);
  return {
    history: supersededBy(scope.db, u.id),
    conflict: u.conflicts_with ? getMemory(scope.db, u.conflicts_with) : undefined,
    staleFiles: u.files.filter((f) => {
      const s = fileStamp(scope.db, f);
      return s !== undefined && s.mtime_ms > written;
    }),
  };
}
