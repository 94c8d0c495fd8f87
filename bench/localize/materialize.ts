// The tree of a task's repository at its commit: found in a git directory, extracted once, cached by commit.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

import { z } from "zod";

import { AppError } from "../../src/errors.js";
import type { Logger } from "../../src/log.js";
import type { TaskView } from "./tasks.js";

export interface MaterializeOptions {
  /** Searched for the repository when the task names no `git_dir`. */
  reposDir?: string;
  /** Trees land in `<cacheDir>/<owner+name>@<commit12>/`; unfinished ones in `<cacheDir>/.partial/`. */
  cacheDir: string;
  logger: Logger;
}

export interface Materialized {
  dir: string;
  cached: boolean;
  /**
   * Files of the commit's tree whose content the git directory lacks (snapshots may omit their largest
   * blobs), sorted: left out of the tree. Kept beside a cached tree in `<tree>.missing.json`. Names are read
   * as UTF-8 (bytes that are not show as U+FFFD); the tree itself holds every other file under its exact bytes.
   */
  missing: string[];
}

type RepoRef = Pick<TaskView, "repo" | "git_dir">;

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const isGitDir = (p: string) => isDir(p) && existsSync(join(p, "HEAD")) && isDir(join(p, "objects"));

/** The git directory of `p`: itself (bare), its `.git` folder, or the target of its `.git` file (worktrees). */
function gitDirAt(p: string): string | undefined {
  if (isGitDir(p)) return p;
  const dotGit = join(p, ".git");
  if (isGitDir(dotGit)) return dotGit;
  try {
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
    if (m?.[1]) {
      const target = resolve(p, m[1].trim());
      if (isGitDir(target)) return target;
    }
  } catch {
    // no .git file: not a work tree
  }
  return undefined;
}

/** The entry of `dir` called `name`, compared exactly first, then ignoring case (GitHub names are case-blind). */
function child(dir: string, name: string): string | undefined {
  const exact = join(dir, name);
  if (existsSync(exact)) return exact;
  try {
    const hit = readdirSync(dir).find((e) => e.toLowerCase() === name.toLowerCase());
    return hit === undefined ? undefined : join(dir, hit);
  } catch {
    return undefined;
  }
}

/**
 * Finds the git directory holding `repo` (owner/name): the task's `git_dir`, else under `reposDir` one of
 * `owner+name`, `owner/name`, `owner__name`, `name`, each optionally ending in `.git`, taken as a bare git
 * directory, a work tree, or a folder holding one git directory (`owner+name/repo`, the layout `fetch` makes,
 * or `name/<anything>.git`). Throws NOT_FOUND naming every place searched.
 */
export function findGitDir(task: RepoRef, reposDir?: string): string {
  if (task.git_dir !== undefined) {
    const dir = gitDirAt(task.git_dir);
    if (dir) return dir;
    throw new AppError(
      "NOT_FOUND",
      `git_dir ${task.git_dir} of ${task.repo} is not a git directory or work tree; fix the task's git_dir`,
    );
  }
  if (reposDir === undefined) {
    throw new AppError("NOT_FOUND", `no git directory for ${task.repo}: pass --repos DIR or give the task a git_dir`);
  }
  const [owner = "", name = ""] = task.repo.split("/");
  const stems = [[`${owner}+${name}`], [owner, name], [`${owner}__${name}`], [name]];
  const searched: string[] = [];
  for (const stem of stems) {
    for (const suffix of ["", ".git"]) {
      const parts = [...stem.slice(0, -1), `${stem.at(-1)}${suffix}`];
      let p: string | undefined = reposDir;
      for (const part of parts) p = p === undefined ? undefined : child(p, part);
      searched.push(join(reposDir, ...parts));
      if (p === undefined || !isDir(p)) continue;
      const direct = gitDirAt(p);
      if (direct) return direct;
      const nested = readdirSync(p)
        .sort()
        .map((e) => join(p, e))
        .filter(isGitDir);
      const preferred = nested.find((d) => basename(d) === "repo" || d.endsWith(".git")) ?? nested[0];
      if (preferred) return preferred;
    }
  }
  throw new AppError(
    "NOT_FOUND",
    `no git directory for ${task.repo} under ${reposDir}; searched ${searched.join(", ")} ` +
      `(each as a git directory, a work tree, or a folder holding one). Fetch the repository there or set git_dir.`,
  );
}

/** The error for a program that could not be started (`ENOENT`: not installed or not on PATH), else `err`. */
function startError(cmd: string, err: unknown): unknown {
  return (err as NodeJS.ErrnoException | undefined)?.code === "ENOENT"
    ? new AppError("NOT_FOUND", `${cmd} is not installed or not on PATH; install ${cmd} to extract task trees`, {
        cause: err,
      })
    : err;
}

/**
 * Runs a command without a shell, `input` on its stdin and `env` added to its environment; resolves with
 * stdout as bytes, rejects with its stderr.
 */
function runBytes(cmd: string, args: string[], input?: string | Buffer, env?: Record<string, string>): Promise<Buffer> {
  return new Promise((done, fail) => {
    const p = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"], env: env && { ...process.env, ...env } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    p.stdout.on("data", (d: Buffer) => out.push(d));
    p.stderr.on("data", (d: Buffer) => err.push(d));
    p.on("error", (e) => fail(startError(cmd, e)));
    // A command that exits early breaks the pipe; its exit status carries the reason.
    p.stdin.on("error", () => {});
    p.stdin.end(input ?? "");
    p.on("close", (code) =>
      code === 0
        ? done(Buffer.concat(out))
        : fail(new Error(`${cmd} ${args.join(" ")} exited ${code}: ${Buffer.concat(err).toString("utf8").trim()}`)),
    );
  });
}

/** `runBytes` with stdout read as UTF-8. */
const run = async (cmd: string, args: string[], input?: string | Buffer, env?: Record<string, string>) =>
  (await runBytes(cmd, args, input, env)).toString("utf8");

/**
 * The files of the commit's tree (`git ls-tree -r`; submodule commits are not files of this repository), each
 * path as the bytes git stores: names need not be UTF-8.
 */
async function listBlobs(gitDir: string, sha: string): Promise<{ oid: string; path: Buffer }[]> {
  const out = await runBytes("git", ["--git-dir", gitDir, "ls-tree", "-r", "-z", "--full-tree", sha]);
  const blobs: { oid: string; path: Buffer }[] = [];
  for (let start = 0; start < out.length;) {
    const end = out.indexOf(0, start) === -1 ? out.length : out.indexOf(0, start);
    const entry = out.subarray(start, end);
    start = end + 1;
    // <mode> SP <type> SP <oid> TAB <path>; all but the path is ASCII.
    const tab = entry.indexOf(0x09);
    if (tab === -1) continue;
    const m = /^\d+ (\w+) ([0-9a-f]+)$/.exec(entry.subarray(0, tab).toString("latin1"));
    if (m?.[1] === "blob") blobs.push({ oid: m[2]!, path: entry.subarray(tab + 1) });
  }
  return blobs;
}

/** The object ids among `oids` that the git directory does not hold (`git cat-file --batch-check`). */
async function absentObjects(gitDir: string, oids: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(oids)];
  if (!unique.length) return new Set();
  const out = await run("git", ["--git-dir", gitDir, "cat-file", "--batch-check"], unique.join("\n") + "\n");
  const absent = new Set<string>();
  for (const line of out.split("\n")) {
    const m = /^([0-9a-f]+) missing$/.exec(line.trim());
    if (m) absent.add(m[1]!);
  }
  return absent;
}

/**
 * A commit with the date of `sha` whose tree is `sha`'s without the `missing` paths, written to the object folder
 * `scratch/objects` that borrows every other object from the git directory, which stays untouched. Paths go to
 * git on stdin as bytes, never as arguments, so no name is re-encoded and no list is too long. Returns the commit
 * and the environment under which git finds it.
 */
async function commitWithout(
  gitDir: string,
  sha: string,
  missing: readonly Buffer[],
  scratch: string,
): Promise<{ commit: string; env: Record<string, string> }> {
  mkdirSync(join(scratch, "objects"), { recursive: true });
  mkdirSync(join(scratch, "work"));
  const env = {
    GIT_INDEX_FILE: join(scratch, "index"),
    GIT_OBJECT_DIRECTORY: join(scratch, "objects"),
    GIT_ALTERNATE_OBJECT_DIRECTORIES: resolve(gitDir, "objects"),
  };
  const git = (args: string[], input?: Buffer, more?: Record<string, string>) =>
    run("git", ["--git-dir", gitDir, ...args], input, { ...env, ...more });
  await git(["read-tree", sha]);
  // update-index wants a work tree; an empty one it never reads from.
  const paths = Buffer.concat(missing.flatMap((p) => [p, Buffer.from([0])]));
  await git(["--work-tree", join(scratch, "work"), "update-index", "--force-remove", "-z", "--stdin"], paths);
  const tree = (await git(["write-tree"])).trim();
  // The archive stamps files with the commit's date, as an archive of `sha` itself would.
  const date = (await git(["log", "-1", "--format=%cd", "--date=raw", sha])).trim();
  const who = { NAME: "memcards", EMAIL: "memcards@localhost", DATE: date };
  const ident = Object.fromEntries(
    ["AUTHOR", "COMMITTER"].flatMap((role) => Object.entries(who).map(([k, v]) => [`GIT_${role}_${k}`, v])),
  );
  const commit = (
    await git(["commit-tree", "--no-gpg-sign", "-m", `${sha} without absent files`, tree], undefined, ident)
  ).trim();
  return { commit, env };
}

/** `git archive <sha> | tar -x -C dest`, as two processes joined by a pipe; `env` is added to git's. */
function extract(gitDir: string, sha: string, dest: string, env: Record<string, string>): Promise<void> {
  return new Promise((done, fail) => {
    const git = spawn("git", ["--git-dir", gitDir, "archive", "--format=tar", sha], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    const tar = spawn("tar", ["-x", "-f", "-", "-C", dest], { stdio: ["pipe", "ignore", "pipe"] });
    const errs = { git: "", tar: "" };
    git.stderr.on("data", (d: Buffer) => (errs.git += d.toString("utf8")));
    tar.stderr.on("data", (d: Buffer) => (errs.tar += d.toString("utf8")));
    // tar exiting early breaks the pipe; its own exit status carries the reason.
    tar.stdin.on("error", () => {});
    git.stdout.pipe(tar.stdin);
    const codes: { git?: number | null; tar?: number | null } = {};
    let failure: Error | undefined;
    const settle = () => {
      if (failure) return fail(failure);
      if (!("git" in codes) || !("tar" in codes)) return;
      // A failing git leaves tar a broken stream: git's own message says why, tar's only echoes it. Only a git
      // stopped by the pipe tar closed (SIGPIPE, or status 141) leaves the reason to tar.
      const gitFailed = codes.git !== 0;
      const brokenPipe = codes.git === null || codes.git === 141;
      if (gitFailed && !(brokenPipe && codes.tar !== 0)) {
        return fail(new Error(`git archive ${sha} exited ${codes.git}: ${errs.git.trim()}`));
      }
      if (codes.tar !== 0) return fail(new Error(`tar -x exited ${codes.tar}: ${errs.tar.trim()}`));
      done();
    };
    git.on("error", (e) => {
      failure ??= startError("git", e) as Error;
      tar.kill();
      settle();
    });
    tar.on("error", (e) => {
      failure ??= startError("tar", e) as Error;
      git.kill();
      settle();
    });
    git.on("close", (code) => {
      codes.git = code;
      settle();
    });
    tar.on("close", (code) => {
      codes.tar = code;
      settle();
    });
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Removes unfinished extractions of `key` left by runs that are no longer alive. */
function sweepPartials(partialDir: string, key: string, logger: Logger): void {
  for (const e of readdirSync(partialDir)) {
    if (!e.startsWith(`${key}.`)) continue;
    const pid = Number(e.slice(key.length + 1).split(".")[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) {
      logger.debug("removing an unfinished tree of a dead run", { path: join(partialDir, e) });
      rmSync(join(partialDir, e), { recursive: true, force: true });
    }
  }
}

const cacheKey = (repo: string, sha: string) => `${repo.replace("/", "+")}@${sha.slice(0, 12).toLowerCase()}`;

/** Where the files left out of the tree at `dir` are listed (absent when none were). */
const missingFile = (dir: string) => `${dir}.missing.json`;

/** The files left out of the cached tree at `dir`. */
function cachedMissing(dir: string): string[] {
  let text: string;
  try {
    text = readFileSync(missingFile(dir), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const parsed = z.array(z.string()).safeParse(JSON.parse(text));
  if (!parsed.success) {
    throw new AppError("INTERNAL", `${missingFile(dir)} is not a list of paths; remove it and the tree ${dir}`);
  }
  return parsed.data;
}

/**
 * The tree of `task.repo` at `task.commit`, extracted into `<cacheDir>/<owner+name>@<commit12>/` through a
 * temporary folder renamed into place, so only complete trees are ever found there. Files whose content the
 * git directory lacks are left out, listed in `missing` and logged. A full 40-digit commit whose tree is cached
 * needs no git directory. Throws NOT_FOUND naming the repository and the searched folders, the commit when the
 * git directory lacks it, or git when it is not installed.
 */
export async function materializeTree(
  task: Pick<TaskView, "repo" | "commit" | "git_dir">,
  opts: MaterializeOptions,
): Promise<Materialized> {
  const cacheDir = resolve(opts.cacheDir);
  const found = (dir: string): Materialized => {
    const missing = cachedMissing(dir);
    warnMissing(opts.logger, task.repo, missing);
    return { dir, cached: true, missing };
  };
  if (/^[0-9a-fA-F]{40}$/.test(task.commit)) {
    const dir = join(cacheDir, cacheKey(task.repo, task.commit));
    if (isDir(dir)) return found(dir);
  }
  const gitDir = findGitDir(task, opts.reposDir);
  let sha: string;
  try {
    sha = (
      await run("git", ["--git-dir", gitDir, "rev-parse", "--verify", "--quiet", `${task.commit}^{commit}`])
    ).trim();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(
      "NOT_FOUND",
      `commit ${task.commit} of ${task.repo} is not in ${gitDir}; fetch the repository's full history or fix the task's commit`,
      { cause: err },
    );
  }
  const key = cacheKey(task.repo, sha);
  const dir = join(cacheDir, key);
  if (isDir(dir)) return found(dir);

  const partialDir = join(cacheDir, ".partial");
  mkdirSync(partialDir, { recursive: true });
  sweepPartials(partialDir, key, opts.logger);
  const tmp = join(partialDir, `${key}.${process.pid}.${Math.random().toString(36).slice(2, 10)}`);
  const scratch = `${tmp}.git`;
  mkdirSync(tmp);
  const started = performance.now();
  let missing: string[];
  try {
    const blobs = await listBlobs(gitDir, sha);
    const absent = await absentObjects(
      gitDir,
      blobs.map((b) => b.oid),
    );
    const lacking = blobs.filter((b) => absent.has(b.oid)).map((b) => b.path);
    missing = lacking.map((p) => p.toString("utf8")).sort();
    if (lacking.length) {
      const without = await commitWithout(gitDir, sha, lacking, scratch);
      await extract(gitDir, without.commit, tmp, without.env);
    } else {
      await extract(gitDir, sha, tmp, {});
    }
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (err instanceof AppError) throw err;
    throw new AppError("INTERNAL", `cannot extract ${task.repo} at ${sha} from ${gitDir}: ${(err as Error).message}`, {
      cause: err,
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  try {
    mkdirSync(dirname(dir), { recursive: true });
    // The list of left-out files lands before the tree, so a tree under its final name always has its list.
    if (missing.length) {
      writeFileSync(missingFile(tmp), JSON.stringify(missing));
      renameSync(missingFile(tmp), missingFile(dir));
    } else {
      rmSync(missingFile(dir), { force: true });
    }
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(missingFile(tmp), { force: true });
    // Another run finished the same tree first: theirs is complete, use it.
    if (isDir(dir)) return found(dir);
    throw new AppError("INTERNAL", `cannot move the tree of ${task.repo} into ${dir}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  opts.logger.debug("extracted tree", { repo: task.repo, commit: sha, ms: Math.round(performance.now() - started) });
  warnMissing(opts.logger, task.repo, missing);
  return { dir, cached: false, missing };
}

function warnMissing(logger: Logger, repo: string, missing: readonly string[]): void {
  if (!missing.length) return;
  logger.warn("files absent from the git directory are left out of the tree", {
    repo,
    count: missing.length,
    files: missing.slice(0, 5),
  });
}
