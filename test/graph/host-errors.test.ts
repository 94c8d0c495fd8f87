// A graph build that fails in the worker thread reaches the main thread as an AppError with the worker's code.
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { AppError, fromErrorReply, toErrorReply } from "../../src/errors.js";
import { createGraphHost } from "../../src/graph/host.js";
import { silentLogger } from "../../src/log.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { tmpDir } from "../helpers/tmp.js";

describe("errors across the worker boundary", () => {
  it("keep their code both ways; a reply that is no error becomes INTERNAL naming it", () => {
    const back = fromErrorReply(toErrorReply(new AppError("OUTSIDE_ROOTS", "/etc is outside the roots")));
    expect(back).toBeInstanceOf(AppError);
    expect([back.code, back.message]).toEqual(["OUTSIDE_ROOTS", "/etc is outside the roots"]);
    expect(toErrorReply(new Error("boom"))).toEqual({ code: "INTERNAL", message: "boom" });
    const odd = fromErrorReply({ code: "NO_SUCH_CODE", message: "x" });
    expect(odd.code).toBe("INTERNAL");
    expect(odd.message).toMatch(/unreadable error: .*NO_SUCH_CODE/);
  });

  it("a graph job that fails in the worker carries the code it was thrown with", async () => {
    const root = tmpDir();
    const dbPath = join(root, "m.db");
    const db = openDatabase(dbPath);
    const projectId = upsertProject(db, "p", root).id;
    db.close();
    const host = createGraphHost(
      { dbPath, projectId, root, embedder: "offline", modelsDir: tmpDir(), logLevel: "silent" },
      silentLogger,
    );
    try {
      const job = host.start({ path: join(root, "no-such-dir"), lexicalOnly: true });
      await job.finished;
      expect(job.state).toBe("failed");
      expect(job.error).toBeInstanceOf(AppError);
      expect(job.error?.code).toBe("NOT_FOUND");
      expect(job.error?.message).toMatch(/no-such-dir: it does not exist/);
    } finally {
      await host.close();
    }
  });
});
