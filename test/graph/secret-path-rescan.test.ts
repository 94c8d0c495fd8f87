// A path that carries a secret leaves the index at the next re-index, also when an earlier version (whose rules did
// not recognise that secret) indexed it: a rescan trusts an indexed path only when checked by the same rules.
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { indexRepository } from "../../src/graph/index-repository.js";
import { silentLogger } from "../../src/log.js";
import { writeTx } from "../../src/storage/db.js";
import { writeFile } from "../../src/storage/graph/files.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";

const TOKEN = "ghp_" + "Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9Zx1Cv3Bn5Mq7W";

describe("a re-index of a store indexed under other redaction rules", () => {
  it("drops a stored path that carries a secret, and keeps it out afterwards", async () => {
    const root = tmpDir();
    mkdirSync(join(root, "notes"));
    writeFileSync(join(root, "app.py"), "def main():\n    return 1\n");
    const secretPath = `notes/prod-${TOKEN}.md`;
    writeFileSync(join(root, secretPath), "# release notes\n");
    const app = openTestApp(root);
    try {
      const index = () => indexRepository({ db: app.db, projectId: app.project.id, root, logger: silentLogger });
      await index();
      const paths = () =>
        (app.db.prepare("SELECT path FROM files ORDER BY path").all() as { path: string }[]).map((r) => r.path);
      expect(paths()).toEqual(["app.py"]);

      // The store as a version whose rules missed this token left it: the path indexed, with its current stamp.
      const st = statSync(join(root, secretPath));
      writeTx(app.db, () =>
        writeFile(
          app.db,
          app.project.id,
          { path: secretPath, language: null, size: st.size, mtimeMs: st.mtimeMs, hash: "0".repeat(40), isTest: false },
          null,
          [],
          [],
        ),
      );
      app.db.prepare("DELETE FROM meta WHERE key LIKE 'index.redaction%'").run();
      expect(paths()).toContain(secretPath);

      const r = await index();
      expect(paths()).toEqual(["app.py"]);
      expect(r.skipped["secret-in-path"]).toBe(1);
      const keys = app.db.prepare("SELECT key FROM nodes WHERE key LIKE ?").all(`%${TOKEN}%`);
      expect(keys).toEqual([]);

      // Later rescans trust what this one checked, and the path stays out.
      await index();
      expect(paths()).toEqual(["app.py"]);
    } finally {
      await app.close();
    }
  });
});
