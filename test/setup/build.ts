// Before any suite: worker, CLI and stdio tests run the built dist/, so a plain `npx vitest run` builds it when a
// source file is newer than the build (`npm test` has just built, so this finds nothing to do).
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The newest modification time under `dir` (0 when it does not exist). */
function newest(dir: string): number {
  let max = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    max = Math.max(max, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return max;
}

export default function setup(): void {
  let built = 0;
  try {
    built = statSync(join(root, "dist", "cli.js")).mtimeMs;
  } catch {
    // never built
  }
  const sources = Math.max(
    newest(join(root, "src")),
    newest(join(root, "bench")),
    statSync(join(root, "package.json")).mtimeMs,
  );
  if (built > sources) return;
  process.stderr.write("dist/ is older than the sources: building first\n");
  const r = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) throw new Error("the build failed; see its output above");
}
