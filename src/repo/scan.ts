// Repository scan: the files git would track (git ls-files, or a .gitignore-aware walk), minus built-in skips.
import { createHash } from "node:crypto";
import { type Dirent, existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

import ignore, { type Ignore } from "ignore";
import { z } from "zod";

import { AppError } from "../errors.js";
import { git } from "../git.js";
import { readChecked, ReadRefused, type ReadRules } from "../project/files.js";
import { redact } from "../text/redact.js";
import { baseName, detectLanguage, extensionOf, LanguageId } from "./languages.js";

/** Why a path was left out of the scan. Counts are per entry: a pruned directory counts once. */
export const SkipReason = z.enum([
  "ignored",
  "memcardsignore",
  "vendored",
  "generated",
  "binary",
  "oversized",
  "symlink",
  "symlink-outside",
  "unreadable",
  "missing",
  "not-a-file",
  "hard-link",
  "secret-in-path",
]);
export type SkipReason = z.infer<typeof SkipReason>;

/**
 * A previously scanned file, as a caller stored it; lets a rescan skip reading unchanged files. `ino` and `ctimeMs`
 * (the inode and its change time) are left out by a caller that never recorded them: size and mtime then decide.
 */
export const KnownFile = z.object({
  size: z.number(),
  mtimeMs: z.number(),
  hash: z.string(),
  ino: z.number().optional(),
  ctimeMs: z.number().optional(),
});
export type KnownFile = z.infer<typeof KnownFile>;

/** The scan's default size cap: larger files are never read. */
export const MAX_SCAN_FILE_BYTES = 1024 * 1024;

export const ScanOptions = z.object({
  /** Files larger than this many bytes are skipped as `oversized`. */
  maxFileBytes: z.number().int().positive().default(MAX_SCAN_FILE_BYTES),
  /** Attach each read file's UTF-8 text as `content`. */
  withContent: z.boolean().default(false),
  /** Use `git ls-files` when the root is inside a git work tree (false forces the walk). */
  useGit: z.boolean().default(true),
  /** Extra gitignore-syntax patterns applied like `.memcardsignore`. */
  exclude: z.array(z.string()).default([]),
  /**
   * Files from an earlier scan, by repo path. When size, mtime, inode and change time still match (see `sameStamp`),
   * the file is not read: its stored hash is reused and it comes back with `unchanged: true` and no content.
   */
  known: z.record(z.string(), KnownFile).optional(),
  /** How many example paths to keep per skip reason. */
  examplesPerReason: z.number().int().min(0).default(5),
  /**
   * Only these repo paths (files, or folders standing for everything under them), e.g. what a watcher saw change:
   * git lists just them (ignored entries are not counted), and a walk keeps just them. Every other rule applies.
   */
  paths: z.array(z.string()).optional(),
  /** The `known` paths were checked for secrets by the current rules (`redactionRulesId`): not checked again. */
  knownPathsChecked: z.boolean().default(false),
});
export type ScanOptions = z.input<typeof ScanOptions>;

export const ScannedFile = z.object({
  /** Repo-relative path with forward slashes. */
  path: z.string(),
  absPath: z.string(),
  size: z.number(),
  mtimeMs: z.number(),
  /** The inode and its change time (ctime): a write that keeps size and mtime still moves the one or the other. */
  ino: z.number(),
  ctimeMs: z.number(),
  language: LanguageId.nullable(),
  /** sha1 of the raw bytes, hex. */
  hash: z.string(),
  /** True when `hash` equals the hash given for this path in `options.known`. */
  unchanged: z.boolean(),
  content: z.string().optional(),
});
export type ScannedFile = z.infer<typeof ScannedFile>;

export const ScanResult = z.object({
  /** Real path of the scanned directory. */
  root: z.string(),
  /** `git` when git listed the files, `walk` when the tree was walked with .gitignore rules. */
  mode: z.enum(["git", "walk"]),
  files: z.array(ScannedFile),
  skipped: z.record(SkipReason, z.number()),
  skippedExamples: z.partialRecord(SkipReason, z.array(z.string())),
});
export type ScanResult = z.infer<typeof ScanResult>;

/** Directory names never descended into: dependencies, build output, caches, VCS internals. */
const VENDORED_DIRS = new Set([
  "node_modules",
  "bower_components",
  "jspm_packages",
  "vendor",
  "third_party",
  "third-party",
  "dist",
  "build",
  "target",
  ".git",
  ".hg",
  ".svn",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".nox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".gradle",
  ".next",
  ".nuxt",
  ".turbo",
  ".parcel-cache",
  ".cache",
  ".memcards",
  ".idea",
  ".eggs",
]);

const LOCK_FILES = new Set([
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
  "bun.lock",
  "Cargo.lock",
  "Gemfile.lock",
  "poetry.lock",
  "Pipfile.lock",
  "uv.lock",
  "pdm.lock",
  "composer.lock",
  "go.sum",
  "mix.lock",
  "pubspec.lock",
  "Podfile.lock",
  "flake.lock",
]);

const BINARY_EXTENSIONS = new Set(
  (
    "png jpg jpeg gif bmp ico icns webp tif tiff psd svgz heic avif " +
    "pdf doc docx xls xlsx ppt pptx odt ods " +
    "zip gz tgz bz2 xz zst 7z rar tar jar war ear whl egg apk dmg iso deb rpm " +
    "exe dll so dylib a lib o obj ko bin class pyc pyo pyd wasm node " +
    "woff woff2 ttf otf eot " +
    "mp3 mp4 m4a wav ogg flac avi mov mkv webm " +
    "sqlite sqlite3 db parquet arrow feather npy npz pkl pickle h5 hdf5 onnx pt pth safetensors ckpt tflite"
  ).split(" "),
);

/** Markers that tools write at the top of generated files. */
const GENERATED_MARKER =
  /Code generated .{0,80}DO NOT EDIT|@generated\b|<auto-generated|Generated by the protocol buffer compiler|AUTO-GENERATED FILE|This file (?:is|was) (?:automatically|auto-)generated/i;

const BINARY_SNIFF_BYTES = 8000;
const GENERATED_SNIFF_BYTES = 2048;

interface Tally {
  counts: Record<SkipReason, number>;
  examples: Partial<Record<SkipReason, string[]>>;
  perReason: number;
}

function newTally(perReason: number): Tally {
  const counts = Object.fromEntries(SkipReason.options.map((r) => [r, 0])) as Record<SkipReason, number>;
  return { counts, examples: {}, perReason };
}

function skip(t: Tally, reason: SkipReason, path: string): void {
  t.counts[reason] += 1;
  const list = (t.examples[reason] ??= []);
  // Example paths are reported and stored: a secret in one is redacted like any stored text.
  if (list.length < t.perReason) list.push(redact(path));
}

/** Built-in reason to leave out a file by its name alone, or undefined. */
function nameSkip(path: string): SkipReason | undefined {
  const base = baseName(path);
  if (LOCK_FILES.has(base) || /\.min\.(js|css|mjs)$/.test(base) || base.endsWith(".map")) return "generated";
  if (BINARY_EXTENSIONS.has(extensionOf(base))) return "binary";
  return undefined;
}

function hasVendoredSegment(path: string): boolean {
  const segments = path.split("/");
  for (let i = 0; i < segments.length - 1; i++) if (VENDORED_DIRS.has(segments[i] ?? "")) return true;
  return false;
}

function sha1(buf: Buffer): string {
  return createHash("sha1").update(buf).digest("hex");
}

/** Hash of a file's content exactly as `scanRepo` computes it (sha1 of the raw bytes). */
export function contentHash(content: string | Buffer): string {
  return sha1(typeof content === "string" ? Buffer.from(content, "utf8") : content);
}

function loadIgnoreFile(file: string): Ignore | undefined {
  try {
    if (!existsSync(file)) return undefined;
    return ignore().add(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Lists files with git, relative to `root` (only those under `paths`, taken literally, when given); undefined when
 * root is not in a work tree or git is missing.
 */
function gitList(root: string, paths?: readonly string[]): { files: string[]; ignored: string[] } | undefined {
  const run = (args: string[]) => {
    const out = git(root, args, { trim: false, maxBuffer: 512 * 1024 * 1024, timeout: 120_000 });
    if (out === undefined) throw new Error(`git ${args[0]} failed`);
    return out;
  };
  try {
    if (paths) {
      // Outside a work tree ls-files fails: the caller walks instead.
      const listed = paths.length
        ? run(["--literal-pathspecs", "ls-files", "-z", "-c", "-o", "--exclude-standard", "--", ...paths])
        : "";
      return { files: [...new Set(listed.split("\0").filter(Boolean))], ignored: [] };
    }
    // Outside a work tree (or inside .git) ls-files fails: the caller walks instead.
    const files = run(["ls-files", "-z", "-c", "-o", "--exclude-standard"]).split("\0").filter(Boolean);
    let ignored: string[] = [];
    try {
      ignored = run(["ls-files", "-z", "-o", "-i", "--exclude-standard", "--directory"]).split("\0").filter(Boolean);
    } catch {
      // Counting ignored entries is informative only.
    }
    return { files: [...new Set(files)], ignored };
  } catch {
    return undefined;
  }
}

interface Candidate {
  path: string;
  absPath: string;
}

/** Walks the tree without following directory symlinks, applying nested .gitignore files. */
function walk(root: string, excluded: Ignore, tally: Tally): Candidate[] {
  const out: Candidate[] = [];
  const stack: Array<{ rel: string; rules: Array<{ base: string; ig: Ignore }> }> = [{ rel: "", rules: [] }];
  while (stack.length > 0) {
    const { rel, rules: parentRules } = stack.pop()!;
    const absDir = rel ? join(root, rel) : root;
    const own = loadIgnoreFile(join(absDir, ".gitignore"));
    const rules = own ? [...parentRules, { base: rel, ig: own }] : parentRules;
    let entries: Dirent[];
    try {
      entries = readdirSync(absDir, { withFileTypes: true });
    } catch {
      skip(tally, "unreadable", rel ? rel + "/" : ".");
      continue;
    }
    for (const e of entries) {
      if (e.name === ".git") continue; // the repository itself, or a worktree/submodule pointer file
      const path = rel ? `${rel}/${e.name}` : e.name;
      const abs = join(absDir, e.name);
      let isDir = e.isDirectory();
      if (e.isSymbolicLink()) {
        try {
          isDir = statSync(abs).isDirectory();
        } catch {
          skip(tally, "unreadable", path);
          continue;
        }
        if (isDir) {
          skip(tally, "symlink", path + "/");
          continue;
        }
      } else if (!isDir && !e.isFile()) {
        skip(tally, "not-a-file", path);
        continue;
      }
      if (isDir && VENDORED_DIRS.has(e.name)) {
        skip(tally, "vendored", path + "/");
        continue;
      }
      if (gitIgnored(rules, path, isDir)) {
        skip(tally, "ignored", isDir ? path + "/" : path);
        continue;
      }
      if (safeIgnores(excluded, isDir ? path + "/" : path)) {
        skip(tally, "memcardsignore", isDir ? path + "/" : path);
        continue;
      }
      if (isDir) stack.push({ rel: path, rules });
      else out.push({ path, absPath: abs });
    }
  }
  return out;
}

/** Applies .gitignore files from the deepest to the root; the first that decides wins (negations included). */
function gitIgnored(rules: Array<{ base: string; ig: Ignore }>, path: string, isDir: boolean): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const { base, ig } = rules[i]!;
    const rel = base ? path.slice(base.length + 1) : path;
    let r;
    try {
      r = ig.test(isDir ? rel + "/" : rel);
    } catch {
      continue; // a name the ignore package cannot express as a relative path
    }
    if (r.ignored) return true;
    if (r.unignored) return false;
  }
  return false;
}

function assertDirectory(root: string): string {
  const abs = resolve(root);
  if (!existsSync(abs))
    throw new AppError("NOT_FOUND", `Cannot scan ${abs}: it does not exist. Pass an existing directory.`);
  if (!statSync(abs).isDirectory()) {
    throw new AppError(
      "NOT_A_DIRECTORY",
      `Cannot scan ${abs}: it is a file, not a directory. Pass its folder instead.`,
    );
  }
  return realpathSync(abs);
}

/**
 * Lists the files of a repository that git would track, with language, size, mtime and content hash.
 * Inside a git work tree (the root may be any subdirectory) it asks `git ls-files`; elsewhere it walks the
 * tree with nested .gitignore files. A root `.memcardsignore` and built-in skips (vendored directories,
 * generated and lock files, binaries, files over `maxFileBytes`) apply in both modes; each skip is counted.
 * Never throws for a single bad file (it becomes a skip); throws NOT_FOUND / NOT_A_DIRECTORY for a bad root.
 */
export function scanRepo(root: string, options: ScanOptions = {}): ScanResult {
  // `known` holds one entry per indexed file: it is checked by its callers' types, not copied through the schema.
  const { known, ...rest } = options;
  const opts = { ...ScanOptions.parse(rest), known };
  const realRoot = assertDirectory(root);
  const tally = newTally(opts.examplesPerReason);
  const excluded = ignore().add(opts.exclude);
  const memcardsIgnore = loadIgnoreFile(join(realRoot, ".memcardsignore"));
  if (memcardsIgnore) excluded.add(memcardsIgnore);
  // No exclusion rules at all: no path is tested against an empty matcher.
  const excludes = memcardsIgnore !== undefined || opts.exclude.length > 0;

  const listed = opts.useGit ? gitList(realRoot, opts.paths) : undefined;
  let candidates: Candidate[];
  let mode: ScanResult["mode"] = "git";
  if (listed && (listed.files.length > 0 || opts.paths)) {
    candidates = [];
    // `--directory` collapses ignored directories to one entry ending in "/", so each counts once.
    for (const p of listed.ignored) skip(tally, hasVendoredSegment(p) ? "vendored" : "ignored", p);
    for (const path of listed.files) {
      if (hasVendoredSegment(path)) skip(tally, "vendored", path);
      else if (excludes && safeIgnores(excluded, path)) skip(tally, "memcardsignore", path);
      else candidates.push({ path, absPath: join(realRoot, path) });
    }
  } else {
    mode = "walk";
    candidates = walk(realRoot, excluded, tally);
    if (opts.paths) {
      const within = underPaths(opts.paths);
      candidates = candidates.filter((c) => within(c.path));
    }
  }

  const files: ScannedFile[] = [];
  const realDirs = new Map<string, RealDir>();
  for (const c of candidates) {
    const file = inspect(c, realRoot, opts, tally, realDirs);
    if (file) files.push(file);
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { root: realRoot, mode, files, skipped: tally.counts, skippedExamples: tally.examples };
}

/** Whether a repo path is one of `paths` or lies in a folder among them. */
export function underPaths(paths: readonly string[]): (path: string) => boolean {
  const set = new Set(paths.map((p) => p.replace(/\/+$/, "")));
  return (path) => {
    if (set.has(path)) return true;
    for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) if (set.has(path.slice(0, i))) return true;
    return false;
  };
}

function safeIgnores(ig: Ignore, path: string): boolean {
  try {
    return ig.ignores(path);
  } catch {
    return false;
  }
}

/** A folder's real path and whether it lies inside the project's real root: resolved once per folder and scan. */
interface RealDir {
  real: string;
  inside: boolean;
}

function realDir(dir: string, realRoot: string, cache: Map<string, RealDir>): RealDir {
  let d = cache.get(dir);
  if (d === undefined) {
    const real = realpathSync.native(dir);
    cache.set(dir, (d = { real, inside: insideDir(realRoot, real) }));
  }
  return d;
}

/** Stats, reads and classifies one candidate; returns undefined (and counts why) when it is skipped. */
function inspect(
  c: Candidate,
  realRoot: string,
  opts: z.output<typeof ScanOptions>,
  tally: Tally,
  realDirs: Map<string, RealDir>,
): ScannedFile | undefined {
  // A path that carries a secret (a token as a file name) is never indexed: nothing stores it, not even its name.
  // A path given as known was checked by the scan that indexed it, when that scan had the same rules.
  const known = opts.known?.[c.path];
  const checked = known !== undefined && opts.knownPathsChecked;
  const reason = !checked && redact(c.path) !== c.path ? "secret-in-path" : nameSkip(c.path);
  if (reason) {
    skip(tally, reason, c.path);
    return undefined;
  }
  let st;
  try {
    st = lstatSync(c.absPath);
  } catch (err) {
    // git lists tracked files that were deleted from the work tree.
    skip(tally, (err as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : "unreadable", c.path);
    return undefined;
  }
  // The real path, whether the file itself or a folder above it is a link (git keeps listing `sub/x.py` after
  // `sub` became a link): only what lies inside the project is ever read, and it is read at its real path.
  let real: string;
  let inside: boolean;
  try {
    if (st.isSymbolicLink()) {
      real = realpathSync(c.absPath);
      inside = insideDir(realRoot, real);
    } else {
      // A file that is no link lies where its folder really is, inside the root when its folder is: folders are
      // resolved and checked once each.
      const dir = dirname(c.absPath);
      const d = realDir(dir, realRoot, realDirs);
      real = d.real === dir ? c.absPath : join(d.real, basename(c.absPath));
      inside = d.inside;
    }
    if (real !== c.absPath) st = statSync(real);
  } catch {
    skip(tally, "unreadable", c.path); // dangling link or a link loop
    return undefined;
  }
  if (!inside) {
    skip(tally, "symlink-outside", c.path);
    return undefined;
  }
  if (st.isDirectory()) {
    // A symlink to a directory, or a submodule listed by git: never descended into.
    skip(tally, isLink(c.absPath) ? "symlink" : "not-a-file", c.path);
    return undefined;
  }
  if (!st.isFile()) {
    skip(tally, "not-a-file", c.path);
    return undefined;
  }
  if (st.size > opts.maxFileBytes) {
    skip(tally, "oversized", c.path);
    return undefined;
  }
  // Another name of this file may lie outside the project: a git checkout never makes one.
  if (st.nlink > 1) {
    skip(tally, "hard-link", c.path);
    return undefined;
  }
  if (known && sameStamp(known, st)) {
    return {
      path: c.path,
      absPath: c.absPath,
      size: st.size,
      mtimeMs: st.mtimeMs,
      ino: st.ino,
      ctimeMs: st.ctimeMs,
      language: detectLanguage(c.path),
      hash: known.hash,
      unchanged: true,
    };
  }
  // Read through one descriptor whose own path is checked: a file swapped for a link after the checks above is
  // never read.
  let buf: Buffer;
  try {
    const r = readChecked(real, insideRules(realRoot, opts.maxFileBytes));
    buf = r.data;
    st = r.stats;
  } catch (err) {
    skip(tally, err instanceof ReadRefused ? REFUSED[err.reason] : "unreadable", c.path);
    return undefined;
  }
  if (buf.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    skip(tally, "binary", c.path);
    return undefined;
  }
  const head = buf.subarray(0, GENERATED_SNIFF_BYTES).toString("utf8");
  if (GENERATED_MARKER.test(head)) {
    skip(tally, "generated", c.path);
    return undefined;
  }
  const hash = sha1(buf);
  const text = opts.withContent || extensionOf(c.path) === "h" ? buf.toString("utf8") : undefined;
  return {
    path: c.path,
    absPath: c.absPath,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ino: st.ino,
    ctimeMs: st.ctimeMs,
    language: detectLanguage(c.path, text),
    hash,
    unchanged: known?.hash === hash,
    ...(opts.withContent && text !== undefined ? { content: text } : {}),
  };
}

/**
 * Whether a file's stat is the one recorded with its hash: same size and mtime, and the same inode and change time
 * when those were recorded. A content rewritten in place under its old size and mtime (a tool that restores the
 * time) has a new change time, which no one can set back; one saved through a new file renamed over it (an editor's
 * atomic save, `cp -p`) has a new inode.
 */
function sameStamp(known: KnownFile, st: { size: number; mtimeMs: number; ino: number; ctimeMs: number }): boolean {
  return (
    known.size === st.size &&
    known.mtimeMs === st.mtimeMs &&
    (known.ino === undefined || known.ino === st.ino) &&
    (known.ctimeMs === undefined || known.ctimeMs === st.ctimeMs)
  );
}

/**
 * Reads one indexed file under the same rules as the scan: the path must resolve (links followed) to a regular
 * file inside the project's real root and be at most `maxBytes`. Opened non-blocking and checked again on the
 * open descriptor, so a FIFO or device swapped in after indexing is never waited on. Undefined when not read.
 */
export function readInsideRoot(realRoot: string, path: string, maxBytes = MAX_SCAN_FILE_BYTES): string | undefined {
  try {
    const abs = join(realRoot, path);
    if (!insideDir(realRoot, abs)) return undefined;
    return readChecked(abs, insideRules(realRoot, maxBytes)).data.toString("utf8");
  } catch {
    return undefined; // gone, unreadable, outside, or replaced by a link since the check
  }
}

/** `readInsideRoot`, with the hash of the bytes read (as `scanRepo` computes it): the content may differ from the scan's. */
export function readInsideRootHashed(
  realRoot: string,
  path: string,
  maxBytes = MAX_SCAN_FILE_BYTES,
): { text: string; hash: string } | undefined {
  try {
    const abs = join(realRoot, path);
    if (!insideDir(realRoot, abs)) return undefined;
    const data = readChecked(abs, insideRules(realRoot, maxBytes)).data;
    return { text: data.toString("utf8"), hash: sha1(data) };
  } catch {
    return undefined; // gone, unreadable, outside, or replaced by a link since the check
  }
}

/** The real path of a project root (itself when it cannot be resolved: then nothing inside reads). */
export function realRootOf(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return resolve(root);
  }
}

/** Re-reads are bounded too: a file swapped for a large one after the scan is not read whole. */
const MAX_REREAD_BYTES = 64 * 1024 * 1024;

/**
 * The text of a scanned file read again (a parse worker gets paths, not content): only when its bytes still hash to
 * what the scan read and checked, so a file replaced (by a link, or other content) since the scan is never parsed.
 */
export function rereadScanned(absPath: string, hash: string): string | undefined {
  try {
    const r = readChecked(absPath, { allow: () => undefined, maxBytes: MAX_REREAD_BYTES, singleLink: true });
    return sha1(r.data) === hash ? r.data.toString("utf8") : undefined;
  } catch {
    return undefined;
  }
}

/** The skip a refused read counts as. */
const REFUSED: Record<ReadRefused["reason"], SkipReason> = {
  "not-a-file": "not-a-file",
  "hard-link": "hard-link",
  oversized: "oversized",
  moved: "unreadable",
  outside: "symlink-outside",
};

/** Reading rules inside the project's real root: a regular file with one link, at most `maxBytes`. */
function insideRules(realRoot: string, maxBytes: number): ReadRules {
  return {
    allow: (p) => {
      if (!insideDir(realRoot, p)) throw new ReadRefused("outside", `${p} lies outside ${realRoot}`);
    },
    maxBytes,
    singleLink: true,
  };
}

function insideDir(dir: string, p: string): boolean {
  const r = relative(dir, p);
  return r === "" || (r !== ".." && !r.startsWith(`..${sep}`) && !isAbsolute(r));
}

function isLink(abs: string): boolean {
  try {
    return lstatSync(abs).isSymbolicLink();
  } catch {
    return false;
  }
}
