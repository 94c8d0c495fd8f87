// The package version, read once from package.json next to the build.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Reads memcards' version from its package.json. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "package.json"), "utf8")) as {
    version?: string;
  };
  return pkg.version ?? "0.0.0";
}
