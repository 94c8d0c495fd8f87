// `npm test` (and `npm run test:data`): build, run vitest, and end with one plain "N passed, N failed" line that any CI can read.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

const build = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: "inherit", cwd: root });
if (build.status !== 0) process.exit(build.status ?? 1);

// `--data`: the suite over the development data (test/data) instead of the default suites.
const args = process.argv.slice(2);
const data = args.includes("--data");
const env = { ...process.env, ...(data ? { MEMCARDS_TEST_SUITE: "data" } : {}) };

const outDir = mkdtempSync(join(tmpdir(), "memcards-vitest-"));
const outFile = join(outDir, "results.json");
const vitest = join(dirname(require.resolve("vitest/package.json")), "vitest.mjs");
const run = spawnSync(
  process.execPath,
  [
    vitest,
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${outFile}`,
    ...args.filter((a) => a !== "--data"),
  ],
  { stdio: "inherit", cwd: root, env },
);
let summary = "no test results were written";
try {
  const r = JSON.parse(readFileSync(outFile, "utf8"));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  summary = `tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : "");
} catch {
  // vitest crashed before writing results; its own output says why.
}
rmSync(outDir, { recursive: true, force: true });
console.log(summary);
process.exit(run.status ?? 1);
