// Trees at a commit: found in every supported layout, extracted atomically, cached by commit, clear errors.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

import { beforeAll, describe, expect, it } from "vitest";

import { findGitDir, materializeTree } from "../../bench/localize/materialize.js";
import { AppError } from "../../src/errors.js";
import { silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import { bareClone, FIRST_FILES, makeTinyRepo, type TinyRepo } from "./git-repo.js";

let repo: TinyRepo;
let origin: string;
beforeAll(() => {
  origin = tmpDir();
  repo = makeTinyRepo(origin, "tiny");
});

const opts = (reposDir: string | undefined, cacheDir = tmpDir()) => ({ reposDir, cacheDir, logger: silentLogger });

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    return err as AppError;
  }
  throw new Error("expected a rejection");
}

describe("findGitDir", () => {
  it.each([
    ["owner+name/repo (the fetch layout)", "acme+tiny/repo", "acme+tiny/repo"],
    ["owner+name bare", "acme+tiny", "acme+tiny"],
    ["owner/name.git", "acme/tiny.git", "acme/tiny.git"],
    ["name.git", "tiny.git", "tiny.git"],
    ["name/<something>.git", "tiny/mirror.git", "tiny/mirror.git"],
    ["Owner+Name in another case", "Acme+Tiny", "Acme+Tiny"],
  ])("finds %s", (_label, at, expected) => {
    const repos = tmpDir();
    bareClone(repo.work, join(repos, at));
    expect(findGitDir({ repo: "acme/tiny" }, repos)).toBe(join(repos, expected));
  });

  it("finds a work tree by name and uses its .git", () => {
    expect(findGitDir({ repo: "acme/tiny" }, origin)).toBe(join(repo.work, ".git"));
  });

  it("prefers the task's git_dir, a work tree or a git directory", () => {
    expect(findGitDir({ repo: "acme/other", git_dir: repo.work })).toBe(join(repo.work, ".git"));
    expect(findGitDir({ repo: "acme/other", git_dir: join(repo.work, ".git") })).toBe(join(repo.work, ".git"));
    expect(() => findGitDir({ repo: "acme/other", git_dir: tmpDir() })).toThrow(/is not a git directory or work tree/);
  });

  it("names the repository and every folder searched when it is missing", () => {
    const repos = tmpDir();
    mkdirSync(join(repos, "acme+gone"));
    let err: AppError | undefined;
    try {
      findGitDir({ repo: "acme/gone" }, repos);
    } catch (e) {
      err = e as AppError;
    }
    expect(err?.code).toBe("NOT_FOUND");
    expect(err?.message).toContain("no git directory for acme/gone");
    for (const p of ["acme+gone", "acme/gone", "acme__gone", "gone", "gone.git"]) {
      expect(err?.message).toContain(join(repos, p));
    }
    expect(() => findGitDir({ repo: "acme/gone" })).toThrow(/pass --repos DIR or give the task a git_dir/);
  });
});

describe("materializeTree", () => {
  it("extracts the tree at the commit, then serves it from the cache", async () => {
    const repos = tmpDir();
    bareClone(repo.work, join(repos, "acme+tiny", "repo"));
    const o = opts(repos);
    const task = { repo: "acme/tiny", commit: repo.commits[0] };
    const first = await materializeTree(task, o);
    expect(first.cached).toBe(false);
    expect(first.dir).toBe(join(o.cacheDir, `acme+tiny@${repo.commits[0].slice(0, 12)}`));
    for (const [p, text] of Object.entries(FIRST_FILES)) expect(readFileSync(join(first.dir, p), "utf8")).toBe(text);
    // The second commit's file is not in the first commit's tree.
    expect(existsSync(join(first.dir, "src/app/cookies.py"))).toBe(false);
    expect(readdirSync(join(o.cacheDir, ".partial"))).toEqual([]);

    expect(first.missing).toEqual([]);
    expect(existsSync(`${first.dir}.missing.json`)).toBe(false);

    const cached = { dir: first.dir, cached: true, missing: [] };
    expect(await materializeTree(task, o)).toEqual(cached);
    // A short commit id resolves to the same tree.
    expect(await materializeTree({ ...task, commit: repo.commits[0].slice(0, 8) }, o)).toEqual(cached);
    // A full commit id found in the cache needs no git directory at all.
    expect(await materializeTree(task, opts(tmpDir(), o.cacheDir))).toEqual(cached);

    const second = await materializeTree({ ...task, commit: repo.commits[1] }, o);
    expect(second.cached).toBe(false);
    expect(existsSync(join(second.dir, "src/app/cookies.py"))).toBe(true);
  });

  it("says which commit is missing, and which repository", async () => {
    const err = await rejection(
      materializeTree({ repo: "acme/tiny", commit: "deadbeefdeadbeefdeadbeefdeadbeefdeadbeef" }, opts(origin)),
    );
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe("NOT_FOUND");
    expect(err.message).toMatch(/commit deadbeefdeadbeef\w* of acme\/tiny is not in .*tiny\/\.git/);

    const missing = await rejection(materializeTree({ repo: "acme/nothere", commit: repo.commits[0] }, opts(origin)));
    expect(missing.code).toBe("NOT_FOUND");
    expect(missing.message).toMatch(/no git directory for acme\/nothere under/);
  });

  it("leaves no tree behind when extraction fails, and sweeps a dead run's unfinished tree", async () => {
    const repos = tmpDir();
    const bare = bareClone(repo.work, join(repos, "acme+tiny", "repo"));
    // A corrupt repository: the commit is there but one folder's listing is gone.
    const hidden = hide(bare, `${repo.commits[0]}:src/app`);

    const cacheDir = tmpDir();
    const key = `acme+tiny@${repo.commits[0].slice(0, 12)}`;
    // An unfinished tree of a run that is gone (pid 2^22 + 1 exceeds Linux's default pid_max).
    const stale = join(cacheDir, ".partial", `${key}.4194305.abc`);
    mkdirSync(stale, { recursive: true });

    const err = await rejection(materializeTree({ repo: "acme/tiny", commit: repo.commits[0] }, opts(repos, cacheDir)));
    expect(err.code).toBe("INTERNAL");
    expect(err.message).toMatch(/cannot extract acme\/tiny/);
    expect(existsSync(join(cacheDir, key))).toBe(false);
    expect(readdirSync(join(cacheDir, ".partial"))).toEqual([]);

    hidden.restore();
    const ok = await materializeTree({ repo: "acme/tiny", commit: repo.commits[0] }, opts(repos, cacheDir));
    expect(ok).toEqual({ dir: join(cacheDir, key), cached: false, missing: [] });
  });

  it("extracts a tree whose git directory lacks some files' content", async () => {
    const repos = tmpDir();
    const bare = bareClone(repo.work, join(repos, "acme+tiny", "repo"));
    // A snapshot without some blobs: the tree still lists them.
    hide(bare, `${repo.commits[0]}:setup.py`);
    hide(bare, `${repo.commits[0]}:docs/read me.md`);
    const warnings: string[] = [];
    const logger = {
      ...silentLogger,
      warn: (m: string, e?: Record<string, unknown>) => warnings.push(m + JSON.stringify(e)),
    };
    const o = { reposDir: repos, cacheDir: tmpDir(), logger };
    const task = { repo: "acme/tiny", commit: repo.commits[0] };

    const m = await materializeTree(task, o);
    expect(m.cached).toBe(false);
    expect(m.missing).toEqual(["docs/read me.md", "setup.py"]);
    for (const [p, text] of Object.entries(FIRST_FILES)) {
      if (m.missing.includes(p)) expect(existsSync(join(m.dir, p))).toBe(false);
      else expect(readFileSync(join(m.dir, p), "utf8")).toBe(text);
    }
    expect(readdirSync(join(o.cacheDir, ".partial"))).toEqual([]);
    // Files carry the commit's date, as in an archive of the commit itself.
    const committed = Number(repo.git("log", "-1", "--format=%ct", repo.commits[0]));
    expect(statSync(join(m.dir, "src/app/parser.py")).mtimeMs).toBe(committed * 1000);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/absent from the git directory.*"count":2.*setup\.py/);

    // The cached tree still says what it lacks, with or without the git directory.
    expect(await materializeTree(task, o)).toEqual({ dir: m.dir, cached: true, missing: m.missing });
    expect(await materializeTree(task, { ...o, reposDir: tmpDir() })).toEqual({
      dir: m.dir,
      cached: true,
      missing: m.missing,
    });
    // The second commit shares the absent blobs and adds a file that is present.
    const second = await materializeTree({ ...task, commit: repo.commits[1] }, o);
    expect(second.missing).toEqual(["docs/read me.md", "setup.py"]);
    expect(readFileSync(join(second.dir, "src/app/cookies.py"), "utf8")).toContain("CookieJar");
  });

  it("keeps file names that are not UTF-8 byte for byte, present or absent", async () => {
    // Names as raw bytes: 0xff and 0xfe never occur in UTF-8.
    const present = Buffer.from([0xff, 0x2e, 0x74, 0x78, 0x74]); // "\xff.txt"
    const absent = Buffer.concat([Buffer.from("sub/"), Buffer.from([0xfe]), Buffer.from("gone.txt")]);
    const work = join(tmpDir(), "odd");
    mkdirSync(join(work, "sub"), { recursive: true });
    writeFileSync(join(work, "plain.txt"), "plain\n");
    writeFileSync(Buffer.from(`${work}/${present.toString("latin1")}`, "latin1"), "present\n");
    writeFileSync(Buffer.concat([Buffer.from(`${work}/`), absent]), "absent\n");
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: work })
        .toString()
        .trim();
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "odd names");
    const commit = git("rev-parse", "HEAD");
    const repos = tmpDir();
    const bare = bareClone(work, join(repos, "acme+odd", "repo"));
    const absentOid = execFileSync("git", ["--git-dir", bare, "ls-tree", "-r", "--format=%(objectname)", commit])
      .toString()
      .split("\n")
      .find((oid) => oid && git("cat-file", "-p", oid) === "absent");
    hide(bare, absentOid!);

    const o = opts(repos);
    const m = await materializeTree({ repo: "acme/odd", commit }, o);
    expect(m.missing).toEqual([absent.toString("utf8")]);
    expect(readdirSync(m.dir, { encoding: "buffer" }).sort(Buffer.compare)).toEqual(
      [Buffer.from("plain.txt"), present].sort(Buffer.compare), // `sub` held only the absent file
    );
    expect(readFileSync(Buffer.concat([Buffer.from(`${m.dir}/`), present]), "utf8")).toBe("present\n");
    expect(readdirSync(join(o.cacheDir, ".partial"))).toEqual([]);
  });

  it("reports git's own error when git archive fails, not tar's complaint about the empty stream", async () => {
    const repos = tmpDir();
    const bare = bareClone(repo.work, join(repos, "acme+tiny", "repo"));
    // A blob whose header reads fine (so it counts as present) but whose content is cut short.
    const loose = looseObject(bare, `${repo.commits[0]}:setup.py`);
    chmodSync(loose, 0o644);
    const body = Buffer.concat([Buffer.from("blob 5000\0"), randomBytes(5000)]);
    writeFileSync(loose, deflateSync(body).subarray(0, 100));

    const err = await rejection(materializeTree({ repo: "acme/tiny", commit: repo.commits[0] }, opts(repos)));
    expect(err.code).toBe("INTERNAL");
    expect(err.message).toMatch(/cannot extract acme\/tiny .*git archive \w+ exited 128: .*corrupt/s);
    expect(err.message).not.toMatch(/tar -x exited|does not look like a tar archive/);
  });

  it("still names an absent commit in a repository that lacks some files, and says when git is missing", async () => {
    const repos = tmpDir();
    const bare = bareClone(repo.work, join(repos, "acme+tiny", "repo"));
    hide(bare, `${repo.commits[0]}:setup.py`);
    const gone = await rejection(materializeTree({ repo: "acme/tiny", commit: "ab".repeat(20) }, opts(repos)));
    expect(gone.code).toBe("NOT_FOUND");
    expect(gone.message).toMatch(/commit (ab){20} of acme\/tiny is not in .*acme\+tiny\/repo/);

    const path = process.env.PATH;
    process.env.PATH = tmpDir(); // a folder holding no git
    let noGit: AppError;
    try {
      noGit = await rejection(materializeTree({ repo: "acme/tiny", commit: repo.commits[0] }, opts(repos)));
    } finally {
      process.env.PATH = path;
    }
    expect(noGit.code).toBe("NOT_FOUND");
    expect(noGit.message).toMatch(/git is not installed or not on PATH/);
  });
});

/** Moves the loose object of `rev` (e.g. `<commit>:<path>`) out of the git directory; `restore` puts it back. */
function hide(gitDir: string, rev: string): { restore: () => void } {
  const loose = looseObject(gitDir, rev);
  renameSync(loose, `${loose}.hidden`);
  return { restore: () => renameSync(`${loose}.hidden`, loose) };
}

/** The file holding the loose object of `rev` (a local clone keeps the source's loose objects). */
function looseObject(gitDir: string, rev: string): string {
  const oid = execFileSync("git", ["--git-dir", gitDir, "rev-parse", rev]).toString().trim();
  const loose = join(gitDir, "objects", oid.slice(0, 2), oid.slice(2));
  expect(existsSync(loose)).toBe(true);
  return loose;
}
