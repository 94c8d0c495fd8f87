// Local stores for team tests: real SQLite files, one per developer, linked to one team project.
import { join } from "node:path";

import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import type { TeamDeps } from "../../src/team/service.js";
import { tmpDir } from "../helpers/tmp.js";

/** One developer's local store and team settings. */
export function developer(url: string, author: string, project = "demo"): TeamDeps {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  const projectId = upsertProject(db, "p", dir).id;
  return {
    scope: { db, projectId, root: dir },
    url,
    projectKey: `name:${project}`,
    who: { author, machine: `${author}-laptop` },
  };
}
