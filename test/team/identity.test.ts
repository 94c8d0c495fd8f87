// Project identity by normalized remote, and the URL's password kept out of what is shown.
import { execFileSync } from "node:child_process";

import { describe, expect, it } from "vitest";

import { resolveConfig } from "../../src/config.js";
import { displayUrl, scrubSecret, teamError } from "../../src/team/connect.js";
import { resolveTeam } from "../../src/team/deps.js";
import { normalizeRemote, teamAuthor, teamProjectKey } from "../../src/team/identity.js";
import { linkTeam } from "../../src/team/queue.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";

describe("normalizeRemote", () => {
  it.each([
    ["git@github.com:o/r.git", "github.com/o/r"],
    ["https://github.com/o/r", "github.com/o/r"],
    ["https://github.com/O/R.git/", "github.com/o/r"],
    ["ssh://git@github.com:22/o/r.git", "github.com/o/r"],
    ["https://user:tok@github.com/o/r", "github.com/o/r"],
    ["git@gitlab.example.com:group/sub/r.git", "gitlab.example.com/group/sub/r"],
  ])("%s → %s", (url, key) => {
    expect(normalizeRemote(url)).toBe(key);
  });

  it("two clones with different remote spellings share one key; --team-project overrides", () => {
    const a = tmpDir();
    const b = tmpDir();
    execFileSync("git", ["init", "-q", a]);
    execFileSync("git", ["init", "-q", b]);
    execFileSync("git", ["-C", a, "remote", "add", "origin", "git@github.com:o/r.git"]);
    execFileSync("git", ["-C", b, "remote", "add", "origin", "https://github.com/o/r"]);
    expect(teamProjectKey(a)).toBe(teamProjectKey(b));
    expect(teamProjectKey(a, "Payments")).toBe("name:payments");
    expect(() => teamProjectKey(tmpDir())).toThrow(/--team-project/);
  });
});

describe("team settings", () => {
  it("are resolved once in config: flags over the environment, spaces trimmed, blank as unset", () => {
    const env = {
      HOME: tmpDir(),
      MEMCARDS_TEAM_URL: " postgres://a@h/db ",
      MEMCARDS_TEAM_PROJECT: "Payments",
      MEMCARDS_TEAM_AUTHOR: "  ",
      MEMCARDS_TEAM_MACHINE: "box",
      MEMCARDS_TEAM_ROLE_PASSWORD: "pw",
    };
    expect(resolveConfig({}, env).team).toEqual({
      url: "postgres://a@h/db",
      project: "Payments",
      machine: "box",
      rolePassword: "pw",
    });
    expect(resolveConfig({ teamUrl: "postgres://b@h/db", teamProject: "Other" }, env).team).toMatchObject({
      url: "postgres://b@h/db",
      project: "Other",
    });
    expect(resolveConfig({}, { HOME: tmpDir() }).team).toEqual({});
  });

  it("take a blank MEMCARDS_TEAM_PROJECT as unset, so a linked project keeps the key it is linked under", async () => {
    const env = { HOME: tmpDir(), MEMCARDS_TEAM_URL: "postgres://a@h/db", MEMCARDS_TEAM_PROJECT: "   " };
    expect(resolveConfig({}, env).team.project).toBeUndefined();
    expect(resolveConfig({ teamProject: "  " }, env).team.project).toBeUndefined();
    const app = openTestApp(tmpDir("memcards-team-link-"));
    try {
      linkTeam(app.db, app.project.id, "name:payments");
      expect(resolveTeam(app.scope, resolveConfig({}, env).team)?.projectKey).toBe("name:payments");
      expect(resolveTeam(app.scope, resolveConfig({ teamProject: " Ledger " }, env).team)?.projectKey).toBe(
        "name:ledger",
      );
    } finally {
      await app.close();
    }
  });

  it("name the configured author and machine, else git's user", () => {
    const dir = tmpDir();
    execFileSync("git", ["init", "-q", dir]);
    execFileSync("git", ["-C", dir, "config", "user.email", "dana@example.com"]);
    expect(teamAuthor(dir, { author: "carol", machine: "box" })).toEqual({ author: "carol", machine: "box" });
    expect(teamAuthor(dir).author).toBe("dana@example.com");
  });
});

describe("team URL secrecy", () => {
  const url = "postgres://alice:p%40ss-w0rd@db.example:5432/team?sslmode=require";
  it("shows the URL without its password, keeping TLS parameters", () => {
    expect(displayUrl(url)).not.toContain("w0rd");
    expect(displayUrl(url)).toContain("sslmode=require");
  });
  it("scrubs the password, encoded or not, from driver messages", () => {
    const e = teamError(Object.assign(new Error(`bad p@ss-w0rd in ${url}`), { code: "28P01" }), url);
    expect(e.code).toBe("TEAM_AUTH_FAILED");
    expect(e.message).not.toMatch(/w0rd/);
    expect(scrubSecret("x p%40ss-w0rd y", url)).toBe("x *** y");
  });
});
