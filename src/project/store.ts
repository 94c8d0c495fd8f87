// Where a store may be created: in a project's folder or the per-user folder, never in a system folder.
import { basename, dirname, resolve } from "node:path";

import { AppError } from "../errors.js";
import { inside, realish } from "./confine.js";

/** Folders that hold the system, never a project: no store inside them. */
const SYSTEM_TREES = [
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/proc",
  "/run",
  "/sbin",
  "/sys",
  "/usr/bin",
  "/usr/lib",
  "/usr/lib32",
  "/usr/lib64",
  "/usr/libexec",
  "/usr/sbin",
  "/usr/share",
  "/usr/include",
  "/usr/local/bin",
  "/usr/local/sbin",
  "/usr/local/lib",
  "/usr/local/libexec",
  "/usr/local/share",
  "/usr/local/include",
  "/usr/local/etc",
  "/var/log",
  "/var/cache",
  "/var/spool",
  "/var/mail",
  "/var/backups",
  "/var/db",
  "/var/lib/dpkg",
  "/var/lib/apt",
  "/var/lib/rpm",
  "/var/lib/systemd",
  "/System",
  "/Library",
  "/private/etc",
  "/private/var/db",
  "/private/var/log",
];

/** Scratch folders: a store file may sit directly in one (`--db /tmp/x.db`), but no project is one. */
const SCRATCH = ["/tmp", "/var/tmp", "/private/tmp"];

/** Folders whose subfolders may be projects (/opt/app, /var/www/site) but which are no project themselves. */
const SYSTEM_TOPS = [
  "/",
  "/home",
  "/media",
  "/mnt",
  "/opt",
  "/root",
  "/srv",
  "/tmp",
  "/usr",
  "/usr/local",
  "/usr/src",
  "/var",
  "/var/lib",
  "/var/tmp",
  "/snap",
  "/Applications",
  "/Library",
  "/Users",
  "/Volumes",
  "/private",
  "/private/tmp",
  "/private/var",
];

/** Why a store folder may not be created at `dir`, or undefined when it may. */
export function storeRefusal(dir: string, userDir: string): string | undefined {
  const abs = resolve(dir);
  const real = realish(abs).real;
  if (inside(realish(resolve(userDir)).real, real)) return undefined;
  if (real === "/") return "/ is the system's root folder, not a project";
  const tree = SYSTEM_TREES.find((t) => inside(t, real));
  if (tree) return `it lies in the system folder ${tree}`;
  // A default store, <root>/.memcards, for a root that is a system folder rather than a project.
  const root = dirname(real);
  if (basename(real) === ".memcards" && SYSTEM_TOPS.includes(root)) return `${root} is a system folder, not a project`;
  // A store file placed directly in a system folder (`--db /usr/x.db`).
  if (SYSTEM_TOPS.includes(real) && !SCRATCH.includes(real)) return `${real} is a system folder`;
  return undefined;
}

/** Throws SYSTEM_FOLDER when a store may not be created in `dir` (the database's folder). */
export function checkStoreDir(dir: string, userDir: string): void {
  const why = storeRefusal(dir, userDir);
  if (!why) return;
  throw new AppError(
    "SYSTEM_FOLDER",
    `cannot create a store in ${resolve(dir)}: ${why}. memcards keeps stores only in a project's folder or the per-user folder ${userDir}; run it in a project (or pass --root <project>), or pass --db <file> in a folder of yours.`,
  );
}

/**
 * Why `dir` (a real path) may not be a project root, or undefined when it may: `/`, the system's folders and what
 * lies in them, and the folders that only hold projects (`/home`, `/tmp`, `/opt`, …). A root widens what memcards
 * reads and says where it writes, so none of these ever is one, whether named by --root, MEMCARDS_ROOT, a client's
 * root or a hook's `cwd`.
 */
export function rootRefusal(dir: string): string | undefined {
  const real = realish(resolve(dir)).real;
  if (real === "/") return "/ is the system's root folder, not a project";
  const tree = SYSTEM_TREES.find((t) => inside(t, real));
  if (tree) return `it lies in the system folder ${tree}`;
  if (SYSTEM_TOPS.includes(real)) return `${real} is a system folder, not a project`;
  return undefined;
}
