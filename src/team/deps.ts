// Resolves the team settings of a command or tool: the URL (flag, else MEMCARDS_TEAM_URL), the project key, the author.
import type { Embedder } from "../embeddings/provider.js";
import type { ProjectScope } from "../project/scope.js";
import { teamUrl } from "./connect.js";
import { teamAuthor, teamProjectKey } from "./identity.js";
import { linkedTeam } from "./queue.js";
import { pushIfReachable, searchTeam, type TeamDeps, type TeamHit } from "./service.js";

/** The team settings, or undefined when no team URL is set. The project key: flag, else the link, else the remote. */
export function resolveTeam(
  scope: ProjectScope,
  flags: { teamUrl?: string; teamProject?: string } = {},
  env: NodeJS.ProcessEnv = process.env,
): TeamDeps | undefined {
  const url = teamUrl(flags.teamUrl, env);
  if (!url) return undefined;
  const explicit = flags.teamProject ?? env.MEMCARDS_TEAM_PROJECT;
  const projectKey = explicit
    ? teamProjectKey(scope.root, explicit)
    : (linkedTeam(scope.db, scope.projectId) ?? teamProjectKey(scope.root));
  return { scope, url, projectKey, who: teamAuthor(scope.root, env) };
}

/** The team's units matching `query` when this project is linked and a team URL is set; undefined otherwise. */
export async function teamSearchFor(
  scope: ProjectScope,
  query: string,
  opts: { includeInactive?: boolean; embedder?: Embedder; limit?: number } = {},
): Promise<{ source: "team" | "local copy"; hits: TeamHit[] } | undefined> {
  const team = linkedTeam(scope.db, scope.projectId) ? resolveTeam(scope) : undefined;
  return team ? searchTeam(team, query, opts) : undefined;
}

/**
 * Sends what is queued when this project is linked and a team URL is set. Never fails the write that queued it:
 * the result is a note to show (units still queued, or why sending failed), or undefined when all went.
 */
export async function sendQueued(scope: ProjectScope): Promise<string | undefined> {
  const team = linkedTeam(scope.db, scope.projectId) ? resolveTeam(scope) : undefined;
  if (!team) return undefined;
  try {
    const p = await pushIfReachable(team);
    return p.offline ? `team store unreachable; ${p.pending} change(s) queued` : undefined;
  } catch (err) {
    return `not sent to the team store: ${(err as Error).message}`;
  }
}
