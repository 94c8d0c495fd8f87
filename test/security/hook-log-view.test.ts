// The viewer's Injections page reads the hook log beside the store: only the log memcards wrote (a regular file
// with one link), never a file a link in a cloned `.memcards` folder points to, and what it shows is redacted.
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { readHookLog } from "../../src/ui/pages/injections.js";
import { tmpDir } from "../helpers/tmp.js";

describe("the hook log in the viewer", () => {
  it("reads the log memcards wrote, redacted, and nothing a link or hard link leads to", () => {
    const outside = tmpDir();
    const secretFile = join(outside, "credentials");
    writeFileSync(secretFile, "2026-01-01T00:00:00.000Z SessionStart s9 PRIVATE-NOTE-7f3a from outside the store\n");

    const linked = join(tmpDir(), ".memcards");
    mkdirSync(linked);
    symlinkSync(secretFile, join(linked, "hooks.log"));
    expect(readHookLog(join(linked, "hooks.log"))).toEqual([]);

    const hard = join(tmpDir(), ".memcards");
    mkdirSync(hard);
    linkSync(secretFile, join(hard, "hooks.log"));
    expect(readHookLog(join(hard, "hooks.log"))).toEqual([]);

    const own = join(tmpDir(), ".memcards");
    mkdirSync(own);
    const token = "ghp_Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9Zx1Cv3Bn5Mq7W";
    writeFileSync(
      join(own, "hooks.log"),
      `2026-01-01T00:00:00.000Z SessionStart s1 injected the project brief (4 units), 1234 chars\n` +
        `2026-01-01T00:00:01.000Z PreCompact s1 error: cannot read /tmp/${token}.jsonl\n`,
    );
    const lines = readHookLog(join(own, "hooks.log"));
    expect(lines.map((l) => l.event)).toEqual(["PreCompact", "SessionStart"]);
    expect(lines[1]!.chars).toBe(1234);
    expect(JSON.stringify(lines)).not.toContain("Rt5Yu7Io9Pa1");
  });
});
