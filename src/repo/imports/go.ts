// Go imports: module paths from go.mod, else a package directory of this repo the import path ends in.
import type { ImportRef } from "../symbols.js";
import { joinPath, type RepoIndex } from "./repo-index.js";

function goPackageFiles(index: RepoIndex, dir: string): string[] {
  return (index.byDir.get(dir) ?? []).filter((p) => p.endsWith(".go") && !p.endsWith("_test.go"));
}

export function resolveGo(index: RepoIndex, _from: string, ref: ImportRef): string[] {
  const spec = ref.spec;
  let best: { dir: string; mod: string } | undefined;
  for (const [dir, mod] of Object.entries(index.manifests.goModules)) {
    if ((spec === mod || spec.startsWith(mod + "/")) && (!best || mod.length > best.mod.length)) best = { dir, mod };
  }
  if (best) return goPackageFiles(index, joinPath(best.dir, spec.slice(best.mod.length + 1)));
  // No go.mod matched: a non-standard import path may still end in a package directory of this repo.
  if (!spec.split("/")[0]!.includes(".")) return [];
  const parts = spec.split("/");
  for (let i = 1; i < parts.length; i++) {
    const tail = parts.slice(i).join("/");
    for (const dir of index.byDir.keys()) {
      if (dir === tail || dir.endsWith("/" + tail)) {
        const files = goPackageFiles(index, dir);
        if (files.length > 0) return files;
      }
    }
  }
  return [];
}
