// A real store for the viewer's tests: the polyglot fixture indexed, every fixture transcript compressed (summaries
// and distilled units), cards served with outcomes, and a hook log beside the database.
import { readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import type { App } from "../../src/app.js";
import { getMemoryCards, recordOutcome } from "../../src/cards/service.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { compressContext } from "../../src/session/compress.js";
import { recordMemory } from "../../src/session/memory.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

export const TRANSCRIPTS = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "transcripts");

/** A word no fixture contains, recorded in one unit so tests can find (and forget) it. */
export const CANARY = "zanzibarquokka";

export interface UiStore {
  app: App;
  root: string;
  /** Sessions stored from the transcripts. */
  sessions: string[];
  /** The unit carrying CANARY. */
  canaryId: number;
}

export async function buildUiStore(): Promise<UiStore> {
  const root = copyPolyglot();
  const app = openTestApp(root);
  await buildGraph(app.scope, app);
  const sessions: string[] = [];
  for (const f of readdirSync(TRANSCRIPTS).filter((n) => n !== "README.md")) {
    try {
      const r = compressContext(app.scope, { transcriptPath: join(TRANSCRIPTS, f), keepRecent: 2 });
      sessions.push(r.session_id);
    } catch {
      // A fixture that is not a transcript (none today) is simply not part of the store.
    }
  }
  const canary = recordMemory(app.scope, {
    category: "commitment",
    text: `Never deploy pyproj/shapes/geometry.py without the ${CANARY} review`,
    files: ["pyproj/shapes/geometry.py"],
  });
  const cards = await getMemoryCards(
    { ...app.scope, ranker: app.ranker },
    { task: "fix the area computation in pyproj/shapes/geometry.py", judge: false },
  );
  const ids = cards.cards.map((c) => c.id);
  if (ids.length) recordOutcome(app.scope, { helped: ids.slice(0, 1), notHelpful: ids.slice(1, 2) });
  const log = join(dirname(app.dbPath), "hooks.log");
  const s = sessions[0] ?? "-";
  writeFileSync(
    log,
    [
      `2026-11-20T10:00:00.000Z SessionStart ${s} injected the project brief (4 units), 1234 chars`,
      `2026-11-20T10:01:00.000Z UserPromptSubmit ${s} injected 2 card(s), 812 chars`,
      `2026-11-20T10:30:00.000Z PreCompact ${s} compressed 40 turns, 9000 → 800 tokens, probes 0.9`,
      "",
    ].join("\n"),
  );
  return { app, root, sessions, canaryId: canary.id! };
}
