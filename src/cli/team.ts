// `memcards team init|grant|status|push|pull|search|forget|vacuum`: share this project's memory through a PostgreSQL team store.
import type { Command } from "commander";

import type { App } from "../app.js";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import type { TeamDeps } from "../team/service.js";
import { count } from "../text/plural.js";
import { configFrom, int, print, withApp } from "./shared.js";

interface TeamFlags {
  teamUrl?: string;
  teamProject?: string;
}

function need(team: TeamDeps | undefined): TeamDeps {
  if (!team)
    throw new AppError(
      "TEAM_NOT_CONFIGURED",
      "no team store: set MEMCARDS_TEAM_URL=postgres://user@host:5432/db (the password from PGPASSWORD or ~/.pgpass) or pass --team-url",
    );
  return team;
}

/** The settings of a team command: its --team-url and --team-project over the environment's. */
function teamConfig(cmd: Command): Config {
  const f = cmd.optsWithGlobals<TeamFlags>();
  return configFrom(cmd, { teamUrl: f.teamUrl, teamProject: f.teamProject });
}

/** Runs `fn` with the project's app and what reaching its team takes; TEAM_NOT_CONFIGURED without a team URL. */
async function withTeam(cmd: Command, fn: (team: TeamDeps, app: App) => Promise<void>): Promise<void> {
  const config = teamConfig(cmd);
  const { resolveTeam } = await import("../team/deps.js");
  await withApp(config, async (app) => fn(need(resolveTeam(app.scope, config.team)), app));
}

export function registerTeam(program: Command): void {
  const team = program
    .command("team")
    .description("share this project's decisions, rules, failures, learnings and metrics with a team (PostgreSQL)")
    .option("--team-url <url>", "postgres://… of the team store (default: MEMCARDS_TEAM_URL); never stored")
    .option("--team-project <name>", "project name in the team store (default: the normalized git remote)");
  registerTeamAdmin(team);
  registerTeamStatus(team);
  registerTeamSync(team);
  registerTeamSearch(team);
}

/** `team init|grant|vacuum`: the store's tables, members' roles and projects, and rewriting forgotten text away. */
function registerTeamAdmin(team: Command): void {
  team
    .command("init")
    .description("create or upgrade the team store's tables and link this project; --role creates the members' role")
    .option("--role <name>", "create a least-privilege login role (password from MEMCARDS_TEAM_ROLE_PASSWORD)")
    .option("--json", "print JSON")
    .action(async (opts: { role?: string; json?: boolean }, cmd: Command) => {
      const { initTeam } = await import("../team/service.js");
      const password = teamConfig(cmd).team.rolePassword;
      if (opts.role && !password)
        throw new AppError("BAD_INPUT", "--role needs the new role's password in MEMCARDS_TEAM_ROLE_PASSWORD");
      await withTeam(cmd, async (deps) => {
        const r = await initTeam(deps, opts.role ? { name: opts.role, password: password! } : undefined);
        print(
          opts.json,
          r,
          `team store at schema ${r.version}${r.applied.length ? ` (applied ${r.applied.join(", ")})` : ""}; project ${r.project}${r.role ? `; role ${r.role} can read and write units` : ""}`,
        );
      });
    });

  team
    .command("grant <member>")
    .description(
      "team admin: grant a member's role a project (creating the role, password from MEMCARDS_TEAM_ROLE_PASSWORD)",
    )
    .option("--project <key>", "the project's key as `team status` shows it, or a remote URL (default: this clone's)")
    .option("--revoke", "take the project back instead")
    .option("--json", "print JSON")
    .action(async (member: string, opts: { project?: string; revoke?: boolean; json?: boolean }, cmd: Command) => {
      const { normalizeRemote } = await import("../team/identity.js");
      const { grantTeam } = await import("../team/service.js");
      const project = opts.project && /:\/\/|@/.test(opts.project) ? normalizeRemote(opts.project) : opts.project;
      const { url, rolePassword: password } = teamConfig(cmd).team;
      const run = async (deps: { url: string; projectKey: string }) => {
        const r = await grantTeam(deps, member, {
          ...(project ? { project } : {}),
          ...(password ? { password } : {}),
          ...(opts.revoke ? { revoke: true } : {}),
        });
        const verb = opts.revoke ? (r.changed ? "revoked" : "did not hold") : r.changed ? "granted" : "already held";
        print(
          opts.json,
          r,
          `${r.member}${r.created ? " (new role)" : ""}: ${verb} ${r.project}; projects now: ${r.projects.join(", ") || "none"}`,
        );
      };
      if (project && url) return run({ url, projectKey: project });
      await withTeam(cmd, run);
    });

  team
    .command("vacuum")
    .description("team admin: rewrite the units table so forgotten text leaves its file (VACUUM FULL)")
    .action(async (_opts: unknown, cmd: Command) => {
      const { vacuumTeam } = await import("../team/service.js");
      const url = teamConfig(cmd).team.url;
      if (!url) need(undefined);
      const r = await vacuumTeam({ url: url! });
      console.log(r.remains);
    });
}

/** `team status`: where reads come from, what waits to be sent, the store's counts. */
function registerTeamStatus(team: Command): void {
  team
    .command("status")
    .description("where reads come from (team store or local copy), what waits to be sent, the store's counts")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { teamStatus } = await import("../team/service.js");
      await withTeam(cmd, async (deps) => {
        const s = await teamStatus(deps);
        const lines = [
          `team store: ${s.url} (${s.reachable ? "reachable" : `unreachable: ${s.error}`})`,
          `project: ${s.project}`,
          ...(s.access ? [`access: ${s.access.role}; projects: ${s.access.projects.join(", ") || "none"}`] : []),
          `reads: ${s.reads}`,
          `queued to send: ${s.pending}`,
          `local copy: ${count(s.cached, "unit")}`,
          `similarity: ${s.similarity}`,
          ...(s.counts
            ? [
                `team units: ${s.counts.units} (${s.counts.active} active, ${s.counts.conflicts} in conflict) by ${count(s.counts.authors, "author")}; ${s.counts.forgotten} forgotten`,
              ]
            : []),
        ];
        print(opts.json, s, lines.join("\n"));
      });
    });
}

/** `team push|pull`: send what is queued, copy the team's units here. */
function registerTeamSync(team: Command): void {
  team
    .command("push")
    .description("send the queued units and forgets, in order, once each")
    .option("--share-summaries", "also share the latest summary of recent sessions (they stay local otherwise)")
    .option("--json", "print JSON")
    .action(async (opts: { shareSummaries?: boolean; json?: boolean }, cmd: Command) => {
      const { queueSummariesForTeam } = await import("../team/queue.js");
      const { pushTeam } = await import("../team/service.js");
      await withTeam(cmd, async (deps, app) => {
        if (opts.shareSummaries) queueSummariesForTeam(app.scope, deps.projectKey);
        const r = await pushTeam(deps);
        const detail = Object.entries(r.outcomes)
          .map(([k, v]) => `${v} ${k}`)
          .join(", ");
        print(opts.json, r, `sent ${r.sent}${detail ? ` (${detail})` : ""}; ${r.pending} still queued`);
      });
    });

  team
    .command("pull")
    .description("copy the team's units here (read when the team store is unreachable)")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { pullTeam } = await import("../team/service.js");
      await withTeam(cmd, async (deps) => {
        const r = await pullTeam(deps);
        print(opts.json, r, `copied ${count(r.units, "team unit")}; ${count(r.forgotten, "forgotten unit")} dropped`);
      });
    });
}

/** `team search|forget`: find the team's units, remove one for everyone. */
function registerTeamSearch(team: Command): void {
  team
    .command("search <query>")
    .description("search the team's units (each marked with its author)")
    .option("--limit <n>", "at most n units", int, 10)
    .option("--all", "include superseded units and units in conflict")
    .option("--json", "print JSON")
    .action(async (query: string, opts: { limit: number; all?: boolean; json?: boolean }, cmd: Command) => {
      const { renderTeamHits } = await import("../team/render.js");
      const { searchTeam } = await import("../team/service.js");
      await withTeam(cmd, async (deps, app) => {
        const r = await searchTeam(deps, query, {
          limit: opts.limit,
          includeInactive: opts.all ?? false,
          ...(app.embedding.vectorsEnabled ? { embedder: app.embedding.embedder } : {}),
        });
        print(opts.json, r, renderTeamHits(r));
      });
    });

  team
    .command("forget <uid>")
    .description("remove a shared unit for everyone (an audit row keeps who and when, not the text)")
    .action(async (uid: string, _opts: unknown, cmd: Command) => {
      const { forgetForTeam } = await import("../team/service.js");
      await withTeam(cmd, async (deps) => {
        const r = await forgetForTeam(deps, uid);
        console.log(
          r.sent
            ? `forgot ${uid} for everyone. ${r.remains}`
            : `queued: ${uid} is forgotten for everyone when the team store is back`,
        );
      });
    });
}

/** `memcards eval team`: the team store's throughput and p95 beside SQLite alone; the bench loads only when it runs. */
export function registerEvalTeam(evalCmd: Command): void {
  evalCmd
    .command("team")
    .description("write and search throughput and p95 of concurrent agents on the team store beside SQLite alone")
    .option("--team-url <url>", "postgres://… of a team store to measure (default: MEMCARDS_TEAM_URL)")
    .option("--agents <n>", "concurrent agents", int, 10)
    .option("--ops <n>", "writes and searches per agent", int, 50)
    .option("--json", "print JSON")
    .action(async (opts: { teamUrl?: string; agents: number; ops: number; json?: boolean }, cmd: Command) => {
      const url = configFrom(cmd, { teamUrl: opts.teamUrl }).team.url;
      if (!url) throw new AppError("TEAM_NOT_CONFIGURED", "eval team needs --team-url or MEMCARDS_TEAM_URL");
      const bench = await import("../../bench/team-bench.js");
      const r = await bench.benchTeam(url, opts.agents, opts.ops);
      print(opts.json, r, bench.renderTeamBench(r));
    });
}
