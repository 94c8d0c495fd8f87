// The suite's per-user folder: a temporary one in every test file (never the real ~/.memcards), removed when the
// file is done. A child vitest runs one probe test with the suite's setup file and reports the folder it was given.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";

import { describe, expect, it } from "vitest";

import { repoRoot } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

describe("the test suite's per-user folder", () => {
  it("is not the real one in this file", () => {
    expect(process.env.MEMCARDS_HOME).toBeTruthy();
    expect(resolve(process.env.MEMCARDS_HOME!)).not.toBe(resolve(homedir(), ".memcards"));
  });

  it("is a temporary folder, gone once the test file that used it is done", () => {
    const dir = tmpDir("memcards-user-home-probe-");
    const out = join(dir, "homes.txt");
    writeFileSync(
      join(dir, "probe.test.mjs"),
      `import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
test("uses the per-user folder", () => {
  mkdirSync(join(process.env.MEMCARDS_HOME, "trusted-stores"), { recursive: true });
  appendFileSync(process.env.PROBE_OUT, process.env.MEMCARDS_HOME + "\\n");
});
`,
    );
    const setup = join(repoRoot, "test", "setup", "user-home.ts");
    writeFileSync(
      join(dir, "vitest.config.mjs"),
      `export default { test: { globals: true, include: ["*.test.mjs"], setupFiles: [${JSON.stringify(setup)}] } };\n`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, PROBE_OUT: out };
    delete env.MEMCARDS_HOME;
    const r = spawnSync(
      process.execPath,
      [
        join(repoRoot, "node_modules", "vitest", "vitest.mjs"),
        "run",
        "--root",
        dir,
        "--config",
        join(dir, "vitest.config.mjs"),
      ],
      { cwd: dir, env, encoding: "utf8", timeout: 120_000 },
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const homes = readFileSync(out, "utf8").trim().split("\n");
    expect(homes).toHaveLength(1);
    expect(resolve(homes[0]!).startsWith(resolve(tmpdir()))).toBe(true);
    expect(existsSync(homes[0]!)).toBe(false);
  });
});
