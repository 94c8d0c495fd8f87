// `memcards eval localize` and `memcards eval cards`: ranking and cards on real tasks, a fresh index per task.
import { tmpdir } from "node:os";
import { join } from "node:path";

import type { Command } from "commander";

import type { TaskEvalFlags } from "../../bench/commands.js";
import { configFrom, loadBench, loggerFor, print } from "./shared.js";

/** The ladder's rungs, in order (bench/localize/ladder.ts defines them; a test keeps the two equal). */
export const RUNG_NAMES = "bm25, +anchors, +symbols, +vectors, +expansion, memcards";

type Flags = TaskEvalFlags & { json?: boolean };

export function registerEvalTasks(evalCmd: Command): void {
  evalCmd
    .command("localize")
    .description("rank files for real tasks on a fresh index per task, every rung of the retrieval ladder")
    .requiredOption("--tasks <file>", "JSONL: {id, repo, commit, query, gold, git_dir?} per line")
    .option("--repos <dir>", "directory holding the repositories' git directories (owner+name/, name/, name.git)")
    .option(
      "--cache <dir>",
      "where trees at each commit are extracted (kept between runs)",
      join(tmpdir(), "memcards-eval"),
    )
    .option("--limit <n>", "only the first n tasks")
    .option("--only <substring>", "only tasks whose id contains this")
    .option("--out <dir>", "also write report.json and report.md there")
    .option("--keep-stores", "keep one index per tree in the cache between runs (fast re-runs while tuning)")
    .option("--rungs <names...>", `only these rungs, in ladder order (${RUNG_NAMES})`)
    .option(
      "--dump <file>",
      "also write each task's candidate files with every channel's rank (JSONL, for fit-weights)",
    )
    .option("--json", "print JSON")
    .action(async (opts: Flags, cmd: Command) => {
      const config = configFrom(cmd);
      const r = await (await loadBench()).evalLocalize(opts, config, loggerFor(config, true));
      print(opts.json, r.data, r.text);
    });

  evalCmd
    .command("fit-weights")
    .description(
      "fit the fusion weights on localize dumps: coordinate ascent on MRR@10, leave-one-repository-out figures per rung",
    )
    .requiredOption("--dump <files...>", "development dumps from eval localize --dump (fitted and cross-validated)")
    .option("--held-out <files...>", "dumps only scored with the weights fitted on every development task")
    .option("--json", "print JSON")
    .action(async (opts: { dump: string[]; heldOut?: string[]; json?: boolean }) => {
      const r = (await loadBench()).evalFitWeights(opts);
      print(opts.json, r.data, r.text);
    });

  evalCmd
    .command("fit-symbols")
    .description(
      "fit the symbol ranking's constants on localize dumps: grid search on symbol MRR@10, leave-one-repository-out figures",
    )
    .requiredOption("--dump <files...>", "dumps from eval localize --dump over tasks with gold_symbols")
    .option("--json", "print JSON")
    .action(async (opts: { dump: string[]; json?: boolean }) => {
      const r = (await loadBench()).evalFitSymbols(opts);
      print(opts.json, r.data, r.text);
    });

  evalCmd
    .command("cards")
    .description(
      "what the packed cards hold for real tasks: budget sweep, removal, formats at equal budget, planted harm, audit, latency",
    )
    .requiredOption("--tasks <file>", "JSONL tasks, as for eval localize")
    .option("--repos <dir>", "directory holding the repositories' git directories")
    .option("--cache <dir>", "where trees (and kept stores) live", join(tmpdir(), "memcards-eval"))
    .option("--limit <n>", "only the first n tasks")
    .option("--keep-stores", "reuse one index per tree between runs")
    .option("--latency-repo <dir>", "also time get_memory_cards on this (large) repository, indexed once")
    .option(
      "--calibrate",
      "instead: fit the task-evidence calibration (each task on its own repository and on every other one)",
    )
    .option("--out <dir>", "also write cards.json and cards.md there")
    .option("--json", "print JSON")
    .action(async (opts: Flags, cmd: Command) => {
      const config = configFrom(cmd);
      const r = await (await loadBench()).evalCards(opts, config, loggerFor(config, true));
      print(opts.json, r.data, r.text);
    });

  evalCmd
    .command("cards-session")
    .description(
      "what run-time signals add: scripted sessions (a constraint, an edit, a failing test) before the cards call",
    )
    .requiredOption("--repo <dir>", "the repository the scenarios are written for (fixtures/repos/polyglot)")
    .option("--out <dir>", "also write cards-session.json and cards-session.md there")
    .option("--json", "print JSON")
    .action(async (opts: { repo: string; out?: string; json?: boolean }, cmd: Command) => {
      const config = configFrom(cmd);
      const r = await (await loadBench()).evalCardsSession(opts, config, loggerFor(config, true));
      print(opts.json, r.data, r.text);
    });
}
