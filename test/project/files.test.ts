import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import { readChecked, ReadRefused } from "../../src/project/files.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function file(text: string): string {
  const d = mkdtempSync(join(tmpdir(), "memcards-read-"));
  dirs.push(d);
  const f = join(d, "a.txt");
  writeFileSync(f, text);
  return f;
}

describe("readChecked", () => {
  it("reads a file within the cap whole", () => {
    const f = file("x".repeat(3000));
    const r = readChecked(f, { allow: () => {}, maxBytes: 3000, singleLink: true });
    expect(r.data.length).toBe(3000);
  });

  it("refuses a file that grows past the cap between the size check and the read", () => {
    const f = file("x".repeat(1000));
    let calls = 0;
    // The second allow() runs after the size check, before the bytes are read: grow the file there.
    const allow = () => {
      if (++calls === 2) appendFileSync(f, "y".repeat(5000));
    };
    let err: unknown;
    try {
      readChecked(f, { allow, maxBytes: 2000, singleLink: true });
    } catch (e) {
      err = e;
    }
    expect(calls).toBe(2);
    expect(err).toBeInstanceOf(ReadRefused);
    expect((err as ReadRefused).reason).toBe("oversized");
  });

  it("reads a file that grows but stays within the cap, up to its end", () => {
    const f = file("x".repeat(1000));
    let calls = 0;
    const allow = () => {
      if (++calls === 2) appendFileSync(f, "y".repeat(500));
    };
    const r = readChecked(f, { allow, maxBytes: 2000, singleLink: true });
    expect(r.data.length).toBe(1500);
  });
});
