// `memcards eval …`: the benchmark commands. Their flags are declared here; bench/ loads only when one runs.
import type { Command } from "commander";

import type { CompressEvalFlags, SummaryEvalFlags } from "../../bench/commands.js";
import { registerEvalSystem } from "./eval-system.js";
import { registerEvalTasks } from "./eval-tasks.js";
import { type CliContext, configFrom, int, loadBench, loggerFor, print } from "./shared.js";
import { registerEvalTeam } from "./team.js";

export function registerEval(program: Command, ctx: CliContext): void {
  const evalCmd = program.command("eval").description("benchmarks and evaluations");
  evalCmd
    .command("index")
    .description("time the graph build against the read and parse floors of the same files, in one run")
    .requiredOption("--repo <dir>", "repository to index (a private copy is made; the repository is not touched)")
    .option("--json", "print JSON")
    .action(async (opts: { repo: string; json?: boolean }, cmd: Command) => {
      const config = configFrom(cmd);
      const r = await (await loadBench()).evalIndex(opts, config, loggerFor(config));
      print(opts.json, r.data, r.text);
    });

  evalCmd
    .command("bench")
    .description("time compress_context on a ~200k-token transcript against the tokenize floor, in one run")
    .requiredOption("--source <file>", "a Claude Code JSONL session to inflate")
    .option("--tokens <n>", "target size in tokens", int, 200_000)
    .option("--json", "print JSON")
    .action(async (opts: { source: string; tokens: number; json?: boolean }) => {
      const r = await (await loadBench()).evalBench(opts);
      print(opts.json, r.data, r.text);
    });

  evalCmd
    .command("segment")
    .description("per-category precision and recall of the segmenter on the hand-labelled turns")
    .requiredOption("--set <file>", "labelled turns (JSONL), e.g. test/fixtures/segment/turns.jsonl")
    .option("--second <file>", "a second labeller's labels of some of the same turns: agreement and kappa")
    .option("--json", "print JSON")
    .action(async (opts: { set: string; second?: string; json?: boolean }) => {
      const r = (await loadBench()).evalSegmentCommand(opts);
      print(opts.json, r.data, r.text);
    });

  evalCmd
    .command("compress")
    .description(
      "five systems at one budget (window, uniform extractive, TF-IDF, embedding retrieval, memcards) scored by ground-truth probes (--transcripts), or the summaries against the probes committed beside them (--dir)",
    )
    .option("--transcripts <dir>", "folder of transcripts: the five-system evaluation")
    .option("--budget <n>", "tokens per system and transcript (five-system)", int, 2000)
    .option("--query-budget <n>", "tokens of search results per question (query set)", int, 300)
    .option("--labelled <file>", "hand-labelled turns whose commitment quotes become commitment probes")
    .option("--out <dir>", "write compress-systems.json and compress-systems.svg there (five-system)")
    .option("--dir <dir>", "folder of transcripts with probes.json: the committed-probe table")
    .option("--only <names...>", "only these files of the folder")
    .option("--json", "print JSON")
    .action(async (opts: CompressEvalFlags & { json?: boolean }) => {
      const r = await (await loadBench()).evalCompressCommand(opts);
      print(opts.json, r.data, r.text);
    });

  evalCmd
    .command("summary")
    .description(
      "per-section precision and recall of the compress_context summary (Files Modified, Failures, User Constraints) against each transcript's own edit markers, tool results and human turns, per format and per session",
    )
    .requiredOption("--transcripts <dir>", "folder of transcripts")
    .option("--budget <n>", "summary budget in tokens (default: compress_context's own)", int)
    .option("--labelled <file>", "hand-labelled Failures lines (JSONL): precision and recall of the section on them")
    .option(
      "--gold <dir>",
      "gold facts per session (<session>.json, split.json): every line of the page scored, beside a last-messages baseline",
    )
    .option("--keep-recent <n>", "messages kept verbatim after the summary (--gold; default compress_context's 5)", int)
    .option("--only <names...>", "only these files of the folder")
    .option("--json", "print JSON")
    .action(async (opts: SummaryEvalFlags & { json?: boolean }) => {
      const r = await (await loadBench()).evalSummaryCommand(opts);
      print(opts.json, r.data, r.text);
    });

  registerEvalTasks(evalCmd);
  registerEvalSystem(evalCmd, ctx);
  registerEvalTeam(evalCmd);
}
