// A tiny real git repository for the localization harness tests: files committed in two commits.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface TinyRepo {
  /** The work tree (its git directory is `<work>/.git`). */
  work: string;
  /** Full ids of the two commits, oldest first. */
  commits: [string, string];
  git(...args: string[]): string;
}

export const FIRST_FILES: Record<string, string> = {
  "src/app/parser.py": "def parse_header(line):\n    return line.split(':', 1)\n",
  "src/app/sessions.py": "class Session:\n    def send(self, request):\n        return request\n",
  "src/app/__init__.py": "",
  "docs/read me.md": "# Tiny\nA file name with a space.\n",
  "setup.py": "from setuptools import setup\nsetup(name='tiny')\n",
};

/** Creates `<parent>/<name>` as a work tree with two commits; the second adds `src/app/cookies.py`. */
export function makeTinyRepo(parent: string, name: string): TinyRepo {
  const work = join(parent, name);
  mkdirSync(work, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync(
      "git",
      ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main", ...args],
      {
        cwd: work,
      },
    )
      .toString()
      .trim();
  const write = (files: Record<string, string>) => {
    for (const [p, text] of Object.entries(files)) {
      mkdirSync(dirname(join(work, p)), { recursive: true });
      writeFileSync(join(work, p), text);
    }
  };
  git("init", "-q");
  write(FIRST_FILES);
  git("add", "-A");
  git("commit", "-qm", "one");
  const first = git("rev-parse", "HEAD");
  write({ "src/app/cookies.py": "class CookieJar:\n    pass\n" });
  git("add", "-A");
  git("commit", "-qm", "two");
  return { work, commits: [first, git("rev-parse", "HEAD")], git };
}

/** A bare clone of `from` at `to` (the layout `fetch` makes is `<repos>/owner+name/repo`). */
export function bareClone(from: string, to: string): string {
  mkdirSync(dirname(to), { recursive: true });
  execFileSync("git", ["clone", "-q", "--bare", from, to]);
  return to;
}
