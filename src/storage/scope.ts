// The project a domain call works on: its open database, its row id and its root folder.
import type { Db } from "./db.js";

/** What every domain function takes instead of the whole app (a plain interface: the database is no data shape). */
export interface ProjectScope {
  db: Db;
  projectId: number;
  /** The project's root folder (absolute). */
  root: string;
  /** Set when no project was found and the per-user store serves: memory works, but nothing is indexed there. */
  userStore?: true;
}
