import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { AppError } from "../../src/errors.js";
import { contentHash, type KnownFile, scanRepo } from "../../src/repo/scan.js";
import { tmpDir } from "../helpers/tmp.js";
import { addIgnoredPieces, copyPolyglot, POLYGLOT } from "./fixture.js";

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, "-c", "user.email=t@t", "-c", "user.name=t", ...args], { stdio: "ignore" });

function inGitWorkTree(dir: string): boolean {
  try {
    return (
      execFileSync("git", ["-C", dir, "rev-parse", "--is-inside-work-tree"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim() === "true"
    );
  } catch {
    return false;
  }
}

/** What every scan of the polyglot fixture must contain and leave out, whichever mode listed it. */
function expectPolyglotContents(paths: string[]): void {
  for (const p of [
    "AGENTS.md",
    "pyproj/AGENTS.md",
    ".cursor/rules/python-style.mdc",
    "pyproj/shapes/geometry.py",
    "pyproj/tests/test_geometry.py",
    "web/src/math.test.ts",
    "web/src/components/Button.tsx",
    "gosvc/store/store_test.go",
    "rustcrate/src/lib.rs",
    "java/src/test/java/com/example/shapes/CircleTest.java",
    "csrc/geom.h",
    "ruby/lib/greeter.rb",
    "docs/guide.md",
  ]) {
    expect(paths).toContain(p);
  }
  for (const p of [
    "node_modules/leftpad/index.js",
    "scratch/notes.txt",
    "cache.tmp",
    "docs/private/notes.md",
    "assets/logo.png",
    "assets/blob.dat",
    "web/src/schema.generated.ts",
    "web/src/vendor.min.js",
    "rustcrate/Cargo.lock",
  ]) {
    expect(paths).not.toContain(p);
  }
}

describe("scanRepo", () => {
  it("lists the fixture from inside the memcards repository with git ls-files, relative to the subdirectory", () => {
    const result = scanRepo(POLYGLOT);
    if (inGitWorkTree(POLYGLOT)) expect(result.mode).toBe("git");
    const paths = result.files.map((f) => f.path);
    expectPolyglotContents(paths);
    expect(paths.every((p) => !p.startsWith("fixtures/") && !p.startsWith("/"))).toBe(true);
    expect(paths).toEqual([...paths].sort());
    expect(result.skipped.binary).toBe(2);
    expect(result.skipped.generated).toBe(3);
    expect(result.skipped.memcardsignore).toBe(1);
  });

  it("walks a copy outside git with nested .gitignore rules and counts every skip reason", () => {
    const dir = copyPolyglot();
    mkdirSync(join(dir, "web", "out"), { recursive: true });
    writeFileSync(join(dir, "web", ".gitignore"), "out/\n!keep.tmp\n");
    writeFileSync(join(dir, "web", "out", "bundle.js"), "x\n");
    writeFileSync(join(dir, "web", "keep.tmp"), "re-included by the nested .gitignore\n");
    writeFileSync(join(dir, "big.txt"), "x".repeat(1_100_000));
    const result = scanRepo(dir, { withContent: true });
    expect(result.mode).toBe("walk");
    expect(result.root).toBe(realpathSync(dir));
    const paths = result.files.map((f) => f.path);
    expectPolyglotContents(paths);
    expect(paths).toContain("web/keep.tmp");
    expect(paths).not.toContain("web/out/bundle.js");
    expect(paths).not.toContain("big.txt");
    expect(result.skipped).toMatchObject({
      ignored: 3, // scratch/, cache.tmp, web/out/
      vendored: 1, // node_modules/ (pruned once)
      binary: 2,
      generated: 3,
      oversized: 1,
      memcardsignore: 1,
    });
    expect(result.skippedExamples.binary).toEqual(expect.arrayContaining(["assets/logo.png", "assets/blob.dat"]));
    expect(result.skippedExamples.oversized).toEqual(["big.txt"]);
    const geometry = result.files.find((f) => f.path === "pyproj/shapes/geometry.py")!;
    expect(geometry).toMatchObject({
      language: "python",
      absPath: join(dir, "pyproj/shapes/geometry.py"),
      unchanged: false,
    });
    expect(geometry.content).toContain("class Circle");
    expect(geometry.hash).toBe(contentHash(geometry.content!));
    expect(geometry.size).toBe(Buffer.byteLength(geometry.content!));
  });

  it("in a git repository scanned from a subdirectory, lists tracked and untracked files and honours parent ignores", () => {
    const top = realpathSync(tmpDir("memcards-gitscan-"));
    execFileSync("git", ["init", "-q", top]);
    writeFileSync(join(top, ".gitignore"), "*.secret\n");
    writeFileSync(join(top, "outside.py"), "x = 1\n");
    const sub = join(top, "packages");
    mkdirSync(sub);
    execFileSync("cp", ["-r", POLYGLOT, join(sub, "poly")]);
    const root = join(sub, "poly");
    addIgnoredPieces(root);
    writeFileSync(join(root, "api.secret"), "token\n");
    git(top, "add", "outside.py", ".gitignore", "packages/poly/pyproj");
    git(top, "commit", "-q", "-m", "init");
    mkdirSync(join(root, "node_modules", "dep"), { recursive: true });
    writeFileSync(join(root, "node_modules", "dep", "index.js"), "module.exports = 1;\n");
    mkdirSync(join(root, "vendor", "lib"), { recursive: true });
    writeFileSync(join(root, "vendor", "lib", "x.go"), "package lib\n");

    const result = scanRepo(root, { maxFileBytes: 400 });
    expect(result.mode).toBe("git");
    const paths = result.files.map((f) => f.path);
    expect(paths).toContain("pyproj/shapes/util.py"); // tracked
    expect(paths).toContain("gosvc/main.go"); // untracked, not ignored
    expect(paths).not.toContain("api.secret"); // ignored by the parent's .gitignore
    expect(paths.some((p) => p.includes("outside.py"))).toBe(false);
    expect(paths.some((p) => p.startsWith("node_modules/") || p.startsWith("vendor/"))).toBe(false);
    expect(result.skipped.ignored).toBe(3); // scratch/, cache.tmp, api.secret
    // Untracked, not ignored: git lists each file (node_modules/leftpad, node_modules/dep, vendor/lib).
    expect(result.skipped.vendored).toBe(3);
    expect(result.skipped.oversized).toBeGreaterThan(0);
    expect(result.skippedExamples.oversized).toContain("java/src/main/java/com/example/shapes/Circle.java");
  });

  it("scans only given paths, in git and in a walk, with every rule still applied", () => {
    const top = realpathSync(tmpDir("memcards-pathscan-"));
    execFileSync("git", ["init", "-q", top]);
    const root = join(top, "poly");
    execFileSync("cp", ["-r", POLYGLOT, root]);
    addIgnoredPieces(root);
    writeFileSync(join(root, "[odd].py"), "x = 1\n"); // a glob character, taken literally
    symlinkSync("/etc/hostname", join(root, "pyproj", "outside.py"));
    const given = [
      "pyproj/shapes",
      "gosvc/main.go",
      "cache.tmp", // ignored by .gitignore
      "node_modules/leftpad/index.js", // vendored
      "[odd].py",
      "no/such/file.py",
    ];
    for (const useGit of [true, false]) {
      const result = scanRepo(root, { paths: given, useGit });
      expect(result.mode).toBe(useGit ? "git" : "walk");
      const paths = result.files.map((f) => f.path).sort();
      const shapes = scanRepo(root, { useGit })
        .files.map((f) => f.path)
        .filter((p) => p.startsWith("pyproj/shapes/"));
      expect(shapes.length).toBeGreaterThan(2);
      expect(paths).toEqual([...shapes, "[odd].py", "gosvc/main.go"].sort());
      expect(paths).not.toContain("pyproj/outside.py");
    }
    // A link out of the project is refused when it is given by name too.
    const linked = scanRepo(root, { paths: ["pyproj/outside.py"] });
    expect(linked.files).toEqual([]);
    expect(linked.skipped["symlink-outside"]).toBe(1);
  });

  it("reuses stored hashes for files whose size and mtime did not change", () => {
    const dir = copyPolyglot();
    const first = scanRepo(dir, { useGit: false });
    const known: Record<string, KnownFile> = {};
    for (const f of first.files) known[f.path] = { size: f.size, mtimeMs: f.mtimeMs, hash: f.hash };

    const later = new Date(Date.now() + 60_000);
    writeFileSync(join(dir, "pyproj/shapes/util.py"), "def clamp(x, lo, hi):\n    return x\n");
    utimesSync(join(dir, "pyproj/shapes/util.py"), later, later);
    utimesSync(join(dir, "README.md"), later, later); // touched, same bytes

    const second = scanRepo(dir, { useGit: false, withContent: true, known });
    const byPath = new Map(second.files.map((f) => [f.path, f]));
    expect(byPath.get("pyproj/shapes/util.py")).toMatchObject({
      unchanged: false,
      content: expect.stringContaining("return x"),
    });
    expect(byPath.get("README.md")).toMatchObject({ unchanged: true, hash: known["README.md"]!.hash });
    expect(byPath.get("README.md")!.content).toBeDefined();
    const untouched = byPath.get("pyproj/shapes/geometry.py")!;
    expect(untouched.unchanged).toBe(true);
    expect(untouched.content).toBeUndefined();
  });

  it("does not follow directory symlinks, so a symlink loop terminates, and reports broken links as unreadable", () => {
    const dir = realpathSync(tmpDir("memcards-symlink-"));
    writeFileSync(join(dir, "real.py"), "def f():\n    pass\n");
    mkdirSync(join(dir, "pkg"));
    writeFileSync(join(dir, "pkg", "mod.py"), "X = 1\n");
    symlinkSync(".", join(dir, "loop"));
    symlinkSync("..", join(dir, "pkg", "up"));
    symlinkSync("b", join(dir, "a"));
    symlinkSync("a", join(dir, "b"));
    symlinkSync("missing-target", join(dir, "dangling"));
    symlinkSync("real.py", join(dir, "alias.py"));
    for (const useGit of [false, true]) {
      if (useGit) execFileSync("git", ["init", "-q", dir]);
      const result = scanRepo(dir, { useGit });
      expect(result.mode).toBe(useGit ? "git" : "walk");
      expect(result.files.map((f) => f.path)).toEqual(["alias.py", "pkg/mod.py", "real.py"]);
      expect(result.skipped.symlink).toBe(2);
      expect(result.skipped.unreadable).toBe(3);
    }
  });

  it("rejects a missing path and a file with AppErrors that name the fix", () => {
    const missing = join(tmpDir(), "nope");
    expect(() => scanRepo(missing)).toThrow(AppError);
    try {
      scanRepo(missing);
    } catch (err) {
      expect((err as AppError).code).toBe("NOT_FOUND");
      expect((err as AppError).message).toContain(missing);
    }
    const file = join(tmpDir(), "file.py");
    writeFileSync(file, "x = 1\n");
    try {
      scanRepo(file);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe("NOT_A_DIRECTORY");
      expect((err as AppError).message).toMatch(/not a directory/);
    }
  });

  it("applies extra exclude patterns like .memcardsignore", () => {
    const dir = copyPolyglot();
    const result = scanRepo(dir, { useGit: false, exclude: ["java/", "*.rb"] });
    const paths = result.files.map((f) => f.path);
    expect(paths.some((p) => p.startsWith("java/") || p.endsWith(".rb"))).toBe(false);
    expect(result.skipped.memcardsignore).toBeGreaterThanOrEqual(3);
  });
});
