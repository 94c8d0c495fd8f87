// One-hop neighborhood of a node, found by id, repo path or symbol name.
import { z } from "zod";

import { AppError } from "../errors.js";
import type { Db } from "../storage/db.js";
import { edgesOf } from "../storage/graph/edges.js";
import { findNodes, getNode, getNodeByKey, getNodes, type NodeRow } from "../storage/graph/nodes.js";
import { NodeBrief } from "./node-brief.js";

export { NodeBrief };

export const Neighborhood = z.object({
  node: NodeBrief,
  groups: z.array(
    z.object({
      edgeType: z.string(),
      direction: z.enum(["out", "in"]),
      total: z.number(),
      nodes: z.array(NodeBrief.extend({ weight: z.number() })),
    }),
  ),
  /** Other nodes the reference could have meant (same symbol name elsewhere). */
  alternatives: z.array(NodeBrief),
});
export type Neighborhood = z.infer<typeof Neighborhood>;

export function brief(n: NodeRow): NodeBrief {
  return {
    id: n.id,
    type: n.type,
    path: n.path,
    name: n.name,
    kind: n.kind,
    startLine: n.start_line,
    endLine: n.end_line,
    summary: n.summary,
  };
}

/** Resolves a reference: a numeric id, a repo path (file node), or a symbol name (optionally `Parent.name`). */
export function resolveNode(db: Db, ref: string): { node: NodeRow; alternatives: NodeRow[] } {
  const trimmed = ref.trim().replace(/\\/g, "/").replace(/^\.\//, "");
  if (/^\d+$/.test(trimmed)) {
    const n = getNode(db, Number(trimmed));
    if (n) return { node: n, alternatives: [] };
  }
  const file = getNodeByKey(db, `file:${trimmed}`);
  if (file) return { node: file, alternatives: [] };
  const dot = trimmed.lastIndexOf(".");
  const byName = findNodes(db, { name: trimmed, limit: 20 });
  const qualified =
    byName.length === 0 && dot > 0
      ? findNodes(db, { name: trimmed.slice(dot + 1), limit: 50 }).filter(
          (n) => n.meta?.parent === trimmed.slice(0, dot),
        )
      : [];
  const hits = byName.length ? byName : qualified;
  if (hits.length === 0) {
    throw new AppError(
      "NOT_FOUND",
      `no node matches "${ref}": give a node id, a repo-relative file path, or a symbol name (run build_context_graph if the repository changed)`,
    );
  }
  // Prefer definitions that are classes/functions over variables, then shorter paths.
  const rank = (n: NodeRow) => (n.kind === "variable" || n.kind === "constant" ? 1 : 0);
  const sorted = [...hits].sort((a, b) => rank(a) - rank(b) || (a.path ?? "").length - (b.path ?? "").length);
  return { node: sorted[0]!, alternatives: sorted.slice(1, 6) };
}

/** The node for `ref` with its edges grouped by type and direction (at most `perGroup` nodes each). */
export function neighborhood(db: Db, ref: string, perGroup = 15): Neighborhood {
  const { node, alternatives } = resolveNode(db, ref);
  const edges = edgesOf(db, node.id, 5000);
  const groups = new Map<
    string,
    { edgeType: string; direction: "out" | "in"; items: { id: number; weight: number }[] }
  >();
  for (const e of edges) {
    const out = e.src === node.id;
    const key = `${out ? "out" : "in"}:${e.type}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { edgeType: e.type, direction: out ? "out" : "in", items: [] }));
    g.items.push({ id: out ? e.dst : e.src, weight: e.weight });
  }
  const result: Neighborhood["groups"] = [];
  for (const g of groups.values()) {
    g.items.sort((a, b) => b.weight - a.weight);
    const shown = g.items.slice(0, perGroup);
    const rows = new Map(
      getNodes(
        db,
        shown.map((s) => s.id),
      ).map((r) => [r.id, r]),
    );
    result.push({
      edgeType: g.edgeType,
      direction: g.direction,
      total: g.items.length,
      nodes: shown.flatMap((s) => {
        const r = rows.get(s.id);
        return r ? [{ ...brief(r), weight: s.weight }] : [];
      }),
    });
  }
  const order = ["contains", "imports", "test_covers", "precondition", "task_memory", "similar", "conflicts"];
  result.sort((a, b) => order.indexOf(a.edgeType) - order.indexOf(b.edgeType) || (a.direction === "out" ? -1 : 1));
  return { node: brief(node), groups: result, alternatives: alternatives.map(brief) };
}
