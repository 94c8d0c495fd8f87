// Renders a localization report as markdown tables: overall per rung, intervals per step, per repository.
import type { Interval } from "./bootstrap.js";
import type { RungMetrics } from "./metrics.js";
import type { LocalizeReport } from "./run.js";

const COLUMNS = [
  "acc@1",
  "acc@3",
  "acc@5",
  "acc@10",
  "mrr@10",
  "all_gold@5",
  "coverage@50",
  "p50_ms",
  "p95_ms",
] as const satisfies readonly (keyof RungMetrics)[];

const rate = (x: number) => x.toFixed(3);
const ms = (x: number) => x.toFixed(1);
const signed = (x: number) => (x > 0 ? "+" : x < 0 ? "−" : "±") + Math.abs(x).toFixed(3);
const interval = (d: Interval) =>
  `${signed(d.mean_diff)} [${signed(d.lo)}, ${signed(d.hi)}]${d.lo > 0 ? " ▲" : d.hi < 0 ? " ▼" : ""}`;
const row = (cells: readonly (string | number)[]) => `| ${cells.join(" | ")} |`;
const rule = (n: number) => `|${Array.from({ length: n }, () => "---").join("|")}|`;

/** The report as readable markdown: one table per view, then the failed tasks. */
export function renderLocalizeReport(r: LocalizeReport): string {
  const lines: string[] = [
    `${r.n_tasks} tasks scored${r.errors.length ? `, ${r.errors.length} failed and excluded (listed below)` : ""}`,
    "",
    row(["rung", ...COLUMNS]),
    rule(COLUMNS.length + 1),
  ];
  for (const rung of r.rungs) {
    const m = r.overall[rung];
    if (!m) continue;
    lines.push(row([rung, ...COLUMNS.map((c) => (c.endsWith("_ms") ? ms(m[c]) : rate(m[c])))]));
  }

  const steps = r.rungs.filter((rung) => r.diffs[rung]);
  if (steps.length) {
    lines.push(
      "",
      "Each rung against the rung below: mean difference [95% paired bootstrap interval]; ▲/▼ when it excludes 0.",
      "",
      row(["rung", "vs", "Δ acc@1", "Δ mrr@10"]),
      rule(4),
    );
    for (const rung of steps) {
      const d = r.diffs[rung]!;
      lines.push(row([rung, d.vs, interval(d["acc@1"]), interval(d["mrr@10"])]));
    }
  }

  if (r.symbols) {
    const s = r.symbols;
    lines.push(
      "",
      `Symbols (ranked \`path::Class.method\` against the fix's, ${s.n_tasks} tasks that name them): ` +
        `sym_acc@1 ${rate(s["sym_acc@1"])}, sym_acc@5 ${rate(s["sym_acc@5"])}, sym_acc@10 ${rate(s["sym_acc@10"])}.`,
    );
  }

  const repos = Object.keys(r.by_repo);
  if (repos.length) {
    const counts = new Map<string, number>();
    for (const t of r.tasks) counts.set(t.repo, (counts.get(t.repo) ?? 0) + 1);
    lines.push(
      "",
      "Per repository: acc@1 / acc@5 / mrr@10.",
      "",
      row(["repository", "n", ...r.rungs]),
      rule(r.rungs.length + 2),
    );
    for (const repo of repos) {
      const byRung = r.by_repo[repo]!;
      const cells = r.rungs.map((rung) => {
        const m = byRung[rung];
        return m ? `${rate(m["acc@1"])} / ${rate(m["acc@5"])} / ${rate(m["mrr@10"])}` : "";
      });
      lines.push(row([repo, counts.get(repo) ?? 0, ...cells]));
    }
  }

  const partial = r.tasks.filter((t) => t.missing_files);
  if (partial.length) {
    lines.push("", "Tasks scored on a tree lacking files whose content the git directory does not hold:", "");
    for (const t of partial) {
      const gold = t.missing_gold?.length ? `, gold among them: ${t.missing_gold.join(", ")}` : "";
      const n = t.missing_files ?? 0;
      lines.push(`- ${t.id}: ${n} file${n === 1 ? "" : "s"} absent${gold}`);
    }
  }

  if (r.errors.length) {
    lines.push("", "Failed tasks (excluded from every metric):", "");
    for (const e of r.errors) lines.push(`- ${e.id}: ${e.message.replace(/\s+/g, " ")}`);
  }
  return lines.join("\n");
}
