// What the resident hook worker keeps between calls (warm-stores.ts): a store kept open answers as a freshly opened one
// does, and anything that changed on disk since (the store replaced or swapped for a link, a new index run, a folder
// that became a repository of its own) is noticed on the next call.
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import { resolveConfig } from "../../src/config.js";
import { hookCommand } from "../../src/integrate/hook-command.js";
import { createWarmStores, type WarmStores } from "../../src/integrate/warm-stores.js";
import { cliPath, runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";
import { pollUntil } from "../helpers/wait.js";
import { POLYGLOT } from "../repo/fixture.js";

const kept: WarmStores[] = [];
afterEach(async () => {
  for (const s of kept.splice(0)) await s.closeAll();
});

/** An indexed git copy of the polyglot fixture with its own HOME, and hook calls run in this process. */
function project() {
  const root = join(tmpDir(), "repo");
  cpSync(POLYGLOT, root, { recursive: true });
  spawnSync("git", ["init", "-q", root]);
  const home = tmpDir();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    MEMCARDS_HOME: join(home, ".memcards"),
    MEMCARDS_HOOK_WORKER: "0",
  };
  delete env.MEMCARDS_DB;
  delete env.MEMCARDS_ROOT;
  const index = () => expect(runCli(["index", root, "--lexical-only"], { env }).code).toBe(0);
  index();
  const stores = createWarmStores(env);
  kept.push(stores);
  const call = (event: string, input: Record<string, unknown>, warm?: WarmStores) =>
    hookCommand(event, JSON.stringify({ cwd: root, session_id: "w1", hook_event_name: event, ...input }), {
      flags: {},
      env,
      cwd: root,
      cli: cliPath,
      ...(warm ? { stores: warm } : {}),
    });
  const config = () => resolveConfig({ root, logLevel: "silent" }, env);
  const location = () => stores.locate({ explicit: root, cwd: root, userDir: config().userDir });
  return { root, env, index, stores, call, config, location, db: join(root, ".memcards", "memcards.db") };
}

const PROMPT = { prompt: "Circle.area in pyproj/shapes/geometry.py returns a negative value" };

describe("stores a hook worker keeps warm", { timeout: 120_000 }, () => {
  it("answers every call as a freshly opened store does, from one open store", async () => {
    const p = project();
    const fresh = await p.call("UserPromptSubmit", PROMPT);
    expect(fresh).toMatch(/^# memcards: cards for this prompt/);
    expect(await p.call("UserPromptSubmit", PROMPT, p.stores)).toBe(fresh);
    const app = p.stores.open(p.config(), p.location());
    expect(await p.call("UserPromptSubmit", PROMPT, p.stores)).toBe(fresh);
    expect(p.stores.open(p.config(), p.location())).toBe(app);
    expect(app.db.open).toBe(true);
    // The calls were logged and the session recorded as a hook process records them.
    const log = readFileSync(join(p.root, ".memcards", "hooks.log"), "utf8")
      .trim()
      .split("\n");
    expect(log.filter((l) => / UserPromptSubmit w1 injected \d+ cards?/.test(l))).toHaveLength(3);
  });

  it("keeps its card ranker until an index run, then ranks the new index", async () => {
    const p = project();
    await p.call("UserPromptSubmit", PROMPT, p.stores);
    const app = p.stores.open(p.config(), p.location());
    const ranker = p.stores.ranker(app);
    expect(p.stores.ranker(app)).toBe(ranker);
    const ask = { prompt: "quasarFluxCapacitor overflows on the third call" };
    expect(await p.call("UserPromptSubmit", ask, p.stores)).not.toContain("quasarFluxCapacitor");
    writeFileSync(
      join(p.root, "flux.py"),
      "def quasarFluxCapacitor(n):\n    # overflows on the third call\n    return n * 3\n",
    );
    p.index();
    expect(p.stores.ranker(app)).not.toBe(ranker);
    const after = await p.call("UserPromptSubmit", ask, p.stores);
    expect(after).toContain("quasarFluxCapacitor");
    expect(after).toBe(await p.call("UserPromptSubmit", ask));
  });

  it("opens the store afresh when it was deleted and built again", async () => {
    const p = project();
    await p.call("UserPromptSubmit", PROMPT, p.stores);
    const first = p.stores.open(p.config(), p.location());
    rmSync(join(p.root, ".memcards"), { recursive: true, force: true });
    p.index();
    const second = p.stores.open(p.config(), p.location());
    expect(second).not.toBe(first);
    expect(await p.call("UserPromptSubmit", PROMPT, p.stores)).toBe(await p.call("UserPromptSubmit", PROMPT));
  });

  it.runIf(process.platform === "linux")(
    "lets go of a store deleted from disk at the next call, so its text leaves the disk",
    async () => {
      const p = project();
      await p.call("UserPromptSubmit", PROMPT, p.stores);
      const store = realpathSync(p.db);
      // Descriptors of this process on the store, its log or its shared memory (a deleted one reads "… (deleted)").
      const held = () =>
        readdirSync("/proc/self/fd").filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`).startsWith(store);
          } catch {
            return false;
          }
        }).length;
      expect(held()).toBeGreaterThan(0);
      rmSync(join(p.root, ".memcards"), { recursive: true, force: true });
      // The next hook in that folder finds no store (nothing to answer), and the deleted one is closed.
      expect(await p.call("UserPromptSubmit", PROMPT, p.stores)).toBe("");
      expect(await pollUntil(held, (n) => n === 0)).toBe(0);
    },
  );

  it("refuses a store whose log a pull brought in from the repository, as opening it would", async () => {
    const p = project();
    expect(await p.call("UserPromptSubmit", PROMPT, p.stores)).toMatch(/^# memcards: cards/);
    // Someone else's write-ahead log, committed and checked out beside the store (git writes a new file there).
    const theirs = join(p.root, "theirs.db-wal");
    writeFileSync(theirs, readFileSync(`${p.db}-wal`));
    renameSync(theirs, `${p.db}-wal`);
    expect(spawnSync("git", ["-C", p.root, "add", "-f", ".memcards/memcards.db-wal"]).status).toBe(0);
    expect(await p.call("UserPromptSubmit", PROMPT)).toBe("");
    expect(await p.call("UserPromptSubmit", PROMPT, p.stores)).toBe("");
    const log = readFileSync(join(p.root, ".memcards", "hooks.log"), "utf8");
    expect(log.match(/STORE_UNTRUSTED/g)).toHaveLength(2);
  });

  it.runIf(process.platform === "linux")(
    "keeps only the stores it served last open, and opens a closed one again when asked",
    async () => {
      const a = project();
      const b = project();
      const stores = createWarmStores(a.env, 1);
      kept.push(stores);
      const held = (db: string) => {
        const store = realpathSync(db);
        return readdirSync("/proc/self/fd").some((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`).startsWith(store);
          } catch {
            return false;
          }
        });
      };
      const first = await a.call("UserPromptSubmit", PROMPT, stores);
      expect(first).toMatch(/^# memcards: cards/);
      expect(held(a.db)).toBe(true);
      expect(await b.call("UserPromptSubmit", PROMPT, stores)).toMatch(/^# memcards: cards/);
      expect(held(b.db)).toBe(true);
      expect(
        await pollUntil(
          () => held(a.db),
          (h) => !h,
        ),
      ).toBe(false);
      expect(await a.call("UserPromptSubmit", PROMPT, stores)).toBe(first);
    },
  );

  it("refuses a store swapped for a link, as opening it would", async () => {
    const p = project();
    await p.call("UserPromptSubmit", PROMPT, p.stores);
    const elsewhere = join(tmpDir(), "other.db");
    renameSync(p.db, elsewhere);
    symlinkSync(elsewhere, p.db);
    expect(() => p.stores.open(p.config(), p.location())).toThrow(/UNSAFE_FILE|refusing to use/);
    // The hook itself answers nothing and says why in the log.
    expect(await p.call("UserPromptSubmit", PROMPT, p.stores)).toBe("");
  });

  it("finds the project again when a folder under the root becomes a repository of its own", () => {
    const p = project();
    const sub = join(p.root, "pkg");
    mkdirSync(sub, { recursive: true });
    const userDir = p.config().userDir;
    const before = p.stores.locate({ cwd: sub, userDir });
    expect(before.root).toBe(p.location().root);
    expect(p.stores.locate({ cwd: sub, userDir })).toBe(before);
    spawnSync("git", ["init", "-q", sub]);
    const after = p.stores.locate({ cwd: sub, userDir });
    expect(after.root).not.toBe(before.root);
    expect(after.root.endsWith("pkg")).toBe(true);
    // And back: the inner repository removed, the outer one answers again.
    rmSync(join(sub, ".git"), { recursive: true, force: true });
    expect(p.stores.locate({ cwd: sub, userDir }).root).toBe(before.root);
  });

  it("finds the project again when a worktree's folder now holds a worktree of another repository", () => {
    const p = project();
    const userDir = p.config().userDir;
    const git = (dir: string, ...args: string[]) =>
      expect(
        spawnSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", ...args], { encoding: "utf8" })
          .status,
      ).toBe(0);
    const other = join(tmpDir(), "other");
    cpSync(POLYGLOT, other, { recursive: true });
    for (const repo of [p.root, other]) {
      if (repo === other) git(tmpDir(), "init", "-q", other);
      git(repo, "add", "-A");
      git(repo, "commit", "-qm", "x");
    }
    const tree = join(tmpDir(), "tree");
    git(p.root, "worktree", "add", "-q", "--detach", tree);
    const before = p.stores.locate({ explicit: tree, cwd: tree, userDir });
    expect(before.gitCommonDir).toBe(join(realpathSync(p.root), ".git"));
    // The same folder, now a worktree of the other repository: its store is the other one's.
    git(p.root, "worktree", "remove", "--force", tree);
    git(other, "worktree", "add", "-q", "--detach", tree);
    const after = p.stores.locate({ explicit: tree, cwd: tree, userDir });
    expect(after.gitCommonDir).toBe(join(realpathSync(other), ".git"));
    expect(after.defaultDbPath).toBe(join(realpathSync(other), ".memcards", "memcards.db"));
  });
});
