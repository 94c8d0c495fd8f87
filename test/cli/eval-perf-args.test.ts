// `memcards eval perf` refuses a group it cannot measure with the options given, before any work starts.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

describe("eval perf --only memory-transcripts", () => {
  it("without --memory-transcripts is refused with the option to add, and copies nothing", () => {
    const home = tmpDir();
    const repo = join(home, "repo");
    mkdirSync(repo);
    writeFileSync(join(repo, "a.py"), "def f():\n    return 1\n");
    const r = runCli(["eval", "perf", "--repo", repo, "--only", "memory-transcripts"], {
      env: { MEMCARDS_HOME: join(home, "mc") },
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("BAD_INPUT");
    expect(r.stderr).toContain("--memory-transcripts <dir>");
    expect(r.stdout).toBe("");
    expect(readdirSync(repo)).toEqual(["a.py"]);
  });
});
