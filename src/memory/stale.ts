// Citations checked when read: a unit that cites files carries each file's content hash from when it was distilled;
// search and recall compare them with the working tree and mark the unit stale when the code moved on.
import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

import { readChecked, ReadRefused } from "../project/files.js";

/** Files larger than this are not hashed (a unit citing one is never marked stale). */
const MAX_HASHED_BYTES = 4 * 1024 * 1024;
/** Distinct files one read (a search, a recall) hashes at most; citations past it are left unchecked. */
export const MAX_CHECKED_FILES = 64;

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

/**
 * A stale check for one read: each cited file is hashed once however many units cite it, and at most `maxFiles`
 * distinct files are hashed, so a read over many units costs a bounded number of file reads.
 */
export function staleChecker(root: string, maxFiles = MAX_CHECKED_FILES): (hashes: unknown) => string[] {
  const now = new Map<string, string | undefined>();
  const current = (f: string): string | null | undefined => {
    if (now.has(f)) return now.get(f);
    if (now.size >= maxFiles) return null;
    const h = hashOf(root, f);
    now.set(f, h);
    return h;
  };
  return (hashes) => {
    if (!hashes || typeof hashes !== "object") return [];
    return Object.entries(hashes as Record<string, unknown>)
      .filter(([f, h]) => {
        if (typeof h !== "string") return false;
        const c = current(f);
        return c !== null && c !== h;
      })
      .map(([f]) => f);
  };
}

/**
 * A cited path as the project knows it: relative to `root`. An absolute path from a transcript that recorded no
 * working directory (or another checkout of the project) is matched by its longest tail that exists under `root`;
 * one that matches nothing is returned as it was.
 */
export function projectPath(root: string, path: string): string {
  const p = path.replace(/^file:\/\//, "");
  if (!isAbsolute(p) && !/^[A-Za-z]:[\\/]/.test(p)) return p.replace(/^\.\//, "");
  if (isAbsolute(p) && inside(root, resolve(p))) return relative(root, resolve(p)).split(sep).join("/");
  const parts = p.split(/[\\/]+/).filter(Boolean);
  for (let i = 1; i < parts.length; i++) {
    const tail = parts.slice(i).join("/");
    if (existsSync(resolve(root, tail)) && inside(root, resolve(root, tail))) return tail;
  }
  return path;
}
