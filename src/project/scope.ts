// The project a domain call works on: its open database, its row id and its root folder.
import { AppError } from "../errors.js";
import type { Db } from "../storage/db.js";

/** What every domain function takes instead of the whole app (a plain interface: the database is no data shape). */
export interface ProjectScope {
  db: Db;
  projectId: number;
  /** The project's root folder (absolute). */
  root: string;
  /** Set when no project was found and the per-user store serves: memory works, but nothing is indexed there. */
  userStore?: true;
}

/** The error for work that needs a project (indexing, cards) when only the per-user store was found. */
export function noProject(userDir: string): AppError {
  return new AppError(
    "NO_PROJECT",
    `no project here: this folder is not inside a git repository and no --root was given, so memcards would use ` +
      `its per-user store in ${userDir}, which holds memory but is never indexed as a project. Run memcards inside ` +
      `your project's folder, or pass it: --root /path/to/project (or MEMCARDS_ROOT; MCP clients send it as a root).`,
  );
}
