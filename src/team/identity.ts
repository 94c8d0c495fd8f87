// Who and where: the project key every clone shares (its normalized remote), the author, the machine.
import { hostname, userInfo } from "node:os";

import type { TeamSettings } from "../config.js";
import { AppError } from "../errors.js";
import { git } from "../git.js";

/**
 * A git remote as `host/owner/repo`, the same for every spelling of it: `git@github.com:o/r.git`,
 * `https://github.com/o/r`, `ssh://git@github.com:22/o/r.git` and `https://user:pw@github.com/O/R/` all give
 * `github.com/o/r`. Credentials, ports, `.git` and case are dropped.
 */
export function normalizeRemote(url: string): string {
  let s = url.trim();
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.+)$/.exec(s);
  if (scp && !/^[a-z]+:\/\//i.test(s)) s = `ssh://${scp[1]}/${scp[2]}`;
  let host: string;
  let path: string;
  try {
    const u = new URL(s);
    host = u.hostname;
    path = u.pathname;
  } catch {
    throw new AppError("BAD_INPUT", `not a git remote URL: ${s.replace(/\/\/[^@/]*@/, "//")}`);
  }
  path = path
    .replace(/\/+$/, "")
    .replace(/\.git$/i, "")
    .replace(/^\/+/, "");
  if (!host || !path) throw new AppError("BAD_INPUT", "a git remote URL needs a host and a path");
  return `${host}/${path}`.toLowerCase();
}

/** The project key: an explicit `--team-project` name, else the normalized `origin` (or first) remote of `root`. */
export function teamProjectKey(root: string, explicit?: string): string {
  if (explicit?.trim()) return `name:${explicit.trim().toLowerCase()}`;
  const remoteOf = (args: string[]) => git(root, args, { timeout: 2000 }) ?? "";
  const remote = remoteOf(["remote", "get-url", "origin"]) || remoteOf(["remote"]).split("\n")[0]?.trim();
  const url =
    remote && !remote.includes("/") && !remote.includes(":") ? remoteOf(["remote", "get-url", remote]) : remote;
  if (!url)
    throw new AppError(
      "TEAM_NOT_CONFIGURED",
      `${root} has no git remote to name the team project by. Add one (git remote add origin …) or pass --team-project NAME.`,
    );
  try {
    return normalizeRemote(url);
  } catch (err) {
    throw new AppError(
      "TEAM_NOT_CONFIGURED",
      `the git remote of ${root} (${url.replace(/\/\/[^@/]*@/, "//")}) is not a URL every clone shares, so it cannot ` +
        `name the team project: pass --team-project NAME (or set MEMCARDS_TEAM_PROJECT), the same name in every clone.`,
      { cause: err },
    );
  }
}

/**
 * The author and machine units are sent with: the configured ones (MEMCARDS_TEAM_AUTHOR, MEMCARDS_TEAM_MACHINE),
 * else git's user.email or user.name and the host name, else the OS user.
 */
export function teamAuthor(
  root: string,
  configured: Pick<TeamSettings, "author" | "machine"> = {},
): { author: string; machine: string } {
  const fromGit = (key: string) => git(root, ["config", key], { timeout: 2000 }) ?? "";
  const author = configured.author || fromGit("user.email") || fromGit("user.name") || userInfo().username;
  const machine = configured.machine || hostname();
  return { author: author.slice(0, 200), machine: machine.slice(0, 200) };
}
