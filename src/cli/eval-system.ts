// `memcards eval toolsize | recall | crosssession | hooks | audit`: tool-list cost, memory recall, hook latency, leakage.
import { type Command, Option } from "commander";

import { AppError } from "../errors.js";
import { type CliContext, configFrom, int, loadBench, loggerFor, print } from "./shared.js";

export function registerEvalSystem(evalCmd: Command, ctx: CliContext): void {
  evalCmd
    .command("toolsize")
    .description("count the tokens memcards' tools/list and instructions cost in every session")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const r = await (await loadBench()).evalToolSize(configFrom(cmd), ctx.version);
      print(opts.json, r.data, r.text);
    });

  evalCmd
    .command("recall")
    .description(
      "LoCoMo: ingest conversations session by session, search each question, evidence recall@5/@10 against BM25",
    )
    .requiredOption("--locomo <file>", "LoCoMo-format JSON (e.g. ../shared/data/locomo-dev-5.json)")
    .option("--json", "print JSON")
    .action(async (opts: { locomo: string; json?: boolean }) => {
      const r = await (await loadBench()).evalRecall(opts);
      print(opts.json, r.data, r.text);
    });

  evalCmd
    .command("crosssession")
    .description(
      "earlier sessions of each multi-session project distilled; file, error, rule and decision questions derived from them; hit@10 and tokens against BM25 over the raw turns and recency",
    )
    .requiredOption("--dir <dir>", "folder of transcripts (e.g. ../shared/data/transcripts)")
    .option("--only <names...>", "only files whose name contains one of these")
    .option("--misses", "list the questions search and BM25 missed (with --json)")
    .option("--json", "print JSON")
    .action(async (opts: { dir: string; only?: string[]; misses?: boolean; json?: boolean }) => {
      const r = await (await loadBench()).evalCrossSession(opts);
      print(opts.json, r.data, r.text);
    });

  evalCmd
    .command("hooks")
    .description("time each Claude Code hook command (new process, JSON on stdin) against a warm database")
    .requiredOption("--transcript <file>", "a Claude Code session to seed the project with")
    .option("--runs <n>", "runs per hook", int, 10)
    .option("--json", "print JSON")
    .action(async (opts: { transcript: string; runs: number; json?: boolean }) => {
      const r = await (await loadBench()).evalHooks(opts, ctx.entry);
      print(opts.json, r.data, r.text);
    });

  evalCmd
    .command("perf")
    .description(
      "speed on a repository: cards over MCP, hooks, serve start-up, memory writes, recall, index, re-index and watcher, each beside a floor measured in the same run",
    )
    .requiredOption("--repo <dir>", "repository to measure (a private copy is made; the repository is not touched)")
    .option("--tasks <n>", "get_memory_cards calls over one session", int, 30)
    .option("--runs <n>", "runs of each hook and start-up", int, 8)
    .option("--units <n...>", "memory store sizes to measure writes and recall at", (v: string, p: number[]) => [
      ...(p ?? []),
      int(v),
    ])
    .option("--big", "also measure memory at 100,000 units (minutes)")
    .option(
      "--memory-transcripts <dir>",
      "also measure memory on units distilled from the transcripts in dir, written again with varied words",
    )
    .option("--hooks-before <cli>", "also time the hook rows with another build's dist/cli.js (a before, same run)")
    .addOption(
      new Option("--only <groups...>", "measure only these groups (the full index always runs)").choices([
        "reindex",
        "serve",
        "cards",
        "hooks",
        "watcher",
        "memory",
        "memory-transcripts",
      ]),
    )
    .option("--json", "print JSON")
    .action(
      async (
        opts: {
          repo: string;
          tasks: number;
          runs: number;
          units?: number[];
          big?: boolean;
          memoryTranscripts?: string;
          hooksBefore?: string;
          only?: ("reindex" | "serve" | "cards" | "hooks" | "watcher" | "memory" | "memory-transcripts")[];
          json?: boolean;
        },
        cmd: Command,
      ) => {
        refuseUnmeasurable(opts);
        const config = configFrom(cmd);
        const units = opts.units ?? [1000, 10_000];
        const r = await (
          await loadBench()
        ).evalPerf(
          { ...opts, units: opts.big ? [...units, 100_000] : units },
          ctx.entry,
          config,
          loggerFor(config, true),
        );
        print(opts.json, r.data, r.text);
      },
    );

  evalCmd
    .command("audit")
    .description("leakage audit: fail when ranking code mentions gold files or imports evaluation code")
    .action(async () => {
      const r = (await loadBench()).evalAudit(ctx.packageRoot);
      if (!r.ok) {
        process.stderr.write(r.text + "\n");
        process.exitCode = 1;
        return;
      }
      console.log(r.text);
    });
}

/** `--only memory-transcripts` measures the units of a transcripts folder: without one there is nothing to time. */
function refuseUnmeasurable(opts: { only?: string[]; memoryTranscripts?: string }): void {
  if (opts.only?.includes("memory-transcripts") && !opts.memoryTranscripts)
    throw new AppError(
      "BAD_INPUT",
      "--only memory-transcripts measures the units of a transcripts folder: give it with --memory-transcripts <dir>",
    );
}
