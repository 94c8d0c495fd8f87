// Folders memcards creates for its own files (the store, the hook log).
import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Creates `dir` and its missing parents one level at a time. (Node's recursive mkdir spins forever on some
 * pseudo file systems such as /proc; walking down from the nearest existing ancestor fails fast instead.)
 */
export function ensureDir(dir: string): void {
  const missing: string[] = [];
  let cur = dir;
  for (;;) {
    try {
      if (!statSync(cur).isDirectory()) throw new Error(`${cur} is not a directory`);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      missing.push(cur);
      const up = dirname(cur);
      if (up === cur) break;
      cur = up;
    }
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}
