// Citations checked when read: a unit that cites files carries each file's content hash from when it was distilled;
// search and recall compare them with the working tree and mark the unit stale when the code moved on.
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

import { readChecked, ReadRefused } from "../project/files.js";

/** Files larger than this are not hashed (a unit citing one is never marked stale). */
const MAX_HASHED_BYTES = 4 * 1024 * 1024;

/** Whether `path` lies under `root` (not `root` itself, not a sibling that shares its prefix). */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function hashOf(root: string, file: string): string | undefined {
  const full = resolve(root, file);
  if (!inside(root, full)) return undefined;
  try {
    // Read like an indexed file: through one checked descriptor, a regular file with one link whose real path lies
    // inside the project's real root (a link out of it, a hard link or a FIFO is not read).
    const realRoot = realpathSync(root);
    const r = readChecked(full, {
      allow: (p) => {
        if (!inside(realRoot, p)) throw new ReadRefused("outside", `${p} lies outside ${realRoot}`);
      },
      maxBytes: MAX_HASHED_BYTES,
      singleLink: true,
    });
    return createHash("sha256").update(r.data).digest("hex").slice(0, 16);
  } catch {
    return undefined;
  }
}

/** The content hash of each cited file that exists under `root` now. */
export function fileHashes(root: string, files: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of files) {
    const h = hashOf(root, f);
    if (h) out[f] = h;
  }
  return out;
}

/** The cited files whose content differs from the hash the unit carries (a deleted file counts as changed). */
export function changedSince(root: string, hashes: unknown): string[] {
  if (!hashes || typeof hashes !== "object") return [];
  return Object.entries(hashes as Record<string, unknown>)
    .filter(([f, h]) => typeof h === "string" && hashOf(root, f) !== h)
    .map(([f]) => f);
}
