// A killed index keeps every committed batch, and the next run resumes with the rest.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";

import { indexRepository } from "../../src/graph/index-repository.js";
import { silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";
import { syntheticRepo } from "./synthetic.js";

const dist = join(fileURLToPath(import.meta.url), "..", "..", "..", "dist", "src");

describe("resume after a kill", () => {
  it("SIGKILL mid-index loses no committed batch; the next run parses only the rest", async () => {
    const root = syntheticRepo(600, 40);
    const db = join(tmpDir(), "kill.db");
    // A child process indexes in batches of 20 files and reports each commit; we kill it after the third.
    const script = `
      import { openDatabase } from ${JSON.stringify(join(dist, "storage/db.js"))};
      import { upsertProject } from ${JSON.stringify(join(dist, "storage/projects.js"))};
      import { indexRepository } from ${JSON.stringify(join(dist, "graph/index-repository.js"))};
      import { silentLogger } from ${JSON.stringify(join(dist, "log.js"))};
      const db = openDatabase(${JSON.stringify(db)});
      const p = upsertProject(db, ${JSON.stringify(root)}, ${JSON.stringify(root)});
      await indexRepository({ db, projectId: p.id, root: ${JSON.stringify(root)}, logger: silentLogger, batchFiles: 20,
        onProgress: (e) => { if (e.phase === "parse") process.stdout.write("batch " + e.done + "\\n"); } });
      process.stdout.write("finished\\n");
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if ((out.match(/batch/g) ?? []).length >= 3 && !child.killed) child.kill("SIGKILL");
      });
      child.on("exit", () => resolve());
      child.on("error", reject);
    });
    expect(out).toMatch(/batch 60/);
    expect(out).not.toContain("finished");

    const raw = new Database(db, { readonly: true });
    expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
    const committed = (raw.prepare("SELECT COUNT(*) AS n FROM files").get() as { n: number }).n;
    raw.close();
    expect(committed).toBeGreaterThanOrEqual(60);
    expect(committed).toBeLessThan(600);
    expect(committed % 20).toBe(0);

    const app = openTestApp(root, db);
    try {
      const r = await indexRepository({ db: app.db, projectId: app.project.id, root, logger: silentLogger });
      expect(r.files.unchanged).toBe(committed);
      expect(r.files.parsed).toBe(600 - committed);
      expect(r.counts.nodes.file).toBe(600);
    } finally {
      await app.close();
    }
  });

  it("a cancelled run stops between batches and reports it", async () => {
    const root = syntheticRepo(100, 5);
    const app = openTestApp(root);
    try {
      let batches = 0;
      const r = await indexRepository({
        db: app.db,
        projectId: app.project.id,
        root,
        logger: silentLogger,
        batchFiles: 10,
        isCancelled: () => batches >= 2,
        onProgress: (p) => {
          if (p.phase === "parse") batches++;
        },
      });
      expect(r.cancelled).toBe(true);
      expect(r.files.parsed).toBe(20);
      const again = await indexRepository({ db: app.db, projectId: app.project.id, root, logger: silentLogger });
      expect(again.files.parsed).toBe(80);
      expect(again.cancelled).toBe(false);
    } finally {
      await app.close();
    }
  });

  it("gives clear errors for a missing root and a file as root", async () => {
    const app = openTestApp(tmpDir());
    try {
      await expect(
        indexRepository({ db: app.db, projectId: 1, root: "/no/such/dir", logger: silentLogger }),
      ).rejects.toThrow(/no\/such\/dir/);
      await expect(
        indexRepository({ db: app.db, projectId: 1, root: join(dist, "version.js"), logger: silentLogger }),
      ).rejects.toThrow(/not a directory/);
    } finally {
      await app.close();
    }
  });
});
