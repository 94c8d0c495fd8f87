// `memcards cards` (decision-aware cards for a task) and `memcards outcome` (which cards helped).
import { resolve as resolvePath } from "node:path";

import { type Command, Option } from "commander";
import { z } from "zod";

import { createProgressLine } from "../progress.js";
import { Card, CardAudit } from "../scoring/schema.js";
import { count } from "../text/plural.js";
import { configFrom, int, print, withApp } from "./shared.js";

/** The camelCase parts of a cards result, renamed for --json. */
const CardsJsonNames = z.object({ taskChars: z.number(), cards: z.array(Card), audit: CardAudit });

interface CardsFlags {
  repo?: string;
  budget: number;
  mode: "post_selection" | "pre_budget";
  file?: string[];
  session?: string;
  json?: boolean;
}

export function registerCards(program: Command): void {
  program
    .command("cards <task>")
    .description("decision-aware memory cards for a task (indexes the project first if it has no graph)")
    .option("--repo <path>", "project root (default: the resolved root)")
    .option("--budget <tokens>", "token budget", int, 1200)
    .addOption(
      new Option("--mode <mode>", "packing mode").choices(["post_selection", "pre_budget"]).default("post_selection"),
    )
    .option("--file <paths...>", "files you are looking at")
    .option("--session <id>", "include this session's constraints and failures")
    .option("--json", "print JSON (cards, both modes' selections, audit, ranking)")
    .action(async (task: string, opts: CardsFlags, cmd: Command) => {
      const { getMemoryCards, renderCards } = await import("../cards/service.js");
      const { buildGraph } = await import("../graph/build-graph.js");
      await withApp(
        configFrom(cmd, opts.repo ? { root: resolvePath(opts.repo) } : {}),
        async (app) => {
          // A person asked for cards and waits: an unindexed project is indexed first (the MCP tool refuses).
          const indexFirst = async () => {
            const line = createProgressLine(true);
            await buildGraph(app.scope, app, {
              onProgress: (p) => line.update(`indexing ${app.location.root}: ${p.phase} ${p.done}/${p.total}`),
            });
            line.done();
          };
          const r = await getMemoryCards(
            { ...app.scope, ranker: app.ranker, indexFirst },
            {
              task,
              budgetTokens: opts.budget,
              mode: opts.mode,
              ...(opts.file ? { files: opts.file } : {}),
              ...(opts.session ? { sessionId: opts.session } : {}),
            },
          );
          print(opts.json, r, renderCards(r), CardsJsonNames);
        },
        { needsProject: true },
      );
    });
}

export function registerOutcome(program: Command): void {
  program
    .command("outcome")
    .description("report which served cards helped and which files were finally edited")
    .option("--helped <ids...>", "card ids that helped")
    .option("--not-helpful <ids...>", "card ids that did not")
    .option("--edited <paths...>", "files finally edited")
    .action(async (opts: { helped?: string[]; notHelpful?: string[]; edited?: string[] }, cmd: Command) => {
      const { recordOutcome } = await import("../cards/service.js");
      await withApp(configFrom(cmd), (app) => {
        const r = recordOutcome(app.scope, {
          helped: opts.helped ?? [],
          notHelpful: opts.notHelpful ?? [],
          editedFiles: opts.edited ?? [],
        });
        const unknown = r.unknown.length ? `; unknown ids: ${r.unknown.join(", ")}` : "";
        console.log(`recorded ${count(r.recorded, "outcome")}${unknown}`);
      });
    });
}
