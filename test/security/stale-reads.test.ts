// Citation hashes (is a unit stale?) read the cited files under the same rules as the index: only regular files
// inside the project, never through a link to a file outside it, never a hard link, never a FIFO.
import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { changedSince, fileHashes } from "../../src/memory/stale.js";
import { tmpDir } from "../helpers/tmp.js";

describe("citation hashes", () => {
  it("hash files inside the project and nothing a link or hard link leads to outside it", () => {
    const root = tmpDir();
    const outside = tmpDir();
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(join(outside, "id_rsa"), "PRIVATE KEY MATERIAL\n");
    symlinkSync(join(outside, "id_rsa"), join(root, "src", "link.ts"));
    linkSync(join(outside, "id_rsa"), join(root, "src", "hard.ts"));
    execFileSync("mkfifo", [join(root, "src", "pipe.ts")]);
    const got = fileHashes(root, ["src/a.ts", "src/link.ts", "src/hard.ts", "src/pipe.ts", "../outside.ts"]);
    expect(Object.keys(got)).toEqual(["src/a.ts"]);
    expect(changedSince(root, got)).toEqual([]);
    writeFileSync(join(root, "src", "a.ts"), "export const a = 2;\n");
    expect(changedSince(root, got)).toEqual(["src/a.ts"]);
  });
});
