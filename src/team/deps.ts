// Resolves the team settings of a command or tool: the URL (flag, else MEMCARDS_TEAM_URL), the project key, the author.
import type { ProjectScope } from "../project/scope.js";
import { teamUrl } from "./connect.js";
import { teamAuthor, teamProjectKey } from "./identity.js";
import { linkedTeam } from "./queue.js";
import type { TeamDeps } from "./service.js";

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
