import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { describe, expect, it } from "vitest";

import { resolveProjectRoot } from "../../src/project/root.js";
import { tmpDir } from "../helpers/tmp.js";

function gitRepo(): string {
  const dir = realpathSync(tmpDir("memcards-git-"));
  execFileSync("git", ["init", "-q", dir]);
  writeFileSync(join(dir, "a.txt"), "a");
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", dir, "-c", "user.email=t@t", "-c", "user.name=t", ...args], { stdio: "ignore" });
  git("add", ".");
  git("commit", "-q", "-m", "init");
  return dir;
}

describe("project root resolution", () => {
  const userDir = join(tmpDir(), "user-store");

  it("takes --root / MEMCARDS_ROOT first, even over client roots", () => {
    const explicit = realpathSync(tmpDir());
    const other = tmpDir();
    const loc = resolveProjectRoot({ explicit, mcpRoots: [pathToFileURL(other).href], cwd: "/", userDir });
    expect(loc.source).toBe("flag");
    expect(loc.root).toBe(explicit);
    expect(loc.defaultDbPath).toBe(join(explicit, ".memcards", "memcards.db"));
  });

  it("uses the client's first usable file:// root next", () => {
    const root = realpathSync(tmpDir());
    const loc = resolveProjectRoot({
      mcpRoots: ["https://example.com/not-a-file", pathToFileURL(join(root, "missing")).href, pathToFileURL(root).href],
      cwd: "/",
      userDir,
    });
    expect(loc.source).toBe("mcp-roots");
    expect(loc.root).toBe(root);
  });

  it("falls back to the git top level of the working directory", () => {
    const repo = gitRepo();
    const sub = join(repo, "deep", "er");
    mkdirSync(sub, { recursive: true });
    const loc = resolveProjectRoot({ cwd: sub, userDir });
    expect(loc.source).toBe("git");
    expect(loc.root).toBe(repo);
    expect(loc.key).toBe(join(repo, ".git"));
    expect(loc.defaultDbPath).toBe(join(repo, ".memcards", "memcards.db"));
  });

  it("identifies worktrees by the git common directory, so they share one store", () => {
    const repo = gitRepo();
    const wt = join(realpathSync(tmpDir()), "wt");
    execFileSync("git", ["-C", repo, "worktree", "add", "-q", wt], { stdio: "ignore" });
    const main = resolveProjectRoot({ cwd: repo, userDir });
    const other = resolveProjectRoot({ cwd: wt, userDir });
    expect(other.root).toBe(wt);
    expect(other.key).toBe(main.key);
    expect(other.defaultDbPath).toBe(main.defaultDbPath);
  });

  it("ends at the per-user store outside any repository (Claude Desktop starts servers in /)", () => {
    const loc = resolveProjectRoot({ cwd: "/", userDir });
    expect(loc.source).toBe("user-store");
    expect(loc.defaultDbPath).toBe(join(userDir, "memcards.db"));
  });

  it("rejects a missing or non-directory explicit root with the fix", () => {
    expect(() => resolveProjectRoot({ explicit: "/no/such/dir", cwd: "/", userDir })).toThrow(/does not exist/);
    const file = join(tmpDir(), "f.txt");
    writeFileSync(file, "x");
    expect(() => resolveProjectRoot({ explicit: file, cwd: "/", userDir })).toThrow(/is a file, not a directory/);
  });
});
