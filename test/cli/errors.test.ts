// toAppError: a missing or unreadable file the user named is theirs to fix; one inside memcards' package is an
// internal fault; SQLite corruption is DB_CORRUPT.
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { toAppError } from "../../src/errors.js";
import { packageRoot } from "../../src/version.js";

const fsError = (code: string, path: string, syscall = "open") =>
  Object.assign(new Error(`${code}: ${syscall} '${path}'`), { code, path, syscall });

describe("toAppError", () => {
  it("maps file errors by whose file it is", () => {
    expect(toAppError(fsError("ENOENT", "/nowhere/tasks.jsonl"))).toMatchObject({ code: "NOT_FOUND" });
    expect(toAppError(fsError("EACCES", "/root/secret.md"))).toMatchObject({ code: "BAD_INPUT" });
    expect(toAppError(fsError("EACCES", "/root/secret.md")).message).toMatch(/cannot read \/root\/secret\.md/);
    const inside = join(packageRoot(), "dist", "src", "storage", "migrations");
    expect(toAppError(fsError("ENOENT", inside, "scandir"))).toMatchObject({ code: "INTERNAL" });
    expect(
      toAppError(Object.assign(new Error("database disk image is malformed"), { code: "SQLITE_CORRUPT" })),
    ).toMatchObject({
      code: "DB_CORRUPT",
    });
    expect(toAppError(new Error("boom"))).toMatchObject({ code: "INTERNAL", message: "boom" });
  });
});
