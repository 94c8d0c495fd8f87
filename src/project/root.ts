// Project root resolution: --root/env, then the client's MCP roots, then git's top level, then the per-user store.
import { existsSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { z } from "zod";

import { AppError } from "../errors.js";
import { git } from "../git.js";
import { rootRefusal } from "./store.js";

export const RootSource = z.enum(["flag", "mcp-roots", "git", "user-store"]);
export type RootSource = z.infer<typeof RootSource>;

export const ProjectLocation = z.object({
  root: z.string(),
  source: RootSource,
  /** Identity of the project: its git common directory (shared by worktrees), else the root itself. */
  key: z.string(),
  gitTop: z.string().optional(),
  gitCommonDir: z.string().optional(),
  /** Database path used unless --db / MEMCARDS_DB says otherwise. */
  defaultDbPath: z.string(),
});
export type ProjectLocation = z.infer<typeof ProjectLocation>;

export interface RootInputs {
  /** --root or MEMCARDS_ROOT. */
  explicit?: string | undefined;
  /** `file://` URIs from the client's roots/list, in the client's order. */
  mcpRoots?: readonly string[] | undefined;
  cwd: string;
  /** The per-user store directory (~/.memcards). */
  userDir: string;
}

interface GitFacts {
  top: string;
  commonDir: string;
}

/** Asks git for the work tree's top level and common directory; undefined outside a repository or without git. */
export function gitFacts(dir: string): GitFacts | undefined {
  const out = git(dir, ["rev-parse", "--show-toplevel", "--git-common-dir"]);
  const [top, common] = (out ?? "").split("\n");
  if (!top || !common) return undefined;
  try {
    const commonAbs = isAbsolute(common) ? common : resolve(dir, common);
    return { top: realpathSync(top), commonDir: realpathSync(commonAbs) };
  } catch {
    return undefined;
  }
}

function fromFileUri(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

function asDirectory(path: string, what: string): string {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new AppError("NOT_FOUND", `${what} ${abs} does not exist. Pass an existing directory.`);
  if (!statSync(abs).isDirectory()) {
    throw new AppError("NOT_A_DIRECTORY", `${what} ${abs} is a file, not a directory. Pass its folder instead.`);
  }
  const real = realpathSync(abs);
  const why = rootRefusal(real);
  if (why) {
    throw new AppError(
      "SYSTEM_FOLDER",
      `${what} ${abs} cannot be a project root: ${why}. Pass the folder of one project (--root <project>).`,
    );
  }
  return real;
}

/** Where the database lives by default: beside the main checkout, so every worktree shares one store. */
function defaultDbFor(root: string, git: GitFacts | undefined): string {
  if (git && basename(git.commonDir) === ".git") return join(dirname(git.commonDir), ".memcards", "memcards.db");
  return join(root, ".memcards", "memcards.db");
}

/** The location of `root`; `known` is what git already said of a folder in it whose top `root` is (no second run). */
function located(root: string, source: RootSource, known?: GitFacts): ProjectLocation {
  const git = known ?? gitFacts(root);
  return {
    root,
    source,
    key: git?.commonDir ?? root,
    ...(git ? { gitTop: git.top, gitCommonDir: git.commonDir } : {}),
    defaultDbPath: defaultDbFor(root, git),
  };
}

/** Resolves the project root in the documented order. Throws a clear error for a bad explicit root. */
export function resolveProjectRoot(inputs: RootInputs): ProjectLocation {
  if (inputs.explicit)
    return located(asDirectory(inputs.explicit, "the project root (--root / MEMCARDS_ROOT)"), "flag");
  for (const uri of inputs.mcpRoots ?? []) {
    const path = fromFileUri(uri);
    // A client's root of `/` or a system folder is skipped, never taken as the project.
    if (path && existsSync(path) && statSync(path).isDirectory() && !rootRefusal(path))
      return located(realpathSync(path), "mcp-roots");
  }
  const git = existsSync(inputs.cwd) ? gitFacts(inputs.cwd) : undefined;
  if (git) return located(git.top, "git", git);
  const userDir = resolve(inputs.userDir);
  return {
    root: userDir,
    source: "user-store",
    key: "user-store",
    defaultDbPath: join(userDir, "memcards.db"),
  };
}

/** The error for work that needs a project (indexing, cards) when only the per-user store was found. */
export function noProject(userDir: string): AppError {
  return new AppError(
    "NO_PROJECT",
    `no project here: this folder is not inside a git repository and no --root was given, so memcards would use ` +
      `its per-user store in ${userDir}, which holds memory but is never indexed as a project. Run memcards inside ` +
      `your project's folder, or pass it: --root /path/to/project (or MEMCARDS_ROOT; MCP clients send it as a root).`,
  );
}
