// A build limited to changed paths whose change is an ignore file (.memcardsignore, .gitignore) applies the new
// rules to the whole tree: what they now keep out leaves the index, what they let in again comes in.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { indexRepository } from "../../src/graph/index-repository.js";
import { silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";

describe("a path-limited build of an edited ignore file", () => {
  it("drops what the rules now keep out, and indexes what they let in", async () => {
    const root = tmpDir();
    mkdirSync(join(root, "private"));
    mkdirSync(join(root, "scratch"));
    writeFileSync(join(root, "app.py"), "def main():\n    return 1\n");
    writeFileSync(join(root, "private", "keys.py"), "def rotate():\n    return 2\n");
    writeFileSync(join(root, "scratch", "draft.py"), "def sketch():\n    return 3\n");
    writeFileSync(join(root, ".gitignore"), "scratch/\n");
    const app = openTestApp(root);
    const paths = () =>
      (app.db.prepare("SELECT path FROM files WHERE path LIKE '%.py' ORDER BY path").all() as { path: string }[]).map(
        (r) => r.path,
      );
    const index = (only?: string[]) =>
      indexRepository({
        db: app.db,
        projectId: app.project.id,
        root,
        logger: silentLogger,
        ...(only ? { paths: only } : {}),
      });
    try {
      await index();
      expect(paths()).toEqual(["app.py", "private/keys.py"]);

      // What a watcher reports: the ignore files it saw change, nothing else.
      writeFileSync(join(root, ".memcardsignore"), "private/\n");
      writeFileSync(join(root, ".gitignore"), "");
      await index([".memcardsignore", ".gitignore"]);
      expect(paths()).toEqual(["app.py", "scratch/draft.py"]);
    } finally {
      await app.close();
    }
  });
});
