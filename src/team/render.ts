// Team units as text: category, status, text, author and id.

/** Team hits as lines: category, author, text, id. */
export function renderTeamHits(r: {
  source: string;
  hits: { uid: string; category: string; text: string; status: string; author: string }[];
}): string {
  if (r.hits.length === 0) return `_No team units match (${r.source})._`;
  return [
    `team units (${r.source}):`,
    ...r.hits.map(
      (h) =>
        `- [${h.category}${h.status !== "active" ? `, ${h.status}` : ""}] ${h.text.replace(/\s+/g, " ").slice(0, 300)} — ${h.author} (${h.uid})`,
    ),
  ].join("\n");
}
