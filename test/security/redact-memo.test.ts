// Redaction's memory of short texts it found clean: bounded by what it keeps, not by the texts those came from.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

import { describe, expect, it } from "vitest";

import { redact } from "../../src/text/redact.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("redaction's memory of clean texts", () => {
  it("keeps a short clean text without holding on to the long text it was cut from", () => {
    gc();
    const before = process.memoryUsage().heapUsed;
    // A summary line cut from a file's content, a path cut from a log: the whole content must not stay alive.
    for (let i = 0; i < 48; i++) {
      const content = `def f_${i}(x):\n` + "    return x + 1\n".repeat(60_000); // about 1 MB each
      const line = content.slice(0, content.indexOf("\n") + 20);
      expect(redact(line)).toBe(line);
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(grown).toBeLessThan(8_000_000);
  });

  it("answers a remembered text as redaction does, and redacts a secret however often it is seen", () => {
    const clean = "src/app.ts: the token refresh path";
    expect(redact(clean)).toBe(clean);
    expect(redact(clean)).toBe(clean);
    const secret = "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123";
    for (let i = 0; i < 3; i++) expect(redact(secret)).not.toContain("sk-ant-api03");
  });
});
