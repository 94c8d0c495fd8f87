// Review mode, per project: while it is on, newly distilled units wait (status `pending`) for a person to approve
// them; no recall, search or card uses a unit before it is approved.
import type { Db } from "../storage/db.js";
import { getMeta, setMeta } from "../storage/meta.js";

const reviewKey = (projectId: number) => `memory.review.${projectId}`;

export function isReviewMode(db: Db, projectId: number): boolean {
  return getMeta(db, reviewKey(projectId)) === "1";
}

export function setReviewMode(db: Db, projectId: number, on: boolean): void {
  setMeta(db, reviewKey(projectId), on ? "1" : "0");
}
