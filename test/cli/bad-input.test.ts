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

describe("errors on the command line", () => {
  it("never echo a secret the input carried", () => {
    const root = tmpDir();
    const env = { MEMCARDS_HOME: tmpDir() };
    const key = "sk-ant-api03-Zq8Xw7Vc6Bn5Mm4Ll3Kk2Jj1Hh0Gg9Ff8Dd7";
    const missing = runCli(["compress", `${root}/${key}.jsonl`, "--root", root], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^memcards: NOT_FOUND: transcript not found: .*\[redacted anthropic key\]/m);
    expect(missing.stderr).not.toContain("Zq8Xw7Vc6Bn5");
    const badRoot = runCli(["status", "--root", `${root}/ghp_Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9Zx1Cv3Bn5Mq7W`], { env });
    expect(badRoot.code).toBe(1);
    expect(badRoot.stderr).not.toContain("Rt5Yu7Io9Pa1");
  });
});
