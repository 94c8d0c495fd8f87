// The package's own folder and version, found from this module wherever the build puts it.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** memcards' package folder: the nearest folder above this module holding package.json. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) return dirname(fileURLToPath(import.meta.url));
    dir = up;
  }
  return dir;
}

/** Reads memcards' version from its package.json. */
export function packageVersion(): string {
  const file = join(packageRoot(), "package.json");
  if (!existsSync(file)) return "0.0.0";
  const pkg = JSON.parse(readFileSync(file, "utf8")) as { version?: string };
  return pkg.version ?? "0.0.0";
}
