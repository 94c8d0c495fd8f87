// `npm test`: build, then the fast tier, then the integration tier (vitest projects, see vitest.config.ts), and end
// with one plain "tests: N passed, M failed" line that any CI can read.
// `--tier fast` or `--tier integration` runs one tier (`npm run test:fast`, `npm run test:integration`);
// `--data` runs the development-data suite instead (`npm run test:data`). Other arguments go to vitest.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

const args = process.argv.slice(2);
const data = args.includes("--data");
const tierAt = args.indexOf("--tier");
const tier = tierAt >= 0 ? args[tierAt + 1] : undefined;
if (tierAt >= 0 && tier !== "fast" && tier !== "integration") {
  console.error(`--tier takes fast or integration, not ${tier ?? "nothing"}`);
  process.exit(2);
}
const passThrough = args.filter((a, i) => a !== "--data" && (tierAt < 0 || (i !== tierAt && i !== tierAt + 1)));
// Files or names given: a tier holding none of them passes rather than failing on "no test files found".
if (passThrough.some((a) => !a.startsWith("-"))) passThrough.push("--passWithNoTests");

const build = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: "inherit", cwd: root });
if (build.status !== 0) process.exit(build.status ?? 1);

const vitest = join(dirname(require.resolve("vitest/package.json")), "vitest.mjs");
const outDir = mkdtempSync(join(tmpdir(), "memcards-vitest-"));

/** Runs one vitest invocation; returns its counts, or undefined when vitest wrote no results. */
function run(name, extraArgs, env) {
  const outFile = join(outDir, `${name}.json`);
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    [vitest, "run", "--reporter=default", "--reporter=json", `--outputFile.json=${outFile}`, ...extraArgs],
    { stdio: "inherit", cwd: root, env },
  );
  const seconds = Math.round((Date.now() - started) / 1000);
  let counts;
  try {
    const j = JSON.parse(readFileSync(outFile, "utf8"));
    // A file that failed before any test ran (an import error, a throwing hook) counts as one failed test.
    const brokenFiles = (j.testResults ?? []).filter(
      (f) => f.status === "failed" && !(f.assertionResults ?? []).some((a) => a.status === "failed"),
    ).length;
    counts = {
      passed: j.numPassedTests ?? 0,
      failed: (j.numFailedTests ?? 0) + brokenFiles,
      skipped: (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0),
    };
  } catch {
    // vitest crashed before writing results; its own output says why.
  }
  return { status: r.status ?? 1, counts, seconds };
}

// The integration tier runs memcards against pinned tools that declare Node 22 (Claude Code, the MCP Inspector):
// they live in test/engines, installed apart so that memcards' own install stays free of engine warnings. When they
// are missing they are installed here once; where that cannot be done their suites say so and skip (fail in CI).
if (!data && tier !== "fast" && !existsSync(join(root, "test", "engines", "node_modules", ".package-lock.json"))) {
  console.log("installing the integration tier's pinned tools into test/engines (npm run engines)");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["ci", "--prefix", "test/engines", "--no-audit", "--no-fund", "--loglevel=error"], {
    stdio: "inherit",
    cwd: root,
  });
  if (r.status !== 0) console.log("could not install test/engines: the suites that need those tools will say so");
}

const env = { ...process.env, ...(data ? { MEMCARDS_TEST_SUITE: "data" } : {}) };
const runs = data
  ? [["data", run("data", passThrough, env)]]
  : (tier ? [tier] : ["fast", "integration"]).map((t) => [t, run(t, ["--project", t, ...passThrough], env)]);
rmSync(outDir, { recursive: true, force: true });

const total = { passed: 0, failed: 0, skipped: 0 };
let written = true;
for (const [name, r] of runs) {
  if (!r.counts) {
    written = false;
    console.log(`${name}: no test results were written (${r.seconds} s)`);
    continue;
  }
  for (const k of Object.keys(total)) total[k] += r.counts[k];
  const skipped = r.counts.skipped ? `, ${r.counts.skipped} skipped` : "";
  if (runs.length > 1)
    console.log(`${name} tier: ${r.counts.passed} passed, ${r.counts.failed} failed${skipped} (${r.seconds} s)`);
}
const skipped = total.skipped ? `, ${total.skipped} skipped` : "";
console.log(
  written ? `tests: ${total.passed} passed, ${total.failed} failed${skipped}` : "no test results were written",
);
process.exit(runs.every(([, r]) => r.status === 0) && written ? 0 : 1);
