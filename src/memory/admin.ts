// Keeping the store clean and portable: audit, export/import (JSONL), and a per-project pause.
import { readFileSync } from "node:fs";

import { z } from "zod";

import { AppError } from "../errors.js";
import type { Db } from "../storage/db.js";
import { fileStamp } from "../storage/graph/files.js";
import { listMemories, type MemoryRow } from "../storage/memories.js";
import { getMeta, setMeta } from "../storage/meta.js";
import { clipWords } from "../text/cut.js";
import { count } from "../text/plural.js";
import { canonicalCategory, CategoryName } from "../vocab.js";
import { type DistillResult, writeUnits } from "./distill.js";
import { isReviewMode } from "./review.js";
import type { UnitDraft } from "./schema.js";

const pauseKey = (projectId: number) => `memory.paused.${projectId}`;

/** While paused, nothing from conversations is stored for this project (summaries, units, raw turns). */
export function isPaused(db: Db, projectId: number): boolean {
  return getMeta(db, pauseKey(projectId)) === "1";
}

export function setPaused(db: Db, projectId: number, paused: boolean): void {
  setMeta(db, pauseKey(projectId), paused ? "1" : "0");
}

export interface AuditReport {
  units: number;
  duplicates: { count: number; examples: string[] };
  stale: { count: number; examples: string[] };
  superseded: { count: number; examples: string[] };
  conflicts: { count: number; examples: string[] };
  without_evidence: { count: number; examples: string[] };
}

/** Duplicates, stale units (cited code changed since), superseded units, conflicts, units without evidence. */
export function auditMemory(db: Db, projectId: number): AuditReport {
  const rows = listMemories(db, projectId, { includeInactive: true, limit: 100_000 });
  const ex = (list: MemoryRow[]) => list.slice(0, 5).map((m) => `#${m.id} [${m.category}] ${clipWords(m.text, 100)}`);
  const byKey = new Map<string, MemoryRow[]>();
  for (const m of rows.filter((r) => r.status === "active")) {
    const k = `${m.category}\u0000${m.merge_key}`;
    byKey.set(k, [...(byKey.get(k) ?? []), m]);
  }
  const dups = [...byKey.values()].filter((g) => g.length > 1).flat();
  const stale = rows.filter((m) => {
    if (m.status !== "active") return false;
    return m.files.some((f) => {
      const stamp = fileStamp(db, f);
      return stamp !== undefined && stamp.mtime_ms > Date.parse(m.updated_at);
    });
  });
  const superseded = rows.filter((m) => m.status === "superseded");
  const conflicts = rows.filter((m) => m.status === "conflict");
  const noEvidence = rows.filter((m) => m.evidence.length === 0);
  return {
    units: rows.length,
    duplicates: { count: dups.length, examples: ex(dups) },
    stale: { count: stale.length, examples: ex(stale) },
    superseded: { count: superseded.length, examples: ex(superseded) },
    conflicts: { count: conflicts.length, examples: ex(conflicts) },
    without_evidence: { count: noEvidence.length, examples: ex(noEvidence) },
  };
}

export function renderAudit(a: AuditReport): string {
  const part = (title: string, p: { count: number; examples: string[] }) => [
    `${title}: ${p.count}`,
    ...p.examples.map((e) => `  ${e}`),
  ];
  return [
    `${count(a.units, "memory unit")}`,
    ...part("duplicates (same unit stored twice)", a.duplicates),
    ...part("stale (a cited file changed since)", a.stale),
    ...part("superseded (kept as history)", a.superseded),
    ...part("in conflict", a.conflicts),
    ...part("without evidence", a.without_evidence),
  ].join("\n");
}

/** The longest unit text an import takes (as an edit allows); a longer line is skipped. */
const MAX_IMPORTED_CHARS = 4000;

const ExportLine = z.object({
  category: CategoryName.transform(canonicalCategory),
  text: z.string().min(1).max(MAX_IMPORTED_CHARS),
  record: z.record(z.string(), z.unknown()).default({}),
  key: z.string().min(1),
  confidence: z.number().min(0).max(1),
  evidence: z.array(z.object({ session: z.string().optional(), turn: z.string(), quote: z.string() })).default([]),
  files: z.array(z.string()).default([]),
  status: z.string().optional(),
  session_id: z.string().nullable().optional(),
  created_at: z.string().optional(),
});

/** One JSON object per unit (active units; with `all`, history and conflicts too). */
export function exportMemory(db: Db, projectId: number, all = false): string {
  return listMemories(db, projectId, { includeInactive: all, limit: 1_000_000 })
    .map((m) =>
      JSON.stringify({
        category: m.category,
        text: m.text,
        record: m.record,
        key: m.merge_key,
        confidence: m.confidence,
        evidence: m.evidence,
        files: m.files,
        status: m.status,
        session_id: m.session_id,
        created_at: m.created_at,
      }),
    )
    .join("\n");
}

/**
 * Imports an export through the same cross-referencing (duplicates merge) and redaction as any unit; bad lines
 * (or a text over 4000 characters) are counted, not fatal. A unit exported while waiting for review still waits,
 * and in review mode every imported unit waits for approval.
 */
export function importMemory(
  db: Db,
  projectId: number,
  file: string,
): { imported: number; merged: number; skipped: number } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new AppError("NOT_FOUND", `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? "unreadable"}`, {
      cause: err,
    });
  }
  let skipped = 0;
  const drafts: UnitDraft[] = [];
  const waiting: UnitDraft[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const r = ExportLine.parse(JSON.parse(line));
      if (r.status === "superseded") continue;
      (r.status === "pending" ? waiting : drafts).push({
        category: r.category,
        text: r.text,
        record: r.record,
        key: r.key,
        confidence: r.confidence,
        evidence: r.evidence,
        files: r.files,
      });
    } catch {
      skipped++;
    }
  }
  const review = isReviewMode(db, projectId);
  const results: DistillResult[] = [];
  if (review) results.push(writeUnits(db, projectId, "imported", [], [...drafts, ...waiting], { pending: true }));
  else {
    results.push(writeUnits(db, projectId, "imported", [], drafts));
    if (waiting.length) results.push(writeUnits(db, projectId, "imported", [], waiting, { pending: true }));
  }
  const sum = (k: "added" | "merged") => results.reduce((n, r) => n + r[k], 0);
  return { imported: sum("added"), merged: sum("merged"), skipped };
}
