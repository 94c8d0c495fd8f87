// Build: compile src/ and bench/ to dist/src and dist/bench, copy SQL migrations, write the CLI entry.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, rmSync, writeFileSync } from "node:fs";
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
  cpSync(migrations, join(root, "dist", "src", "storage", "migrations"), {
    recursive: true,
    filter: (p) => !p.endsWith(".ts"),
  });
}
const teamMigrations = join(root, "src", "storage", "team", "migrations");
if (existsSync(teamMigrations))
  cpSync(teamMigrations, join(root, "dist", "src", "storage", "team", "migrations"), { recursive: true });
// dist/cli.js stays the entry every registration and hook names; it hands its own path to the CLI.
const entry = join(root, "dist", "cli.js");
writeFileSync(
  entry,
  [
    "#!/usr/bin/env node",
    "// memcards CLI entry: registrations and hooks name this file.",
    'import { fileURLToPath } from "node:url";',
    'import { run } from "./src/cli/entry.js";',
    "await run(fileURLToPath(import.meta.url));",
    "",
  ].join("\n"),
);
chmodSync(entry, 0o755);
