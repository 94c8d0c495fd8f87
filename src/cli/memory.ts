// `memcards memories | remember | search`: list, store and find the project's memory units.
import type { Command } from "commander";
import { z } from "zod";

import type { RecordInput, SearchInput } from "../memory/service.js";
import type { UnitCategory } from "../vocab.js";
import { CATEGORY_HELP, categoryFlag, configFrom, int, print, withApp } from "./shared.js";

interface ListFlags {
  category?: UnitCategory;
  tier: string;
  all?: boolean;
  limit: number;
  json?: boolean;
}

interface SearchFlags {
  category?: UnitCategory;
  raw?: boolean;
  budget?: number;
  all?: boolean;
  json?: boolean;
}

export function registerMemory(program: Command): void {
  program
    .command("memories")
    .description(
      "list the project's memory units (warm by default): commitments, failures, metrics, learnings, preferences, decisions",
    )
    .option("--category <c>", CATEGORY_HELP, categoryFlag)
    .option("--tier <t>", "warm | cold (default: warm)", "warm")
    .option("--all", "include superseded units and units in conflict")
    .option("--limit <n>", "at most n units", int, 50)
    .option("--json", "print JSON")
    .action(async (opts: ListFlags, cmd: Command) => {
      const { listUnits } = await import("../memory/browse.js");
      const { renderMemoryList } = await import("../memory/render.js");
      await withApp(configFrom(cmd), (app) => {
        const rows = listUnits(app.scope, {
          ...(opts.category ? { category: opts.category } : {}),
          tier: opts.tier,
          includeInactive: opts.all ?? false,
          limit: opts.limit,
        });
        // --json keeps the stored form of the JSON columns (strings), as it always printed them.
        const stored = rows.map((r) => ({
          ...r,
          record: JSON.stringify(r.record),
          evidence: JSON.stringify(r.evidence),
          files: JSON.stringify(r.files),
        }));
        print(opts.json, stored, renderMemoryList(rows));
      });
    });

  program
    .command("remember <category> <text>")
    .description(
      "store a memory unit: commitment, performance (`name: value unit`), learning, failure, preference, reasoning; decision and rule are kept as reasoning and commitment",
    )
    .option("--file <paths...>", "files it concerns")
    .action(async (category: string, text: string, opts: { file?: string[] }, cmd: Command) => {
      const { recordMemory } = await import("../session/memory.js");
      const { sendQueued } = await import("../team/deps.js");
      await withApp(configFrom(cmd), async (app) => {
        const input: RecordInput = {
          category: category as RecordInput["category"],
          text,
          ...(opts.file ? { files: opts.file } : {}),
        };
        const r = recordMemory(app.scope, input);
        console.log(`${r.outcome}${r.id !== undefined ? ` (#${r.id})` : ""}`);
        // With a team store set, what was queued is sent now (or waits for the server).
        const note = await sendQueued(app.scope, app.config.team);
        if (note) console.error(`memcards: ${note}`);
      });
    });

  program
    .command("search <query>")
    .description("search memory units (and with --raw the archive of past turns)")
    .option("--category <c>", CATEGORY_HELP, categoryFlag)
    .option("--raw", "also the raw turn archive")
    .option("--budget <tokens>", "the most tokens the hits may take together", int)
    .option("--all", "include superseded units and units in conflict")
    .option("--json", "print JSON")
    .action(async (query: string, opts: SearchFlags, cmd: Command) => {
      const { renderMemoryHits } = await import("../memory/render.js");
      const { RawHit, searchMemoryHybrid } = await import("../memory/service.js");
      /** The camelCase parts of a search result, renamed for --json. */
      const SearchJsonNames = z.object({ raw: z.array(RawHit) });
      const { teamSearchFor } = await import("../team/deps.js");
      const { renderTeamHits } = await import("../team/render.js");
      await withApp(configFrom(cmd), async (app) => {
        const input: SearchInput = {
          query,
          includeRaw: opts.raw ?? false,
          includeInactive: opts.all ?? false,
          ...(opts.budget !== undefined ? { budgetTokens: opts.budget } : {}),
          ...(opts.category ? { category: opts.category } : {}),
        };
        const r = await searchMemoryHybrid(app.scope, input, app.embedding);
        // With a team store set, the team's units join the results, each with its author.
        const team = await teamSearchFor(app.scope, app.config.team, query, {
          includeInactive: opts.all ?? false,
          ...(app.embedding.vectorsEnabled ? { embedder: app.embedding.embedder } : {}),
        });
        print(
          opts.json,
          team ? { ...r, team } : r,
          team ? `${renderMemoryHits(r)}\n\n${renderTeamHits(team)}` : renderMemoryHits(r),
          SearchJsonNames,
        );
      });
    });
}
