// `memcards eval localize` with the real ranker: a fresh index per task over a tiny real repository.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { LocalizeReport, renderLocalize, runLocalize } from "../../bench/localize.js";
import { RUNGS } from "../../bench/localize/ladder.js";
import { resolveConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import { bareClone, makeTinyRepo } from "./git-repo.js";

describe("runLocalize", () => {
  it("ranks every rung on a fresh store per task, reports failures, and removes the stores", async () => {
    const reposDir = tmpDir();
    const repo = makeTinyRepo(tmpDir(), "tiny");
    bareClone(repo.work, join(reposDir, "acme+tiny", "repo"));
    const cacheDir = tmpDir();
    const notes: string[] = [];
    const report = await runLocalize({
      tasks: [
        {
          id: "acme__tiny-1",
          repo: "acme/tiny",
          commit: repo.commits[1],
          query: "CookieJar loses cookies when Session.send is called",
          gold: ["src/app/cookies.py"],
        },
        { id: "acme__tiny-2", repo: "acme/tiny", commit: "f".repeat(40), query: "q", gold: ["setup.py"] },
      ],
      reposDir,
      cacheDir,
      config: resolveConfig({ embedder: "offline" }, { MEMCARDS_HOME: tmpDir() }),
      logger: silentLogger,
      onTask: (i, n, id, note) => notes.push(`[${i}/${n}] ${id}: ${note}`),
    });

    expect(LocalizeReport.parse(report)).toEqual(report);
    expect(report.rungs).toEqual([...RUNGS]);
    expect(report.n_tasks).toBe(1);
    expect(Object.keys(report.tasks[0]!.ranks)).toEqual([...RUNGS]);
    for (const rank of Object.values(report.tasks[0]!.ranks)) expect(rank === null || rank >= 1).toBe(true);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]!.message).toMatch(/commit f{40} of acme\/tiny is not in/);
    expect(notes).toHaveLength(2);
    expect(readdirSync(join(cacheDir, "trees")).filter((e) => !e.startsWith("."))).toEqual([
      `acme+tiny@${repo.commits[1].slice(0, 12)}`,
    ]);
    expect(existsSync(join(cacheDir, "stores", "acme__tiny-1"))).toBe(false);
    expect(renderLocalize(report)).toContain("| memcards |");
  });
});
