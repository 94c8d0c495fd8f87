// What a newcomer meets first on the command line: errors in the CLI's own words, no silent work outside a project,
// the embedder's advice once per store, the team project's flag, Claude Code's approval step.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { countTokens } from "../../src/text/tokens.js";
import { runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

const gitRepo = (): string => {
  const dir = tmpDir();
  execFileSync("git", ["init", "-q", dir]);
  writeFileSync(join(dir, "app.py"), "def login(user):\n    return user\n");
  return dir;
};

describe("usage errors in the CLI's words", () => {
  it("a number flag that is not a number names the flag and the value", () => {
    const env = { MEMCARDS_HOME: tmpDir() };
    const r = runCli(["cards", "fix login", "--budget", "lots", "--root", gitRepo()], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^memcards: BAD_INPUT: option '--budget <tokens>' argument 'lots' is invalid/m);
    expect(r.stderr).not.toMatch(/NaN|budget_tokens/);
    const half = runCli(["recall", "--budget", "12abc", "--root", gitRepo()], { env });
    expect(half.code).toBe(1);
    expect(half.stderr).toMatch(/--budget <tokens>' argument '12abc' is invalid/);
  });

  it("a schema bound names the flag, not the tool's field", () => {
    const env = { MEMCARDS_HOME: tmpDir() };
    const r = runCli(["cards", "fix login", "--budget", "3", "--root", gitRepo()], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^memcards: BAD_INPUT: --budget: Too small/m);
  });

  it("compress with no transcript says how to pass one on the command line", () => {
    const home = tmpDir();
    const r = runCli(["compress", "--root", gitRepo()], { env: { MEMCARDS_HOME: home, HOME: home } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/memcards compress <transcript>/);
    expect(r.stderr).not.toMatch(/transcript_path|messages\)/);
  });

  it("index of a missing folder names the path argument, not --root", () => {
    const r = runCli(["index", "/no/such/dir/for/memcards"], { env: { MEMCARDS_HOME: tmpDir() } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^memcards: NOT_FOUND: \/no\/such\/dir\/for\/memcards does not exist: give memcards index/m,
    );
    expect(r.stderr).not.toMatch(/--root/);
  });
});

describe("outside a project", () => {
  it("index and cards stop with NO_PROJECT, say where the store would be, and create nothing", () => {
    const home = tmpDir();
    const outside = tmpDir(); // no git repository
    for (const args of [["index"], ["cards", "fix login"]]) {
      const r = runCli(args, { cwd: outside, env: { MEMCARDS_HOME: home, MEMCARDS_ROOT: "" } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^memcards: NO_PROJECT: .*per-user store in /m);
      expect(r.stderr).toContain(home);
      expect(r.stderr).toMatch(/--root \/path\/to\/project/);
    }
    expect(readdirSync(home)).toEqual([]);
  });

  it("inside a git repository the same command indexes it", () => {
    const home = tmpDir();
    const repo = gitRepo();
    const r = runCli(["index", "--json"], { cwd: repo, env: { MEMCARDS_HOME: home, MEMCARDS_ROOT: "" } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).files.parsed).toBe(1);
  });
});

describe("the embedder's advice", () => {
  it("is printed once per store, and status still reports it", () => {
    const env = { MEMCARDS_HOME: tmpDir(), MEMCARDS_EMBEDDER: "" };
    const root = gitRepo();
    const first = runCli(["memories", "--root", root], { env });
    const second = runCli(["memories", "--root", root], { env });
    expect(first.stderr).toMatch(/offline embedder/);
    expect(second.stderr).not.toMatch(/embedder/);
    expect(runCli(["status", "--json", "--root", root], { env }).stdout).toMatch(/"note": ".*offline embedder/);
  });

  it("is not used up by a hook or doctor, which print no warnings, opening the store first", () => {
    const env = { MEMCARDS_HOME: tmpDir(), MEMCARDS_EMBEDDER: "" };
    const root = gitRepo();
    const hook = runCli(["hook", "SessionStart"], {
      cwd: root,
      env,
      input: JSON.stringify({ cwd: root, hook_event_name: "SessionStart", source: "startup" }),
    });
    expect(hook.code).toBe(0);
    expect(hook.stderr).not.toMatch(/embedder/);
    runCli(["doctor", "--root", root], { env });
    const first = runCli(["memories", "--root", root], { env });
    expect(first.stderr).toMatch(/offline embedder/);
    expect(runCli(["memories", "--root", root], { env }).stderr).not.toMatch(/embedder/);
  });
});

describe("team project naming", () => {
  it("a clone whose remote is a local path is told to pass --team-project", () => {
    const repo = gitRepo();
    execFileSync("git", ["-C", repo, "remote", "add", "origin", "/srv/git/shop.git"]);
    const r = runCli(["team", "init", "--root", repo], {
      env: { MEMCARDS_HOME: tmpDir(), MEMCARDS_TEAM_URL: "postgres://nobody@127.0.0.1:1/none" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--team-project NAME/);
    expect(r.stderr).not.toMatch(/not a git remote URL/);
  });
});

describe("init and Claude Code's approval", () => {
  it("says how a project server is approved, and --approve does it for this machine only", () => {
    const repo = gitRepo();
    const env = { MEMCARDS_HOME: tmpDir() };
    const plain = runCli(["init", "claude-code", "--yes", "--root", repo], { env });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/pending until it is approved/);
    expect(existsSync(join(repo, ".claude", "settings.local.json"))).toBe(false);

    const approved = runCli(["init", "claude-code", "--yes", "--approve", "--root", repo], { env });
    expect(approved.code).toBe(0);
    const local = JSON.parse(readFileSync(join(repo, ".claude", "settings.local.json"), "utf8")) as {
      enabledMcpjsonServers: string[];
    };
    expect(local.enabledMcpjsonServers).toEqual(["memcards"]);

    const removed = runCli(["init", "claude-code", "--yes", "--remove", "--root", repo], { env });
    expect(removed.code).toBe(0);
    expect(JSON.parse(readFileSync(join(repo, ".claude", "settings.local.json"), "utf8"))).toEqual({});
  });
});

describe("compressing a transcript twice", () => {
  it("the second run says it is already summarized, stores nothing, and the page it reports is what it printed", () => {
    const repo = gitRepo();
    const env = { MEMCARDS_HOME: tmpDir() };
    const transcript = join(repo, ".aider.chat.history.md");
    writeFileSync(transcript, readFileSync(join("test", "fixtures", "transcripts", "aider.chat.history.md"), "utf8"));
    const first = runCli(["compress", transcript, "--budget", "600", "--root", repo], { env });
    expect(first.code, first.stderr).toBe(0);
    const stored = runCli(["summary", "--json", "--root", repo], { env }).stdout;
    const again = runCli(["compress", transcript, "--budget", "600", "--root", repo], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/already summarized to its end \(compression #1\); nothing new was read or stored/);
    expect(again.stdout).not.toMatch(/ratio 0\b|0 facts checked/);
    expect(runCli(["summary", "--json", "--root", repo], { env }).stdout).toBe(stored);
    const page = /Page: (\d+) tokens against a budget of 600/.exec(again.stdout);
    expect(page).not.toBeNull();
    const printed = again.stdout.slice(0, again.stdout.lastIndexOf("\n---\n"));
    expect(countTokens(printed.trimEnd())).toBe(Number(page![1]));
  });
});

describe("anchors on the page", () => {
  it("name a Claude Code turn by its first eight hex digits, never a whole UUID per line", () => {
    const repo = gitRepo();
    const transcript = join("test", "fixtures", "transcripts", "claude-code-2.1.328.jsonl");
    const r = runCli(["compress", transcript, "--keep", "3", "--root", repo], { env: { MEMCARDS_HOME: tmpDir() } });
    expect(r.code, r.stderr).toBe(0);
    const page = r.stdout.slice(0, r.stdout.lastIndexOf("\n---\n"));
    const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
    expect(page).not.toMatch(uuid);
    expect(page).toMatch(/\([0-9a-f]{8}\)/);
  });
});
