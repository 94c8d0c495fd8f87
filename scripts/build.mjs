// Build: compile src/ to dist/, copy SQL migrations, mark the CLI executable.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const tsc = require.resolve("typescript/bin/tsc");

rmSync(join(root, "dist"), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: "inherit" });
const migrations = join(root, "src", "storage", "migrations");
if (existsSync(migrations)) {
  cpSync(migrations, join(root, "dist", "storage", "migrations"), {
    recursive: true,
    filter: (p) => !p.endsWith(".ts"),
  });
}
chmodSync(join(root, "dist", "cli.js"), 0o755);
