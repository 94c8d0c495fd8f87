// The cards' dependencies for an app: its database, project, root and a ranker kept until the graph changes.
import type { App } from "../app.js";
import { createRanker, type Ranker } from "../retrieval/rank.js";
import { getMeta } from "../storage/meta.js";
import type { CardsDeps } from "./service.js";

const rankers = new WeakMap<App, { stamp: string | undefined; ranker: Ranker }>();

/** The app's ranker, rebuilt only after the graph changed (its caches hold the file universe and term counts). */
export function cardsDeps(app: App): CardsDeps {
  const stamp = getMeta(app.db, "graph.last_run");
  let cached = rankers.get(app);
  if (!cached || cached.stamp !== stamp) {
    cached = {
      stamp,
      ranker: createRanker(app.db, { embedder: app.embedding.embedder, vectorsEnabled: app.embedding.vectorsEnabled }),
    };
    rankers.set(app, cached);
  }
  return { db: app.db, projectId: app.project.id, root: app.location.root, ranker: cached.ranker };
}
