// What `status` reports: root, database, counts, schema version and the active embedder.
import { z } from "zod";

import type { App } from "./app.js";
import { RootSource } from "./project/root.js";
import { databaseSize, schemaVersion, tableCounts } from "./storage/stats.js";
import { EmbedderMode } from "./vocab.js";

export const Status = z.object({
  version: z.string(),
  root: z.string(),
  rootSource: RootSource,
  projectKey: z.string(),
  db: z.object({ path: z.string(), bytes: z.number(), walBytes: z.number(), schemaVersion: z.number() }),
  counts: z.record(z.string(), z.number()),
  embedder: z.object({
    id: z.string(),
    dimension: z.number(),
    mode: EmbedderMode,
    vectorsEnabled: z.boolean(),
    note: z.string().optional(),
  }),
});
export type Status = z.infer<typeof Status>;

/** Collects the status of an open app. Read-only. */
export function getStatus(app: App, version: string): Status {
  const size = databaseSize(app.dbPath);
  const { embedder, vectorsEnabled, note } = app.embedding;
  return {
    version,
    root: app.location.root,
    rootSource: app.location.source,
    projectKey: app.location.key,
    db: { path: app.dbPath, bytes: size.bytes, walBytes: size.walBytes, schemaVersion: schemaVersion(app.db) },
    counts: tableCounts(app.db),
    embedder: {
      id: embedder.id,
      dimension: embedder.dimension,
      mode: embedder.mode,
      vectorsEnabled,
      ...(note ? { note } : {}),
    },
  };
}

function kib(n: number): string {
  return n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Compact markdown of a status, for the model and the terminal. */
export function renderStatus(s: Status): string {
  const counts = Object.entries(s.counts)
    .filter(([name]) => name !== "schema_migrations")
    .map(([name, n]) => `${name} ${n}`)
    .join(", ");
  const lines = [
    `# memcards ${s.version}`,
    `- root: ${s.root} (from ${s.rootSource})`,
    `- database: ${s.db.path} (${kib(s.db.bytes + s.db.walBytes)}, schema ${s.db.schemaVersion})`,
    `- rows: ${counts || "none"}`,
    `- embedder: ${s.embedder.id} (${s.embedder.mode}, ${s.embedder.dimension}-d${s.embedder.vectorsEnabled ? "" : ", vectors off"})`,
  ];
  if (s.embedder.note) lines.push(`- note: ${s.embedder.note}`);
  return lines.join("\n");
}
