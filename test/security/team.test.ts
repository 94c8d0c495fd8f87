// Hostile input to team memory: odd remotes, non-postgres URLs, forged unit ids, and passwords that must never
// show in errors, whatever the failure.
import { describe, expect, it } from "vitest";

import { connectTeam } from "../../src/team/connect.js";
import { normalizeRemote } from "../../src/team/identity.js";
import { forgetForTeam, pushIfReachable, teamStatus } from "../../src/team/service.js";
import { freePort } from "../helpers/postgres.js";
import { developer } from "../team/helpers.js";

describe("team input", () => {
  it("rejects URLs that are not postgres:// without echoing their password", async () => {
    const err = (await connectTeam("mysql://u:Hunter2-Secret@h/db").catch((e: unknown) => e)) as Error & {
      code: string;
    };
    expect(err.code).toBe("BAD_INPUT");
    expect(err.message).not.toContain("Hunter2-Secret");
  });

  it("names a bad remote without its credentials", () => {
    expect(() => normalizeRemote("https://u:Hunter2-Secret@")).toThrow(/not a git remote URL/);
    try {
      normalizeRemote("https://u:Hunter2-Secret@");
    } catch (e) {
      expect((e as Error).message).not.toContain("Hunter2-Secret");
    }
    expect(normalizeRemote("git@host:../../etc/passwd")).toBe("host/etc/passwd");
  });

  it("refuses a forged unit id before anything is queued or sent", async () => {
    const dev = developer("postgres://u:pw@127.0.0.1:1/db", "mallory");
    for (const uid of ["x'; DROP TABLE team_units; --", "../../etc", "a".repeat(5000)])
      await expect(forgetForTeam(dev, uid)).rejects.toMatchObject({ code: "BAD_INPUT" });
    expect((await pushIfReachable(dev)).pending).toBe(0);
  });

  it("an unreachable server is reported with the password masked, and writes stay queued", async () => {
    const port = await freePort();
    const dev = developer(`postgres://u:Hunter2-Secret@127.0.0.1:${port}/db?sslmode=disable`, "ann");
    const s = await teamStatus(dev);
    expect(s).toMatchObject({ reachable: false, reads: "local copy" });
    expect(JSON.stringify(s)).not.toContain("Hunter2-Secret");
    expect(s.url).toContain("***");
  });
});
