// Paths a tool reads must lie inside the client's MCP roots, the project, or the clients' own transcript folders.
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";

import { AppError } from "../errors.js";

/** Where agents keep their session logs: read by compress_context even though they lie outside the project. */
export function transcriptDirs(home = homedir()): string[] {
  return [
    join(home, ".claude", "projects"),
    join(home, ".codex", "sessions"),
    join(home, ".codex", "archived_sessions"),
  ];
}

const inside = (dir: string, p: string) => {
  const r = relative(dir, p);
  return r === "" || (!r.startsWith("..") && !isAbsolute(r));
};

/** Resolves `path` against the project root and checks it against the roots; no roots given means no check. */
export function checkReadable(path: string, opts: { root: string; roots: readonly string[]; home?: string }): string {
  const abs = resolve(opts.root, path);
  if (opts.roots.length === 0) return abs;
  const allowed = [...opts.roots, opts.root, ...transcriptDirs(opts.home)];
  if (allowed.some((d) => inside(resolve(d), abs))) return abs;
  throw new AppError(
    "OUTSIDE_ROOTS",
    `${abs} lies outside this client's roots (${opts.roots.join(", ")}) and the agents' transcript folders; pass a path inside them`,
  );
}
