// Input that fails a schema reaches the user as BAD_INPUT naming the field, not as a raw validation dump.
import { describe, expect, it } from "vitest";

import { runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

describe("schema errors on the command line", () => {
  it("name the field and what is wrong, exit 1, store nothing", () => {
    const root = tmpDir();
    const env = { MEMCARDS_HOME: tmpDir() };
    const bad = runCli(["remember", "bogus", "a fact", "--root", root], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^memcards: BAD_INPUT: <category>: Invalid option: expected one of "commitment"/m);
    const empty = runCli(["search", "", "--root", root], { env });
    expect(empty.stderr).toMatch(/memcards: BAD_INPUT: <query>: /);
    expect(runCli(["memories", "--root", root], { env }).stdout).toMatch(/^no memory units yet/);
  });
});
