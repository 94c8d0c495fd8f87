// A store is created only in a project's folder or the per-user folder: never in a system folder.
import { existsSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { storeRefusal } from "../../src/project/store.js";
import { runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

/** What is at `path` now: absent, or its kind and modification time. */
function snapshot(path: string): string {
  if (!existsSync(path)) return "absent";
  const st = statSync(path);
  return `${st.isDirectory() ? "dir" : "file"} ${st.mtimeMs}`;
}

describe("where a store may be created", () => {
  const userDir = join(realpathSync(tmpDir()), ".memcards");

  it("refuses system folders and what lies in them, allows projects and the per-user folder", () => {
    const refused = [
      "/.memcards",
      "/etc/.memcards",
      "/etc/ssh/.memcards",
      "/usr/.memcards",
      "/usr/lib/x/.memcards",
      "/var/.memcards",
      "/opt/.memcards",
      "/home/.memcards",
      "/tmp/.memcards",
      "/proc/self/.memcards",
      "/sys/.memcards",
      "/dev/.memcards",
      "/boot/.memcards",
      "/bin/.memcards",
      "/sbin/.memcards",
      "/lib64/.memcards",
      "/etc", // a --db file placed directly in /etc
      "/",
      "/usr/local/bin/.memcards",
      "/usr/local/lib/.memcards",
      "/usr/local/share/.memcards",
      "/usr/include/.memcards",
      "/var/log/.memcards",
      "/var/cache/.memcards",
      "/var/spool/.memcards",
      "/var/mail/.memcards",
      "/var/lib/dpkg/.memcards",
      "/var/backups",
      "/Library/LaunchDaemons/.memcards",
      "/private/var/db/.memcards",
      "/usr", // --db files placed directly in system folders
      "/var",
      "/home",
      "/opt",
    ];
    for (const dir of refused) expect(storeRefusal(dir, userDir), dir).toMatch(/system('s root)? folder/);
    const project = realpathSync(tmpDir());
    const allowed = [
      join(project, ".memcards"),
      project, // a --db file in a folder of the user's
      userDir,
      join(userDir, "stores", "x"),
      "/opt/app/.memcards",
      "/var/www/site/.memcards",
      "/var/lib/jenkins/workspace/app/.memcards", // a CI workspace
      "/tmp", // a --db file directly in a scratch folder
    ];
    for (const dir of allowed) expect(storeRefusal(dir, userDir), dir).toBeUndefined();
    // The per-user folder is the user's choice, wherever it is.
    expect(storeRefusal("/opt/.memcards", "/opt")).toBeUndefined();
  });

  it("memcards index /etc and status --root / stop with SYSTEM_FOLDER and create nothing there", () => {
    const home = tmpDir();
    const env = { HOME: home, MEMCARDS_HOME: join(home, ".memcards") };
    const before = [snapshot("/etc/.memcards"), snapshot("/.memcards")];
    const etc = runCli(["index", "/etc", "--lexical-only"], { env });
    expect(etc.code).toBe(1);
    expect(etc.stderr).toMatch(
      /^memcards: SYSTEM_FOLDER: .*\/etc cannot be a project root: it lies in the system folder \/etc\. Pass the folder of one project/m,
    );
    const slash = runCli(["status", "--root", "/"], { env });
    expect(slash.code).toBe(1);
    expect(slash.stderr).toMatch(
      /SYSTEM_FOLDER: .* \/ cannot be a project root: \/ is the system's root folder, not a project/,
    );
    expect([snapshot("/etc/.memcards"), snapshot("/.memcards")]).toEqual(before);
    // A normal project folder still gets its store.
    const project = tmpDir();
    mkdirSync(join(project, "src"));
    const ok = runCli(["index", project, "--lexical-only"], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(join(project, ".memcards", "memcards.db"))).toBe(true);
  });
});
