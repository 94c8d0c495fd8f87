// Test runner settings: real SQLite, real MCP transports; child-process tests need generous timeouts.
// Two tiers, as vitest projects (`npx vitest run --project fast`): `fast` holds the unit suites, real SQLite and the
// in-memory MCP client; `integration` holds what starts real binaries and servers or runs for minutes (INTEGRATION
// below). `npm test` runs fast, then integration (scripts/test.mjs). `npm run test:data` runs only test/data, which
// reads the development data (MEMCARDS_DATA, else ../shared/data beside the repository).
import { configDefaults, defineConfig } from "vitest/config";

const dataSuite = process.env.MEMCARDS_TEST_SUITE === "data";

/**
 * The integration tier. Each entry says why it is here; the split was measured with vitest's JSON reporter (per-file
 * durations, see the README's Development section).
 */
const INTEGRATION = [
  // The pinned Claude Code binary, the MCP Inspector, npm pack / mcpb pack, a scripted model over HTTP.
  "test/e2e/**/*.test.ts",
  // Chromium.
  "test/ui/browser.test.ts",
  // A PostgreSQL 15 server per file.
  "test/team/team.test.ts",
  "test/team/curation.test.ts",
  "test/team/concurrency.test.ts",
  "test/team/resilience.test.ts",
  // Security fuzzing: thousands of hostile calls over stdio and HTTP; megabytes of adversarial text per parser.
  "test/security/fuzz.test.ts",
  "test/security/no-stalls.test.ts",
  "test/security/rank-stall.test.ts",
  // Refitting the committed weights from the development dumps (CPU-bound, minutes on a busy machine).
  "test/eval/committed-fits.test.ts",
  // Indexing a 1,500-file repository in a worker thread behind a real MCP client, twice.
  "test/mcp/graph.test.ts",
  // Child-process heavy: many CLI runs, servers killed and restarted, hooks run as the client runs them.
  "test/cli/cli.test.ts",
  "test/cli/lazy-bench.test.ts",
  "test/cli/bundle.test.ts",
  "test/graph/kill-resume.test.ts",
  "test/graph/resume.test.ts",
  "test/integrate/hooks.test.ts",
  "test/integrate/worker.test.ts",
  "test/integrate/warm-stores.test.ts",
  "test/security/hooks.test.ts",
  "test/security/canary-formats.test.ts",
  "test/security/corrupt-store.test.ts",
  "test/security/stdio-cap.test.ts",
  "test/security/right-ids.test.ts",
  // Writers racing through `memcards remember` in shell loops (most of the file's time), and CLI round trips.
  "test/memory/service.test.ts",
  "test/memory/categories.test.ts",
];

const shared = {
  globalSetup: ["test/setup/build.ts"],
  setupFiles: ["test/setup/user-home.ts"],
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: dataSuite
    ? { ...shared, include: ["test/data/**/*.test.ts"], pool: "forks", maxWorkers: 2 }
    : {
        pool: "forks",
        maxWorkers: 2,
        projects: [
          {
            extends: true,
            test: {
              ...shared,
              name: "fast",
              include: ["test/**/*.test.ts"],
              exclude: [...configDefaults.exclude, "test/data/**", ...INTEGRATION],
            },
          },
          {
            extends: true,
            test: {
              ...shared,
              name: "integration",
              include: INTEGRATION,
              exclude: [...configDefaults.exclude, "test/data/**"],
            },
          },
        ],
      },
});
