// The one rule for paths memcards reads on a client's behalf: inside the project root, the client's MCP roots,
// or the agents' own transcript folders, judged on the real path (symlinks resolved) and checked every time.
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

import { AppError } from "../errors.js";

/** Where agents keep their session logs: readable even though they lie outside the project. */
export function transcriptDirs(home = homedir()): string[] {
  return [
    join(home, ".claude", "projects"),
    join(home, ".codex", "sessions"),
    join(home, ".codex", "archived_sessions"),
  ];
}

/** What a connection or a hook may read: the project root, the client's roots (may be empty), the home folder. */
export interface ReadScope {
  root: string;
  roots: readonly string[];
  home?: string | undefined;
}

/** True when `p` is `dir` or lies under it (both absolute). */
export const inside = (dir: string, p: string): boolean => {
  const r = relative(dir, p);
  return r === "" || (r !== ".." && !r.startsWith(`..${sep}`) && !isAbsolute(r));
};

/** The real path of `p`, or of its deepest existing ancestor with the missing rest appended. */
export function realish(p: string): { real: string; exists: boolean } {
  let rest = "";
  let cur = p;
  for (;;) {
    try {
      const real = realpathSync(cur);
      return { real: rest ? join(real, rest) : real, exists: rest === "" };
    } catch {
      const up = dirname(cur);
      if (up === cur) return { real: p, exists: false };
      rest = rest ? join(basename(cur), rest) : basename(cur);
      cur = up;
    }
  }
}

/** The folders `scope` allows, each as given and as its real path. */
function allowedDirs(scope: ReadScope): { shown: string[]; real: string[] } {
  const shown = [scope.root, ...scope.roots, ...transcriptDirs(scope.home)].map((d) => resolve(d));
  // `/` allows everything: it is never a root (the callers refuse it; this is the last line).
  return { shown, real: shown.map((d) => realish(d).real).filter((d) => d !== "/") };
}

/** Absolute form of a path a client named: relative to the project root, `~/` for the home folder. */
export function absoluteFor(path: string, scope: ReadScope): string {
  if (path === "~" || path.startsWith("~/")) return join(scope.home ?? homedir(), path.slice(1));
  return resolve(scope.root, path);
}

/**
 * Resolves `path` and checks its real path against `scope`; a file that does not exist yet is judged by its
 * real parent. Returns the real path. Throws OUTSIDE_ROOTS, naming the path and what is allowed.
 */
export function allowedPath(path: string, scope: ReadScope): { path: string; exists: boolean } {
  const abs = absoluteFor(path, scope);
  const { real, exists } = realish(abs);
  const dirs = allowedDirs(scope);
  if (dirs.real.some((d) => inside(d, real))) return { path: real, exists };
  const via = real !== abs ? ` (it resolves to ${real})` : "";
  const clientRoots = scope.roots.length ? `, this client's roots (${scope.roots.join(", ")})` : "";
  throw new AppError(
    "OUTSIDE_ROOTS",
    `${abs}${via} lies outside what memcards may read: the project root ${scope.root}${clientRoots} and the agents' transcript folders (${transcriptDirs(scope.home).join(", ")}); pass a path inside them`,
  );
}

/** As `allowedPath`, for a file about to be read: a missing one is NOT_FOUND. Returns the real path. */
export function checkReadable(path: string, scope: ReadScope): string {
  const r = allowedPath(path, scope);
  if (!r.exists) throw new AppError("NOT_FOUND", `transcript not found: ${absoluteFor(path, scope)}`);
  return r.path;
}
