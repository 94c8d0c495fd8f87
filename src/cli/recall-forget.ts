// `memcards recall` (the brief for the work at hand) and `memcards forget` (delete memory for real).
import type { Command } from "commander";

import { count } from "../text/plural.js";
import { configFrom, int, withApp } from "./shared.js";

export function registerRecallForget(program: Command): void {
  program
    .command("recall")
    .description("what this project's memory says the work at hand needs (the SessionStart brief)")
    .option("--budget <tokens>", "token budget", int, 1500)
    .action(async (opts: { budget: number }, cmd: Command) => {
      const { recall } = await import("../memory/service.js");
      const { teamRecallSection } = await import("../team/deps.js");
      await withApp(configFrom(cmd), async (app) => {
        const r = recall(app.scope, { budgetTokens: opts.budget });
        const team = await teamRecallSection(app.scope, app.config.team, opts.budget - r.tokens);
        console.log(team ? `${r.markdown}\n\n${team}` : r.markdown);
      });
    });

  program
    .command("forget")
    .description("delete memory for real: --id N, --session ID, --file PATH or --all")
    .option("--id <n>", "one unit", int)
    .option("--session <id>", "a session's units, raw turns and summaries")
    .option("--file <path>", "units citing this file")
    .option("--all", "everything memcards remembers for this project")
    .action(async (opts: { id?: number; session?: string; file?: string; all?: boolean }, cmd: Command) => {
      const { purgeNote } = await import("../memory/service.js");
      const { forget } = await import("../session/memory.js");
      const { sendQueued } = await import("../team/deps.js");
      await withApp(configFrom(cmd), async (app) => {
        const r = forget(app.scope, {
          ...(opts.id !== undefined ? { id: opts.id } : {}),
          ...(opts.session ? { sessionId: opts.session } : {}),
          ...(opts.file ? { file: opts.file } : {}),
          all: opts.all ?? false,
        });
        console.log(
          `forgot ${count(r.memories, "memory unit")}, ${count(r.rawTurns, "archived turn")}, ${count(r.summaries, "summary", "summaries")}`,
        );
        if (!r.purged) console.error(`memcards: ${purgeNote(r)}`);
        // Shared units are removed from the team store too (now, or when it is back).
        const note = await sendQueued(app.scope, app.config.team);
        if (note) console.error(`memcards: ${note}`);
      });
    });
}
