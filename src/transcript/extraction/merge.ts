// Merging a new span's sections into the session's previous summary (design.md §1 merge rules).
import type { Fact, Failure, Sections } from "../../conversation/schema.js";
import { signature } from "../../text/signature.js";

function appendDedupe(a: Fact[], b: Fact[]): Fact[] {
  const seen = new Set(a.map((f) => signature(f.text)));
  const out = [...a];
  for (const f of b) {
    const k = signature(f.text);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(f);
    }
  }
  return out;
}

function mergeFailures(a: Failure[], b: Failure[]): Failure[] {
  const by = new Map(a.map((f) => [f.signature, { ...f }]));
  for (const f of b) {
    const old = by.get(f.signature);
    if (old) {
      old.count += f.count;
      old.last_turn = f.last_turn;
      if (f.remediation) old.remediation = f.remediation;
      // A failure seen again in the new span is open again unless the new span settled it.
      if (f.resolved) old.resolved = f.resolved;
      else delete old.resolved;
      old.open = f.open ?? false;
    } else by.set(f.signature, { ...f });
  }
  // A failure of the earlier spans that the new span did not hit again lies behind the work that followed.
  const seen = new Set(b.map((f) => f.signature));
  for (const f of by.values()) if (!seen.has(f.signature)) f.open = false;
  return [...by.values()];
}

/**
 * Intent accumulates; files are a union keyed by path with operations appended; decisions, constraints,
 * completed work and failures append and dedupe; metrics keep the latest value with history;
 * current state, blockers and next steps take the latest span's (kept when the new span has none).
 */
export function mergeSections(prev: Sections, next: Sections): Sections {
  const files: Sections["files"] = {};
  for (const [p, ops] of Object.entries(prev.files)) files[p] = [...ops];
  // An edit among the kept turns of one span is listed by that span and again by the span that summarizes it.
  for (const [p, ops] of Object.entries(next.files)) {
    const had = files[p] ?? [];
    files[p] = [...had, ...ops.filter((o) => !had.some((h) => h.op === o.op && h.turn === o.turn))];
  }
  const metrics: Sections["metrics"] = { ...prev.metrics };
  for (const [k, m] of Object.entries(next.metrics)) {
    const old = metrics[k];
    metrics[k] = { ...m, history: [...(old?.history ?? []), ...m.history].slice(-5) };
  }
  return {
    intent: appendDedupe(prev.intent, next.intent),
    files,
    decisions: appendDedupe(prev.decisions, next.decisions),
    state: next.state.length > 0 ? next.state : prev.state,
    blockers: next.state.length > 0 ? next.blockers : prev.blockers,
    next: next.next.length > 0 ? next.next : prev.next,
    constraints: appendDedupe(prev.constraints, next.constraints),
    completed: appendDedupe(prev.completed, next.completed),
    failures: mergeFailures(prev.failures, next.failures),
    metrics,
  };
}

export function emptySections(): Sections {
  return {
    intent: [],
    files: {},
    decisions: [],
    state: [],
    blockers: [],
    next: [],
    constraints: [],
    completed: [],
    failures: [],
    metrics: {},
  };
}
