// Test runner settings: real SQLite, real MCP transports; child-process tests need generous timeouts.
// `npm test` runs every suite but test/data; `npm run test:data` runs only test/data, which reads the
// development data (MEMCARDS_DATA, else ../shared/data beside the repository).
import { configDefaults, defineConfig } from "vitest/config";

const dataSuite = process.env.MEMCARDS_TEST_SUITE === "data";

export default defineConfig({
  test: {
    include: dataSuite ? ["test/data/**/*.test.ts"] : ["test/**/*.test.ts"],
    exclude: dataSuite ? configDefaults.exclude : [...configDefaults.exclude, "test/data/**"],
    globalSetup: ["test/setup/build.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
