// A unit's cited files are hashed only inside the project root: a path that climbs out, an absolute path or a
// link that points outside is never read. One read hashes each file once, a bounded number of files; an absolute
// path from a transcript without a working directory is matched to the project by its tail.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import type { Turn } from "../../src/conversation/schema.js";
import { distill } from "../../src/memory/distill.js";
import { searchMemory } from "../../src/memory/service.js";
import { changedSince, fileHashes, projectPath, staleChecker } from "../../src/memory/stale.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import { tmpDir } from "../helpers/tmp.js";

describe("cited file hashes", () => {
  const outside = tmpDir();
  writeFileSync(join(outside, "secret.txt"), "outside the project\n");
  const root = tmpDir();
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "a.ts"), "export const a = 1;\n");
  symlinkSync(outside, join(root, "linked"));
  symlinkSync(join(outside, "secret.txt"), join(root, "src", "secret.ts"));

  it("hashes a file under the root", () => {
    expect(Object.keys(fileHashes(root, ["src/a.ts"]))).toEqual(["src/a.ts"]);
  });

  it("reads nothing outside the root: a climbing path, an absolute one, a linked folder or a linked file", () => {
    const cited = [
      `../${outside.split("/").pop()}/secret.txt`,
      join(outside, "secret.txt"),
      "linked/secret.txt",
      "src/secret.ts",
    ];
    expect(fileHashes(root, cited)).toEqual({});
    // A stored hash for such a path is never compared against the file it points at.
    const forged = Object.fromEntries(cited.map((c) => [c, "0000000000000000"]));
    expect(changedSince(root, forged).sort()).toEqual([...cited].sort());
  });
});

describe("a stale check for one read", () => {
  it("hashes each cited file once and at most the bound of distinct files", () => {
    const root = tmpDir();
    writeFileSync(join(root, "a.ts"), "a\n");
    writeFileSync(join(root, "b.ts"), "b\n");
    const hashes = fileHashes(root, ["a.ts", "b.ts"]);
    writeFileSync(join(root, "a.ts"), "a changed\n");
    writeFileSync(join(root, "b.ts"), "b changed\n");
    expect(staleChecker(root)(hashes)).toEqual(["a.ts", "b.ts"]);
    // With a bound of one file, the second citation is left unchecked rather than read.
    const bounded = staleChecker(root, 1);
    expect(bounded({ "a.ts": hashes["a.ts"] })).toEqual(["a.ts"]);
    expect(bounded({ "b.ts": hashes["b.ts"] })).toEqual([]);
    expect(bounded(hashes)).toEqual(["a.ts"]);
  });
});

describe("paths from a transcript without a working directory", () => {
  it("are made project-relative by their longest tail under the root, and a real edit marks the unit stale", () => {
    const root = tmpDir();
    mkdirSync(join(root, "lib", "update"), { recursive: true });
    writeFileSync(join(root, "lib", "update", "copy.ts"), "export const label = 'Income';\n");
    expect(projectPath(root, "/Users/someone/projects/finhealth/lib/update/copy.ts")).toBe("lib/update/copy.ts");
    expect(projectPath(root, "c:\\Users\\someone\\finhealth\\lib\\update\\copy.ts")).toBe("lib/update/copy.ts");
    expect(projectPath(root, join(root, "lib/update/copy.ts"))).toBe("lib/update/copy.ts");
    expect(projectPath(root, "/Users/someone/elsewhere/notes.md")).toBe("/Users/someone/elsewhere/notes.md");

    const db = openDatabase(join(root, "m.db"));
    const projectId = upsertProject(db, "cwdless", root).id;
    const absolute = "/Users/someone/projects/finhealth/lib/update/copy.ts";
    const span: Turn[] = [
      {
        id: "u1",
        index: 0,
        role: "user",
        kind: "message",
        text: "Shorten the income labels on the update form.",
        tool_calls: [],
        tool_results: [],
      },
      {
        id: "a1",
        index: 1,
        role: "assistant",
        kind: "message",
        text: "",
        tool_calls: [
          { id: "e", name: "Edit", input: { file_path: absolute, old_string: "Monthly income", new_string: "Income" } },
        ],
        tool_results: [{ call_id: "e", output: "The file has been updated.", is_error: false }],
      },
    ];
    // No cwd: the transcript's paths stay absolute in the unit's sentence, its citation is project-relative.
    distill(db, projectId, "s1", span, extractSections(span));
    const deps = { db, projectId, root };
    const query = { query: "income labels update form" };
    const before = searchMemory(deps, query).hits.find((h) => h.category === "change")!;
    expect(before.text).toContain(absolute);
    expect(before.files).toEqual(["lib/update/copy.ts"]);
    expect(before.stale).toBeUndefined();
    writeFileSync(join(root, "lib", "update", "copy.ts"), "export const label = 'In';\n");
    expect(searchMemory(deps, query).hits.find((h) => h.category === "change")!.stale).toEqual(["lib/update/copy.ts"]);
    db.close();
  });
});
