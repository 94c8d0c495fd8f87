// A cloned repository that commits links under `.memcards/` (the store, its WAL, the re-index lock, the hook log,
// the .gitignore; dangling or pointing at real files) or makes `.memcards` itself a link: index, hooks and compress
// refuse or skip them and write nothing outside the project.
import { execFileSync } from "node:child_process";
import {
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { logText } from "../../src/integrate/hook-command.js";
import { checkStoreFiles } from "../../src/project/files.js";
import { openDatabase } from "../../src/storage/db.js";
import { runCli } from "../helpers/cli.js";
import { claudeCodeSession, longSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";

/** Any control character but the line feed. */
// eslint-disable-next-line no-control-regex -- control characters are what must not appear
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f]/;

/** Every file under `dir`: its name, and its content and mtime (or its link target). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const p = join(dir, name);
    const st = lstatSync(p);
    out[name] = st.isFile() ? `${readFileSync(p, "latin1")}@${st.mtimeMs}` : st.isDirectory() ? "dir" : "other";
  }
  return out;
}

/** A git project whose committed `.memcards/` holds the given links into an `outside` folder of existing files. */
function hostile(links: Record<string, string>, opts: { store?: boolean } = {}) {
  const base = realpathSync(tmpDir("memcards-links-"));
  const root = join(base, "project");
  const outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "bashrc"), "export PATH=/usr/bin\n");
  writeFileSync(join(outside, "victim.txt"), "ORIGINAL CONTENT\n");
  writeFileSync(join(root, "a.py"), "def alpha():\n    return 1\n");
  writeFileSync(join(root, "session.jsonl"), claudeCodeSession(longSession(2)));
  execFileSync("git", ["init", "-q", root]);
  mkdirSync(join(root, ".memcards"));
  if (opts.store) openDatabase(join(root, ".memcards", "memcards.db")).close();
  for (const [name, target] of Object.entries(links)) symlinkSync(join(outside, target), join(root, ".memcards", name));
  execFileSync("git", ["-C", root, "add", "-f", "."]);
  execFileSync("git", ["-C", root, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "clone"]);
  const home = tmpDir();
  const env = { HOME: home, MEMCARDS_HOME: join(home, ".memcards") };
  const cli = (args: string[], input?: string) => runCli(args, { cwd: root, env, ...(input ? { input } : {}) });
  const hook = (event: string, input: Record<string, unknown>) => {
    const r = cli(["hook", event], JSON.stringify({ cwd: root, session_id: "s1", ...input }));
    expect(r.code).toBe(0);
    return r;
  };
  const userLog = () => readFileSync(join(env.MEMCARDS_HOME, "hooks.log"), "utf8");
  return { root, outside, cli, hook, userLog, before: snapshot(outside) };
}

describe("links committed under .memcards", () => {
  it("a store that is a dangling link: index, compress and status refuse it and create nothing outside", () => {
    const h = hostile({ "memcards.db": "made-by-memcards.db", ".gitignore": "made-gitignore" });
    for (const args of [["index", "--lexical-only"], ["compress", "session.jsonl"], ["status"]]) {
      const r = h.cli(args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toMatch(/UNSAFE_FILE: refusing to use .*\.memcards\/memcards\.db: it is a symbolic link/);
    }
    expect(snapshot(h.outside)).toEqual(h.before);
  });

  it("a store that links to a real file, and a WAL that is a link, are refused and left untouched", () => {
    const h = hostile({ "memcards.db": "victim.txt" });
    expect(h.cli(["index", "--lexical-only"]).stderr).toMatch(/UNSAFE_FILE: .*memcards\.db: it is a symbolic link/);
    const w = hostile({ "memcards.db-wal": "victim.txt", "memcards.db-shm": "shm" }, { store: true });
    expect(w.cli(["status"]).stderr).toMatch(/UNSAFE_FILE: .*memcards\.db-wal: it is a symbolic link/);
    expect(snapshot(h.outside)).toEqual(h.before);
    expect(snapshot(w.outside)).toEqual(w.before);
  });

  it("the re-index lock, the hook log and the .gitignore as links: hooks write nothing through them", () => {
    const h = hostile(
      { "reindex.lock": "victim.txt", "hooks.log": "bashrc", ".gitignore": "made-gitignore" },
      { store: true },
    );
    // The store is committed: trusted first, so the hooks get as far as the links.
    expect(h.cli(["trust"]).code).toBe(0);
    const evil = `${join(h.outside, "x.py")}\n$(touch ${join(h.outside, "pwned")})\`id\`\u001b[31m`;
    h.hook("PostToolUse", { tool_name: "Write", tool_input: { file_path: evil } });
    h.hook("SessionStart", { source: "startup" });
    h.hook("PreCompact", { transcript_path: join(h.root, "session.jsonl") });
    expect(h.cli(["index", "--lexical-only"]).code).toBe(0);
    // An export to a path that is a link is refused too.
    symlinkSync(join(h.outside, "victim.txt"), join(h.root, "export.jsonl"));
    const exported = h.cli(["export", "--out", join(h.root, "export.jsonl")]);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toMatch(/UNSAFE_FILE: .*export\.jsonl: it is a symbolic link/);
    expect(snapshot(h.outside)).toEqual(h.before);
    expect(existsSync(join(h.outside, "pwned"))).toBe(false);
    // The project's log is a link, so the per-user log took the lines: one per call, escaped, the lock refused.
    const lines = h.userLog().trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /PostToolUse s1 error: UNSAFE_FILE: refusing to use .*reindex\.lock: it is a symbolic link/,
    );
    expect(h.userLog()).not.toMatch(CONTROL);
    expect(h.userLog()).not.toMatch(/\$\(|`/);
    // `memcards log` does not show what the link points to.
    const shown = h.cli(["log"]);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toMatch(/UNSAFE_FILE: .*hooks\.log: it is a symbolic link/);
    expect(shown.stdout).not.toContain("export PATH");
    // The links are still links: nothing was replaced or followed.
    for (const name of ["reindex.lock", "hooks.log", ".gitignore"])
      expect(lstatSync(join(h.root, ".memcards", name)).isSymbolicLink()).toBe(true);
  });

  it("a .memcards folder that is a link is refused", () => {
    const base = realpathSync(tmpDir("memcards-links-"));
    const root = join(base, "project");
    const elsewhere = join(base, "elsewhere");
    mkdirSync(root);
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(root, ".memcards"));
    const home = tmpDir();
    const r = runCli(["--root", root, "index", "--lexical-only"], { env: { HOME: home, MEMCARDS_HOME: home } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/UNSAFE_FILE: refusing to use .*\.memcards: it is a symbolic link/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("a store folder or store file of another user is refused", () => {
    // Run as root, a folder is given to another user; otherwise `/` already belongs to another user.
    let dir = "/";
    if (process.getuid?.() === 0) {
      dir = join(realpathSync(tmpDir()), ".memcards");
      mkdirSync(dir);
      chownSync(dir, 12345, 12345);
    }
    expect(statSync(dir).uid).not.toBe(process.getuid?.());
    expect(() => checkStoreFiles(join(dir, "memcards.db"), dir, true)).toThrow(/UNSAFE_FILE|belongs to user/);
  });
});

describe("the hook log's lines", () => {
  it("are redacted and escaped: one line, no control character, no command substitution", () => {
    const key = `sk-ant-api03-${"a1B2c3D4".repeat(10)}`;
    const line = logText(`queued re-index for /x\n$(touch /tmp/p) \`id\` \u0007 ${key} \\`);
    expect(line).not.toContain("\n");
    expect(line).not.toContain(key);
    expect(line).not.toMatch(CONTROL);
    expect(line).not.toMatch(/\$|`/);
    expect(line).toContain("\\n\\u0024(touch /tmp/p) \\u0060id\\u0060 \\u0007");
    expect(line.endsWith("\\\\")).toBe(true);
  });
});
