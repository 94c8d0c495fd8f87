// Plain-text renderings of graph results, shared by the CLI and the MCP tools.
import type { GraphBuildResult } from "./build-graph.js";
import type { Neighborhood } from "./neighborhood.js";

const fmt = (rec: Record<string, number>) =>
  Object.entries(rec)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(", ") || "none";

/** Summary of a build: files, nodes and edges per type, skips by reason, timings. */
export function renderBuild(r: GraphBuildResult): string {
  const lines = [
    `${r.cancelled ? "Cancelled" : "Indexed"} ${r.root} (${r.mode}): ${r.files.scanned} files, ${r.files.parsed} parsed, ${r.files.unchanged} unchanged, ${r.files.deleted} deleted`,
    `nodes: ${fmt(r.counts.nodes)}`,
    `edges: ${fmt(r.counts.edges)}`,
    `skipped: ${fmt(r.skipped)}`,
    `time: ${r.ms.total} ms (scan ${r.ms.scan}, parse ${r.ms.parse}, edges ${r.ms.edges}; vectors ${r.embedMs} ms for ${r.embedded} items), ${r.filesPerSecond} files/s`,
  ];
  if (r.files.regexFallback) lines.push(`regex fallback: ${r.files.regexFallback} files (grammar failed)`);
  if (r.files.overBudget) lines.push(`over budget: ${r.files.overBudget} files (indexed lexically)`);
  return lines.join("\n");
}

/** One node and its one-hop neighborhood, grouped by edge type and direction. */
export function renderNeighborhood(n: Neighborhood): string {
  const label = (x: { type: string; path: string | null; name: string | null; startLine: number | null }) =>
    x.type === "symbol" ? `${x.name} (${x.path}:${x.startLine})` : (x.path ?? x.name ?? "?");
  const out = [`${n.node.type} ${label(n.node)} [id ${n.node.id}]`];
  if (n.node.summary) out.push(`  ${n.node.summary}`);
  if (n.node.stale) out.push("  stale: a cited file or symbol changed since");
  for (const g of n.groups) {
    out.push(`${g.direction === "out" ? "→" : "←"} ${g.edgeType} (${g.total})`);
    for (const x of g.nodes) out.push(`  ${x.type} ${label(x)} [id ${x.id}]${x.weight !== 1 ? ` w=${x.weight}` : ""}`);
    if (g.total > g.nodes.length) out.push(`  … ${g.total - g.nodes.length} more`);
  }
  if (n.groups.length === 0) out.push("(no edges)");
  if (n.alternatives.length)
    out.push(`also named so: ${n.alternatives.map((a) => `${label(a)} [id ${a.id}]`).join(", ")}`);
  return out.join("\n");
}
