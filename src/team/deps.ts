// What a command or tool needs to reach the team: from the team settings (config.ts), the URL, the project key and
// the author.
import type { TeamSettings } from "../config.js";
import type { Embedder } from "../embeddings/provider.js";
import type { ProjectScope } from "../storage/scope.js";
import { count } from "../text/plural.js";
import { countTokens } from "../text/tokens.js";
import { teamAuthor, teamProjectKey } from "./identity.js";
import { linkedTeam } from "./queue.js";
import { pushIfReachable, searchTeam, type TeamDeps, type TeamHit, teamRecall } from "./service.js";

/**
 * What reaching the team takes, or undefined when no team URL is set. The project key: the configured project,
 * else the project's link, else its remote.
 */
export function resolveTeam(scope: ProjectScope, settings: TeamSettings): TeamDeps | undefined {
  const url = settings.url;
  if (!url) return undefined;
  const projectKey = settings.project
    ? teamProjectKey(scope.root, settings.project)
    : (linkedTeam(scope.db, scope.projectId) ?? teamProjectKey(scope.root));
  return { scope, url, projectKey, who: teamAuthor(scope.root, settings) };
}

/** The team's units matching `query` when this project is linked and a team URL is set; undefined otherwise. */
export async function teamSearchFor(
  scope: ProjectScope,
  settings: TeamSettings,
  query: string,
  opts: { includeInactive?: boolean; embedder?: Embedder; limit?: number } = {},
): Promise<{ source: string; hits: TeamHit[] } | undefined> {
  const team = linkedTeam(scope.db, scope.projectId) ? resolveTeam(scope, settings) : undefined;
  if (!team) return undefined;
  // A team failure (refused login, store not initialised, bad URL) never hides the local results.
  return searchTeam(team, query, opts).catch((err: unknown) => ({
    source: `team store not searched: ${(err as Error).message}`,
    hits: [],
  }));
}

/**
 * Sends what is queued when this project is linked and a team URL is set. Never fails the write that queued it:
 * the result is a note to show (units still queued, or why sending failed), or undefined when all went.
 */
export async function sendQueued(scope: ProjectScope, settings: TeamSettings): Promise<string | undefined> {
  const team = linkedTeam(scope.db, scope.projectId) ? resolveTeam(scope, settings) : undefined;
  if (!team) return undefined;
  try {
    const p = await pushIfReachable(team, { interactive: true });
    return p.offline ? `team store unreachable; ${count(p.pending, "change")} queued` : undefined;
  } catch (err) {
    return `not sent to the team store: ${(err as Error).message}`;
  }
}

/**
 * What recall adds from the team when this project is linked: a section of the team's rules, decisions and
 * failures with their authors, within `budget` tokens (empty when there is nothing, no room, or no team).
 * An unreachable store falls back to the local copy; any other failure leaves recall as it was.
 */
export async function teamRecallSection(scope: ProjectScope, settings: TeamSettings, budget: number): Promise<string> {
  const team = linkedTeam(scope.db, scope.projectId) ? resolveTeam(scope, settings) : undefined;
  if (!team || budget < 30) return "";
  const r = await teamRecall(team).catch(() => undefined);
  if (!r || r.hits.length === 0) return "";
  const head = `## From the team (${r.source})`;
  const lines: string[] = [];
  let used = countTokens(head) + 2;
  for (const h of r.hits) {
    const line = `- [${h.category}] ${h.text.replace(/\s+/g, " ").slice(0, 240)} — ${h.author}`;
    const t = countTokens(line) + 1;
    if (used + t > budget) break;
    lines.push(line);
    used += t;
  }
  return lines.length ? `${head}\n${lines.join("\n")}` : "";
}
