// Access decided by PostgreSQL against a real server: a role per member, projects granted by a team admin,
// row-level security by project. A crafted remote that normalizes to another project's key gets nothing; a
// member's role cannot read, change or delete another project's rows; forget for all leaves no text in the
// table's file once an admin has vacuumed it.
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { recordMemory } from "../../src/session/memory.js";
import { migrateTeam } from "../../src/storage/team/migrate.js";
import { cachedUnits } from "../../src/storage/team/outbox.js";
import { normalizeRemote } from "../../src/team/identity.js";
import {
  forgetForTeam,
  grantTeam,
  initTeam,
  pullTeam,
  pushTeam,
  searchTeam,
  type TeamDeps,
  teamStatus,
  vacuumTeam,
} from "../../src/team/service.js";
import { repoRoot, runCli } from "../helpers/cli.js";
import { createPgServer, type PgServer, postgresUnavailable } from "../helpers/postgres.js";
import { tmpDir } from "../helpers/tmp.js";
import { developer } from "./helpers.js";

const skip = postgresUnavailable();

let server: PgServer;
beforeAll(async () => {
  if (skip) throw new Error(`PostgreSQL unavailable: ${skip}`);
  server = await createPgServer();
  server.start();
}, 90_000);
afterAll(() => {
  server?.stop();
  server?.destroy();
}, 60_000);

const ALPHA = normalizeRemote("git@github.com:acme/alpha.git");
const BETA = normalizeRemote("https://github.com/acme/beta");

const roleUrl = (role: string, password: string) => {
  const u = new URL(server.url);
  u.username = role;
  u.password = password;
  return u.toString();
};

/** A developer's clone of `key` connecting with `url`. */
function clone(url: string, author: string, key: string): TeamDeps {
  return { ...developer(url, author), projectKey: key };
}

async function as<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Whether `needle` is in the bytes of a relation's main file (after a checkpoint wrote every page). */
async function inFileOf(relation: string, needle: string): Promise<boolean> {
  const path = await as(server.url, async (c) => {
    await c.query("CHECKPOINT");
    const r = await c.query<{ dir: string; file: string }>(
      "SELECT current_setting('data_directory') AS dir, pg_relation_filepath($1) AS file",
      [relation],
    );
    return join(r.rows[0]!.dir, r.rows[0]!.file);
  });
  return readFileSync(path).includes(Buffer.from(needle));
}

describe("team access on PostgreSQL's own mechanisms", () => {
  it("the server decides what each member's role may read, change and delete", async () => {
    const admin = { url: server.url, projectKey: ALPHA };
    await initTeam(clone(server.url, "admin", ALPHA));
    await initTeam(clone(server.url, "admin", BETA));
    const a = await grantTeam(admin, "alice", { password: "alice-pw-1" });
    expect(a).toMatchObject({ created: true, changed: true, projects: [ALPHA] });
    await grantTeam(admin, "bob", { project: BETA, password: "bob-pw-1" });

    const alice = clone(roleUrl("alice", "alice-pw-1"), "alice", ALPHA);
    const bob = clone(roleUrl("bob", "bob-pw-1"), "bob", BETA);
    await initTeam(alice);
    await initTeam(bob);
    recordMemory(alice.scope, { category: "rule", text: "Alpha keeps the launch codename quokkaventure internal." });
    recordMemory(bob.scope, { category: "rule", text: "Beta ships from the release branch only." });
    expect((await pushTeam(alice)).sent).toBe(1);
    expect((await pushTeam(bob)).sent).toBe(1);

    // Bob's clone with a crafted remote that normalizes to alpha's key: the server gives it nothing.
    const crafted = clone(roleUrl("bob", "bob-pw-1"), "bob", normalizeRemote("https://x:y@GITHUB.com/Acme/Alpha.git/"));
    expect(crafted.projectKey).toBe(ALPHA);
    await expect(pullTeam(crafted)).rejects.toMatchObject({ code: "TEAM_NOT_GRANTED" });
    expect(cachedUnits(crafted.scope.db, crafted.scope.projectId)).toHaveLength(0);
    await expect(searchTeam(crafted, "launch codename quokkaventure")).rejects.toMatchObject({
      code: "TEAM_NOT_GRANTED",
    });
    await expect(initTeam(crafted)).rejects.toMatchObject({ code: "TEAM_NOT_GRANTED" });
    recordMemory(crafted.scope, { category: "rule", text: "Injected into alpha by a stranger." });
    await expect(pushTeam(crafted)).rejects.toMatchObject({ code: "TEAM_NOT_GRANTED" });
    expect((await teamStatus(bob)).access).toEqual({ role: "member", projects: [BETA] });
    await expect(teamStatus(crafted)).rejects.toThrow(
      /not granted project github\.com\/acme\/alpha.*granted to your role: github\.com\/acme\/beta/,
    );
    // A member cannot grant itself anything, nor vacuum.
    await expect(grantTeam({ url: roleUrl("bob", "bob-pw-1"), projectKey: ALPHA }, "bob")).rejects.toMatchObject({
      code: "TEAM_NOT_GRANTED",
    });

    // Bob's role, speaking SQL directly: only beta's rows exist for it.
    const alphaId = await as(server.url, async (c) =>
      Number((await c.query<{ id: string }>("SELECT id FROM team_projects WHERE key = $1", [ALPHA])).rows[0]!.id),
    );
    await as(roleUrl("bob", "bob-pw-1"), async (c) => {
      const texts = (await c.query<{ text: string }>("SELECT text FROM team_units")).rows.map((r) => r.text);
      expect(texts).toEqual(["Beta ships from the release branch only."]);
      expect((await c.query("SELECT * FROM team_units WHERE project_id = $1", [alphaId])).rowCount).toBe(0);
      expect((await c.query("SELECT key FROM team_projects")).rows).toEqual([{ key: BETA }]);
      expect((await c.query("DELETE FROM team_units WHERE project_id = $1", [alphaId])).rowCount).toBe(0);
      expect((await c.query("UPDATE team_units SET text = 'x' WHERE project_id = $1", [alphaId])).rowCount).toBe(0);
      expect((await c.query("SELECT * FROM team_history WHERE project_id = $1", [alphaId])).rowCount).toBe(0);
      await expect(
        c.query(
          `INSERT INTO team_units (uid, project_id, category, text, merge_key, confidence, author, machine, created_at)
           VALUES ('00000000-0000-0000-0000-000000000001', $1, 'rule', 'forged', 'k', 1, 'bob', 'm', now())`,
          [alphaId],
        ),
      ).rejects.toThrow(/row-level security/);
      await expect(
        c.query("INSERT INTO team_grants (project_id, member) VALUES ($1, 'bob')", [alphaId]),
      ).rejects.toThrow(/permission denied/);
      await expect(c.query("INSERT INTO team_projects (key) VALUES ('name:new')")).rejects.toThrow(
        /permission denied|row-level security/,
      );
    });
    const alphaRows = await as(server.url, (c) =>
      c.query<{ text: string }>("SELECT text FROM team_units WHERE project_id = $1", [alphaId]),
    );
    expect(alphaRows.rows.map((r) => r.text)).toEqual(["Alpha keeps the launch codename quokkaventure internal."]);

    // Granted by the admin, the same clone reads alpha; revoked, it reads nothing again.
    await grantTeam(admin, "bob", { project: ALPHA });
    expect((await pullTeam(crafted)).units).toBe(1);
    const revoked = await grantTeam(admin, "bob", { project: ALPHA, revoke: true });
    expect(revoked).toMatchObject({ changed: true, projects: [BETA] });
    await expect(pullTeam(crafted)).rejects.toMatchObject({ code: "TEAM_NOT_GRANTED" });
  }, 60_000);

  it("forget for all deletes the row, and an admin's vacuum takes its text out of the table's file", async () => {
    const key = normalizeRemote("git@github.com:acme/gamma.git");
    await initTeam(clone(server.url, "admin", key));
    await grantTeam({ url: server.url, projectKey: key }, "carol", { password: "carol-pw-1" });
    const carol = clone(roleUrl("carol", "carol-pw-1"), "carol", key);
    await initTeam(carol);
    recordMemory(carol.scope, { category: "learning", text: "The staging password hint is zanzibarcanary." });
    await pushTeam(carol);
    const uid = (await searchTeam(carol, "staging password hint")).hits[0]!.uid;

    const forgot = await forgetForTeam(carol, uid);
    expect(forgot).toMatchObject({ sent: true, vacuumed: false });
    expect(forgot.remains).toMatch(/memcards team vacuum/);
    expect(forgot.remains).toMatch(/WAL/);
    expect(await as(server.url, (c) => c.query("SELECT 1 FROM team_units WHERE uid = $1", [uid]))).toMatchObject({
      rowCount: 0,
    });
    // Deleted is not gone: the old row version is still in the heap file until the admin vacuums.
    expect(await inFileOf("team_units", "zanzibarcanary")).toBe(true);
    await expect(vacuumTeam({ url: roleUrl("carol", "carol-pw-1") })).rejects.toMatchObject({
      code: "TEAM_NOT_GRANTED",
    });
    const v = await vacuumTeam({ url: server.url });
    expect(v.vacuumed).toBe(true);
    expect(v.remains).toMatch(/backups/);
    expect(await inFileOf("team_units", "zanzibarcanary")).toBe(false);
    expect(await inFileOf("team_units_tsv", "zanzibarcanari")).toBe(false);

    // An admin's own forget vacuums at once.
    const admin = clone(server.url, "admin", key);
    await initTeam(admin);
    recordMemory(admin.scope, { category: "learning", text: "The backup bucket is named okapicanary." });
    await pushTeam(admin);
    const uid2 = (await searchTeam(admin, "backup bucket named")).hits[0]!.uid;
    const r = await forgetForTeam(admin, uid2);
    expect(r).toMatchObject({ sent: true, vacuumed: true });
    expect(await inFileOf("team_units", "okapicanary")).toBe(false);
  }, 60_000);

  it("memcards team grant and team vacuum from the command line", () => {
    const env = {
      MEMCARDS_HOME: tmpDir(),
      MEMCARDS_TEAM_URL: server.url,
      MEMCARDS_TEAM_ROLE_PASSWORD: "dave-pw-1",
    };
    const cwd = tmpDir();
    const granted = runCli(["team", "grant", "dave", "--project", "git@github.com:acme/delta.git"], { env, cwd });
    expect(granted.stderr).toBe("");
    expect(granted.stdout).toContain(
      "dave (new role): granted github.com/acme/delta; projects now: github.com/acme/delta",
    );
    const again = runCli(["team", "grant", "dave", "--project", "github.com/acme/delta", "--json"], { env, cwd });
    expect(JSON.parse(again.stdout)).toMatchObject({ created: false, changed: false });
    const member = runCli(["team", "grant", "eve", "--project", "name:x"], {
      env: { ...env, MEMCARDS_TEAM_URL: roleUrl("dave", "dave-pw-1") },
      cwd,
    });
    expect(member.code).toBe(1);
    expect(member.stderr).toMatch(/TEAM_NOT_GRANTED: only a team admin/);
    expect(member.stderr).not.toContain("dave-pw-1");
    const vacuum = runCli(["team", "vacuum"], { env, cwd });
    expect(vacuum.code).toBe(0);
    expect(vacuum.stdout).toMatch(/VACUUM FULL.*WAL/s);
  }, 60_000);

  it("upgrading a store made before row-level security: earlier member roles see nothing until granted", async () => {
    await as(server.url, (c) => c.query("CREATE DATABASE upgraded"));
    const dbUrl = (u: string) => {
      const x = new URL(u);
      x.pathname = "/upgraded";
      return x.toString();
    };
    // The store as the first release made it: migration 0001 only, a member role with that release's grants.
    const first = join(tmpDir(), "migrations");
    mkdirSync(first);
    copyFileSync(join(repoRoot, "src/storage/team/migrations/0001_team.sql"), join(first, "0001_team.sql"));
    const key = normalizeRemote("git@github.com:acme/old.git");
    await as(dbUrl(server.url), async (c) => {
      expect((await migrateTeam(c, first)).version).toBe(1);
      await c.query("CREATE ROLE oldmember LOGIN PASSWORD 'old-pw-1'");
      await c.query("GRANT SELECT, INSERT, UPDATE ON team_projects TO oldmember");
      await c.query("GRANT SELECT, INSERT, UPDATE, DELETE ON team_units TO oldmember");
      await c.query("GRANT SELECT, INSERT ON team_history, team_forgotten TO oldmember");
      await c.query("GRANT SELECT ON team_schema_migrations TO oldmember");
      await c.query("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO oldmember");
    });
    const admin = clone(dbUrl(server.url), "admin", key);
    const member = clone(dbUrl(roleUrl("oldmember", "old-pw-1")), "old", key);
    await initTeam(admin); // applies 0002
    recordMemory(admin.scope, { category: "rule", text: "Old projects keep their changelog current." });
    await pushTeam(admin);
    await expect(pullTeam(member)).rejects.toMatchObject({ code: "TEAM_NOT_GRANTED" });
    await as(dbUrl(roleUrl("oldmember", "old-pw-1")), async (c) => {
      expect((await c.query("SELECT * FROM team_units")).rowCount).toBe(0);
      await expect(c.query("INSERT INTO team_projects (key) VALUES ('name:mine')")).rejects.toThrow(
        /row-level security/,
      );
    });
    await grantTeam({ url: dbUrl(server.url), projectKey: key }, "oldmember");
    expect((await pullTeam(member)).units).toBe(1);
  }, 60_000);

  it("a forget while an older transaction is open does not claim the text left the table's file", async () => {
    const key = "name:epsilon";
    const admin = clone(server.url, "admin", key);
    await initTeam(admin);
    recordMemory(admin.scope, { category: "learning", text: "The old vault is called ibexcanary." });
    await pushTeam(admin);
    const uid = (await searchTeam(admin, "old vault called")).hits[0]!.uid;
    // Another connection's snapshot, taken before the forget (no lock on the units table).
    const held = new pg.Client({ connectionString: server.url });
    await held.connect();
    try {
      await held.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
      await held.query("SELECT 1");
      const r = await forgetForTeam(admin, uid);
      expect(r).toMatchObject({ sent: true, vacuumed: true });
      // VACUUM FULL keeps a row version an open snapshot may still read: the text is still in the file.
      expect(await inFileOf("team_units", "ibexcanary")).toBe(true);
      expect(r.remains).not.toMatch(/so the text is gone/);
      expect(r.remains).toMatch(/memcards team vacuum/);
    } finally {
      await held.query("ROLLBACK").catch(() => undefined);
      await held.end();
    }
    await vacuumTeam({ url: server.url });
    expect(await inFileOf("team_units", "ibexcanary")).toBe(false);
  }, 60_000);

  it("a unit id another project's member records as forgotten does not stop this project's forget", async () => {
    const GAMMA = "name:gamma";
    const DELTA = "name:delta";
    const admin = clone(server.url, "admin", GAMMA);
    const reader = clone(server.url, "reader", GAMMA);
    await initTeam(admin);
    await initTeam(clone(server.url, "admin", DELTA));
    await grantTeam({ url: server.url, projectKey: DELTA }, "dave", { password: "dave-pw-1" });
    recordMemory(admin.scope, { category: "rule", text: "Gamma rotates its signing keys every quarter." });
    await pushTeam(admin);
    await pullTeam(reader);
    const [unit] = cachedUnits(reader.scope.db, reader.scope.projectId);
    expect(unit).toBeDefined();
    // Dave (delta only; say he once read gamma) records gamma's unit id as forgotten in his own project.
    const deltaId = await as(server.url, async (c) =>
      Number((await c.query<{ id: string }>("SELECT id FROM team_projects WHERE key = $1", [DELTA])).rows[0]!.id),
    );
    await as(roleUrl("dave", "dave-pw-1"), (c) =>
      c.query("INSERT INTO team_forgotten (project_id, uid, forgotten_by, machine) VALUES ($1, $2, 'dave', 'm')", [
        deltaId,
        unit!.uid,
      ]),
    );
    // Gamma forgets it for everyone: gamma's record is kept, and gamma's other clones drop their copy.
    expect((await forgetForTeam(admin, unit!.uid)).sent).toBe(true);
    expect((await pullTeam(reader)).forgotten).toBeGreaterThan(0);
    expect(cachedUnits(reader.scope.db, reader.scope.projectId).map((u) => u.uid)).not.toContain(unit!.uid);
  }, 60_000);

  it("a grant never turns an admin's role into a member's (it would lose superuser)", async () => {
    const admin = { url: server.url, projectKey: ALPHA };
    await initTeam(clone(server.url, "admin", ALPHA));
    const self = decodeURIComponent(new URL(server.url).username);
    await expect(grantTeam(admin, self, { password: "demoted-pw-1" })).rejects.toMatchObject({ code: "BAD_INPUT" });
    await expect(grantTeam(admin, self)).rejects.toMatchObject({ code: "BAD_INPUT" });
    await as(server.url, async (c) => {
      const r = await c.query<{ rolsuper: boolean }>("SELECT rolsuper FROM pg_roles WHERE rolname = $1", [self]);
      expect(r.rows[0]?.rolsuper).toBe(true);
      expect((await c.query("SELECT 1 FROM team_grants WHERE member = $1", [self])).rowCount).toBe(0);
    });
  }, 60_000);

  it("a member name PostgreSQL would shorten is refused, so a grant never names a role that cannot log in", async () => {
    const admin = { url: server.url, projectKey: ALPHA };
    await initTeam(clone(server.url, "admin", ALPHA));
    // 40 characters, 80 bytes: PostgreSQL keeps names to 63 bytes and would create a shorter role than granted.
    const long = "é".repeat(40);
    await expect(grantTeam(admin, long, { password: "long-pw-1" })).rejects.toMatchObject({ code: "BAD_INPUT" });
    await expect(grantTeam(admin, " carol", { password: "carol-pw-1" })).rejects.toMatchObject({ code: "BAD_INPUT" });
    await as(server.url, async (c) => {
      expect((await c.query("SELECT 1 FROM pg_roles WHERE rolname LIKE 'éé%' OR rolname = ' carol'")).rowCount).toBe(0);
      expect((await c.query("SELECT 1 FROM team_grants WHERE member LIKE 'éé%'")).rowCount).toBe(0);
    });
  }, 60_000);
});
