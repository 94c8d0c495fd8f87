// A unit's cited files are hashed only inside the project root: a path that climbs out, an absolute path or a
// link that points outside is never read.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { changedSince, fileHashes } from "../../src/memory/stale.js";
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
