// Java, Kotlin and Scala imports: package wildcards and classes (dropping trailing member segments).
import type { ImportRef } from "../symbols.js";
import { bySuffix, nearest, type RepoIndex } from "./repo-index.js";

const JVM_EXTENSIONS = [".java", ".kt", ".scala"];

export function resolveJvm(index: RepoIndex, from: string, ref: ImportRef): string[] {
  const parts = ref.spec.split(".");
  if ((ref.names ?? []).includes("*")) {
    const tail = parts.join("/");
    const out: string[] = [];
    for (const [dir, files] of index.byDir) {
      if (dir !== tail && !dir.endsWith("/" + tail)) continue;
      for (const f of files) if (JVM_EXTENSIONS.some((e) => f.endsWith(e))) out.push(f);
    }
    if (out.length > 0) return out;
  }
  // a.b.C, or a.b.C.member / a.b.C.Inner: drop trailing segments until a class file matches.
  for (let k = parts.length; k >= Math.max(1, parts.length - 2); k--) {
    const tail = parts.slice(0, k).join("/");
    for (const e of JVM_EXTENSIONS) {
      const hit = nearest(from, bySuffix(index, tail + e));
      if (hit) return [hit];
    }
  }
  return [];
}
