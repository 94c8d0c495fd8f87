// A stored summary as markdown: what fit the budget, or every stored item per section.
import type { StoredSummary } from "../compression/summaries.js";
import { SECTION_TITLES } from "./render.js";

/** A stored summary; `full` lists every stored item per section. */
export function renderStoredSummary(s: StoredSummary, full: boolean): string {
  const head = `# Session ${s.session_id} — compression #${s.compression} (${s.created_at})`;
  if (!full) return `${head}\n\n${s.markdown}`;
  const x = s.sections;
  const out: string[] = [head];
  const list = (title: string, items: string[]) =>
    out.push(`## ${title}\n${items.length ? items.join("\n") : "_None recorded._"}`);
  list(
    SECTION_TITLES.intent,
    x.intent.map((f) => `- ${f.text} (${f.turn})`),
  );
  list(
    SECTION_TITLES.constraints,
    x.constraints.map((f) => `- "${f.text}" (${f.turn})`),
  );
  list(
    SECTION_TITLES.files,
    Object.entries(x.files).map(([p, ops]) => `- \`${p}\` — ${ops.map((o) => `${o.op} (${o.turn})`).join("; ")}`),
  );
  list(
    SECTION_TITLES.decisions,
    x.decisions.map((f) => `- ${f.text} (${f.turn})`),
  );
  list(
    SECTION_TITLES.completed,
    x.completed.map((f) => `- ${f.text} (${f.turn})`),
  );
  list(
    SECTION_TITLES.failures,
    x.failures.map(
      (f) => `- [${f.category}] ${f.text} (${f.turn}, ×${f.count})${f.remediation ? ` → ${f.remediation}` : ""}`,
    ),
  );
  list(
    SECTION_TITLES.metrics,
    Object.entries(x.metrics).map(([k, m]) => `- ${k}: ${m.value} (${m.turn})`),
  );
  list(
    SECTION_TITLES.state,
    x.state.map((f) => `${f.text} (${f.turn})`),
  );
  list(
    SECTION_TITLES.blockers,
    x.blockers.map((f) => `- ${f.text} (${f.turn})`),
  );
  list(
    SECTION_TITLES.next,
    x.next.map((f) => `- ${f.text} (${f.turn})`),
  );
  return out.join("\n\n");
}
