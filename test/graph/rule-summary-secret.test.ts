// A rule document's summary is its body put on one line: a secret whose name and value stand on two lines of the file
// (`password:` and the value below it) meets on one line there, and is redacted in what the index stores.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { indexRepository } from "../../src/graph/index-repository.js";
import { silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";

const VALUE = "Xk9mz2Lq7vRw";

describe("a rule document with a secret split across two lines", () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it.each([
    ["CLAUDE.md", `# Staging\n\nThe staging login password:\n  ${VALUE}\n`],
    ["AGENTS.md", `Deploy with\nexport API_KEY=\n  '${VALUE}'\n`],
    [".cursorrules", `api_key:\n${VALUE}\n`],
  ])("%s is summarized without the value", async (name, body) => {
    const root = tmpDir();
    writeFileSync(join(root, name), body);
    writeFileSync(join(root, "a.py"), "def alpha():\n    return 1\n");
    app = openTestApp(root);
    await indexRepository({ db: app.db, projectId: app.project.id, root, logger: silentLogger });
    const rule = app.db.prepare("SELECT type, summary FROM nodes WHERE path = ?").get(name) as {
      type: string;
      summary: string | null;
    };
    expect(rule.type).toBe("rule");
    expect(rule.summary).toContain("[redacted");
    expect(rule.summary).not.toContain(VALUE);
  });
});
