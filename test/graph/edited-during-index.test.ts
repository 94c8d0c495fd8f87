// A file saved again while an index runs (after the scan hashed it, before its turn to be parsed) is not indexed
// as empty: it keeps what the index held, and the next run indexes what is on disk.
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { indexRepository } from "../../src/graph/index-repository.js";
import { silentLogger } from "../../src/log.js";
import { createParser, type RepoParser } from "../../src/repo/parse.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";

describe("a file edited between the scan and its parse", () => {
  it("keeps its indexed symbols (and their ids), and is indexed as saved by the next run", async () => {
    const root = tmpDir();
    writeFileSync(join(root, "a.py"), "def first():\n    return 1\n");
    writeFileSync(join(root, "b.py"), "def keep_me():\n    return 2\n");
    const app = openTestApp(root);
    const inner = createParser();
    let saveDuringParse = false;
    // Parsing a.py stands for the time an editor saves b.py again, once the scan has hashed it.
    const parser: RepoParser = {
      parseFile: async (path, content, language) => {
        if (saveDuringParse && path === "a.py") {
          saveDuringParse = false;
          appendFileSync(join(root, "b.py"), "\ndef saved_later():\n    return 4\n");
        }
        return inner.parseFile(path, content, language);
      },
      preload: (languages) => inner.preload(languages),
      dispose: () => inner.dispose(),
    };
    const index = () =>
      indexRepository({ db: app.db, projectId: app.project.id, root, logger: silentLogger, parser, batchFiles: 1 });
    const symbol = (name: string) =>
      app.db.prepare("SELECT id FROM nodes WHERE path = 'b.py' AND name = ?").get(name) as { id: number } | undefined;
    try {
      await index();
      const kept = symbol("keep_me");
      expect(kept).toBeDefined();

      appendFileSync(join(root, "a.py"), "\ndef second():\n    return 3\n");
      appendFileSync(join(root, "b.py"), "\ndef added():\n    return 5\n");
      saveDuringParse = true;
      await index();
      expect(symbol("keep_me")?.id).toBe(kept!.id);

      await index();
      expect(symbol("keep_me")?.id).toBe(kept!.id);
      expect(symbol("added")).toBeDefined();
      expect(symbol("saved_later")).toBeDefined();
    } finally {
      inner.dispose();
      await app.close();
    }
  });
});
