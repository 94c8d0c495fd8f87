// Files a session touched or its failures cite (paths, stack frames and the identifiers they name): run-time
// evidence of where a task lives that no retrieval has.
import type { Sections } from "../conversation/schema.js";
import { extractAnchors, looksLikeCode } from "../retrieval/query.js";
import type { Db } from "../storage/db.js";
import { fileLevelNodes, symbolDefiners } from "../storage/graph/nodes.js";

export interface SessionPath {
  id: number;
  type: "file" | "test";
  why: string;
  /** The session changed the file (its ledger lists it), not only cited it in a failure. */
  edited: boolean;
}

interface FileRef {
  id: number;
  path: string;
  type: string;
}

/** At most this many identifiers of one failure are looked up among definitions, and this many failures. */
const IDENTS_PER_FAILURE = 12;
const FAILURES_READ = 20;
/** A name, possibly qualified (`tests::put_get`, `FooTest.testBar`), that does not start inside a path. */
const NAME_RE = /(?<![\w$./#-])([A-Za-z_$][\w$]*(?:(?:::|\.|#)[A-Za-z_$][\w$]*){0,4})/g;

/**
 * Identifiers a failure names that look like code (a test function, a qualified member), in order of
 * appearance, capped: each as its last segment with the qualifier before it.
 */
export function failureIdentifiers(text: string): { name: string; qualifier: string[] }[] {
  const out = new Map<string, { name: string; qualifier: string[] }>();
  for (const m of text.slice(0, 4000).matchAll(NAME_RE)) {
    // `File.java:12` is a file and line, not a member.
    if (/^:\d/.test(text.slice(m.index + m[0].length, m.index + m[0].length + 2))) continue;
    const parts = m[1]!.split(/::|\.|#/);
    const name = parts[parts.length - 1]!;
    const qualifier = parts.slice(0, -1);
    // A dotted lower-case run is a file or module name (`store.go`), not a member.
    const member = qualifier.length > 0 && m[1]!.includes("::") ? true : qualifier.some((q) => /[A-Z]/.test(q));
    if (!(looksLikeCode(name) || (member && name.length >= 3))) continue;
    if (!out.has(name)) out.set(name, { name, qualifier });
    if (out.size >= IDENTS_PER_FAILURE) break;
  }
  return [...out.values()];
}

/**
 * The indexed file defining an identifier, when exactly one does: among several, the test files (or test
 * definitions) are preferred, then those whose qualified name carries the identifier's qualifier.
 */
function definingFile(
  db: Db,
  byId: ReadonlyMap<number, FileRef>,
  ident: { name: string; qualifier: string[] },
): FileRef | undefined {
  const defs = symbolDefiners(db, ident.name);
  const one = (ds: typeof defs) => {
    const ids = new Set(ds.map((d) => d.fileId));
    return ids.size === 1 ? byId.get(ds[0]!.fileId) : undefined;
  };
  if (defs.length === 0) return undefined;
  const steps = [
    defs,
    defs.filter((d) => d.fileType === "test" || d.kind === "test"),
    defs.filter((d) => ident.qualifier.length > 0 && ident.qualifier.every((q) => d.qual.split(".").includes(q))),
  ];
  for (const ds of steps) {
    if (ds.length === 0) continue;
    const f = one(ds);
    if (f) return f;
  }
  return undefined;
}

/**
 * Indexed files one failure cites: its paths and stack frames (a bare file name resolves when exactly one
 * indexed path ends with it) and the identifiers it names that exactly one indexed file defines.
 */
function failureCites(
  db: Db,
  all: readonly FileRef[],
  byId: ReadonlyMap<number, FileRef>,
  text: string,
): { file: FileRef; name?: string }[] {
  const out: { file: FileRef; name?: string }[] = [];
  const push = (file: FileRef | undefined, name?: string) => {
    if (file && !out.some((o) => o.file.id === file.id)) out.push({ file, ...(name ? { name } : {}) });
  };
  for (const a of extractAnchors(text))
    if (a.kind === "path" || a.kind === "frame" || a.kind === "test") push(resolvePath(all, a.text));
  for (const ident of failureIdentifiers(text)) push(definingFile(db, byId, ident), ident.name);
  return out;
}

function resolvePath(all: readonly FileRef[], ref: string): FileRef | undefined {
  const clean = ref
    .replace(/^\.?\//, "")
    .replace(/::.*$/, "")
    .replace(/:\d+(:\d+)?$/, "");
  const exact = all.find((n) => n.path === clean);
  if (exact) return exact;
  const tail = all.filter((n) => n.path.endsWith(`/${clean}`));
  return tail.length === 1 ? tail[0] : undefined;
}

/**
 * Indexed files the session touched (its summary's file list) or its failures cite (paths, stack frames and
 * the identifiers they name), each with why; and, per failure (by index), the files it cites by name only.
 */
export function sessionPaths(
  db: Db,
  session: Sections,
): { paths: Map<string, SessionPath>; named: Map<number, { name: string; path: string }[]> } {
  const all = fileLevelNodes(db).filter((n) => n.type === "file" || n.type === "test");
  const byId = new Map(all.map((n) => [n.id, n]));
  const paths = new Map<string, SessionPath>();
  const named = new Map<number, { name: string; path: string }[]>();
  const add = (n: FileRef | undefined, why: string, edited: boolean) => {
    if (!n) return;
    const prev = paths.get(n.path);
    if (prev) prev.edited ||= edited;
    else paths.set(n.path, { id: n.id, type: n.type === "test" ? "test" : "file", why, edited });
  };
  session.failures.slice(0, FAILURES_READ).forEach((f, i) => {
    const cites = failureCites(db, all, byId, f.text);
    for (const c of cites) add(c.file, "cited by a failure in this session", false);
    const byName = cites.flatMap((c) =>
      c.name && !f.text.includes(c.file.path) ? [{ name: c.name, path: c.file.path }] : [],
    );
    if (byName.length) named.set(i, byName);
  });
  for (const p of Object.keys(session.files)) add(resolvePath(all, p), "touched in this session", true);
  return { paths, named };
}
