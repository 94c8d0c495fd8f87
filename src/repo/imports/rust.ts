// Rust imports: `mod x;` declarations and `use` paths (crate, self, super, the crate's own name, 2018 uniform paths).
import { baseName } from "../languages.js";
import type { ImportRef } from "../symbols.js";
import { dirOf, joinPath, type RepoIndex } from "./repo-index.js";

interface RustCrate {
  dir: string;
  src: string;
  name: string | undefined;
}

function rustCrateOf(index: RepoIndex, from: string): RustCrate {
  let dir = dirOf(from);
  for (;;) {
    if (index.paths.has(joinPath(dir, "Cargo.toml"))) {
      return { dir, src: joinPath(dir, "src"), name: index.manifests.rustCrates[dir] };
    }
    if (dir === "") break;
    dir = dirOf(dir);
  }
  const at = from.lastIndexOf("/src/");
  const src = from.startsWith("src/") ? "src" : at >= 0 ? from.slice(0, at + 4) : "src";
  return { dir: dirOf(src), src, name: undefined };
}

/** Module path of a file inside its crate's src/ (lib.rs → [], a/mod.rs → [a], a/b.rs → [a, b]). */
function rustModuleOf(crate: RustCrate, from: string): string[] | undefined {
  if (!from.startsWith(crate.src + "/")) return undefined;
  const rel = from.slice(crate.src.length + 1).replace(/\.rs$/, "");
  if (rel === "lib" || rel === "main") return [];
  const segs = rel.split("/");
  if (segs[segs.length - 1] === "mod") segs.pop();
  return segs;
}

function rustModuleFile(index: RepoIndex, crate: RustCrate, segs: readonly string[]): string | undefined {
  if (segs.length === 0) {
    for (const root of ["lib.rs", "main.rs"])
      if (index.paths.has(joinPath(crate.src, root))) return joinPath(crate.src, root);
    return undefined;
  }
  const base = joinPath(crate.src, ...segs);
  for (const c of [`${base}.rs`, `${base}/mod.rs`]) if (index.paths.has(c)) return c;
  return undefined;
}

/** The file of the longest prefix of `segs` (at least `minK` segments; 0 is the crate root) that is a module. */
function rustLongest(index: RepoIndex, crate: RustCrate, segs: readonly string[], minK: number): string | undefined {
  for (let k = segs.length; k >= minK; k--) {
    const f = rustModuleFile(index, crate, segs.slice(0, k));
    if (f) return f;
  }
  return undefined;
}

export function resolveRust(index: RepoIndex, from: string, ref: ImportRef): string[] {
  const crate = rustCrateOf(index, from);
  const mod = /^mod\s+(\w+)$/.exec(ref.spec);
  if (mod) {
    const stem = baseName(from).replace(/\.rs$/, "");
    const dir = ["lib", "main", "mod"].includes(stem) ? dirOf(from) : joinPath(dirOf(from), stem);
    for (const c of [joinPath(dir, `${mod[1]}.rs`), joinPath(dir, mod[1]!, "mod.rs")])
      if (index.paths.has(c)) return [c];
    return [];
  }
  const parts = ref.spec.split("::").filter(Boolean);
  const here = rustModuleOf(crate, from);
  // `minK`: how many leading segments must name a module of this crate (an item may follow them).
  let base: string[] | undefined;
  let minK = 0;
  const head = parts[0];
  if (head === "crate" || (head !== undefined && head === crate.name)) base = parts.slice(1);
  else if (head === "self" && here) {
    base = [...here, ...parts.slice(1)];
    minK = here.length + 1;
  } else if (head === "super" && here) {
    let i = 0;
    const segs = [...here];
    while (parts[i] === "super") {
      segs.pop();
      i++;
    }
    base = [...segs, ...parts.slice(i)];
    minK = segs.length;
  } else if (here) {
    // 2018 uniform paths: a child module of the current one; anything else is an external crate.
    base = [...here, ...parts];
    minK = here.length + 1;
  }
  if (!base) return [];
  const out = new Set<string>();
  for (const n of ref.names ?? []) {
    if (n === "*" || n === "self") continue;
    const f = rustLongest(index, crate, [...base, ...n.split("::")], minK);
    if (f) out.add(f);
  }
  const f = rustLongest(index, crate, base, minK);
  if (f) out.add(f);
  return [...out];
}
