// The `memcards eval …` commands' work: each takes the parsed flags and returns its JSON and its text.
// The CLI loads this module only when an eval command runs.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve as resolvePath } from "node:path";

import type { Config } from "../src/config.js";
import { AppError } from "../src/errors.js";
import type { Logger } from "../src/log.js";
import { createProgressLine } from "../src/progress.js";
import { renderCardsEval, runCardsEval } from "./cards.js";
import { calibrate, calibrationRows, renderCalibration } from "./cards-calibrate.js";
import { renderSessionEval, runSessionEval } from "./cards-session.js";
import { fiveSystemsSvg, renderFiveSystems, runFiveSystems } from "./compress/five.js";
import { evalCompress, renderCompressEval } from "./compress/probes-committed.js";
import { benchCompress, renderCompressBench } from "./compress-bench.js";
import { renderCrossSession, runCrossSession } from "./crosssession/run.js";
import { benchHooks, renderHookBench } from "./hook-bench.js";
import { benchIndex, renderIndexBench } from "./index-bench.js";
import { loadTasks, renderLocalize, runLocalize } from "./localize.js";
import { auditRankingCode, formatAuditProblems, RANKING_DIRS } from "./localize/audit.js";
import { fitReport, loadDump, renderFitReport } from "./localize/fit.js";
import { fitSymbolReport, loadSymbolDump, renderSymbolFit } from "./localize/fit-symbols.js";
import { Rung } from "./localize/ladder.js";
import { benchPerf, type PerfGroup, renderPerf } from "./perf.js";
import { renderRecallEval, runRecallEval } from "./recall.js";
import { evalSegment, renderSegmentEval } from "./segment.js";
import { renderGoldEval, runGoldEval } from "./summary/gold.js";
import { renderLabelled, runLabelled } from "./summary/labelled.js";
import { renderSummaryEval, runSummaryEval } from "./summary/run.js";
import { measureToolSize, renderToolSize } from "./tool-size.js";

/** What an eval command prints: `data` with --json, else `text`. */
export interface EvalOutput {
  data: unknown;
  text: string;
}

/** Runs `fn` with a scratch folder that is always removed. */
async function inWorkDir<T>(prefix: string, fn: (dir: string) => Promise<T> | T): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function writeReport(out: string | undefined, name: string, data: unknown, text: string): void {
  if (!out) return;
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, `${name}.json`), JSON.stringify(data, null, 2));
  writeFileSync(join(out, `${name}.md`), text + "\n");
}

export function evalIndex(opts: { repo: string }, config: Config, logger: Logger): Promise<EvalOutput> {
  return inWorkDir("memcards-bench-", async (workDir) => {
    const line = createProgressLine(true);
    const r = await benchIndex({
      repo: resolvePath(opts.repo),
      workDir,
      config,
      logger,
      onStep: (s) => line.update(`${s}…`),
    });
    line.done();
    return { data: r, text: renderIndexBench(r) };
  });
}

export function evalBench(opts: { source: string; tokens: number }): Promise<EvalOutput> {
  return inWorkDir("memcards-bench-", (workDir) => {
    const b = benchCompress({ source: resolvePath(opts.source), workDir, targetTokens: opts.tokens });
    return { data: b, text: renderCompressBench(b) };
  });
}

/** A labelled set's `second.jsonl` beside `turns.jsonl` is the second labeller's unless --second names one. */
export function evalSegmentCommand(opts: { set: string; second?: string }): EvalOutput {
  const second =
    opts.second ?? (opts.set.endsWith("turns.jsonl") ? opts.set.replace(/turns\.jsonl$/, "second.jsonl") : undefined);
  const r = evalSegment(resolvePath(opts.set), second && existsSync(second) ? resolvePath(second) : undefined);
  return { data: r, text: renderSegmentEval(r) };
}

export interface CompressEvalFlags {
  transcripts?: string;
  budget: number;
  queryBudget: number;
  labelled?: string;
  out?: string;
  dir?: string;
  only?: string[];
}

export function evalCompressCommand(opts: CompressEvalFlags): Promise<EvalOutput> {
  if (!opts.transcripts && !opts.dir)
    throw new AppError(
      "BAD_INPUT",
      "pass --transcripts <dir> (the five-system evaluation) or --dir <dir> (the committed-probe table)",
    );
  return inWorkDir("memcards-compress-", (workDir) => {
    const line = createProgressLine(true);
    if (!opts.transcripts) {
      const rows = evalCompress({
        dir: resolvePath(opts.dir!),
        workDir,
        ...(opts.only ? { files: opts.only } : {}),
        onFile: (f) => line.update(`${f}…`),
      });
      line.done();
      return { data: rows, text: renderCompressEval(rows) };
    }
    if (!Number.isInteger(opts.budget) || opts.budget < 100)
      throw new AppError("BAD_INPUT", `--budget must be a whole number of tokens ≥ 100 (got ${opts.budget})`);
    const dir = resolvePath(opts.transcripts);
    if (!existsSync(dir)) throw new AppError("NOT_FOUND", `no such folder: ${dir}`);
    if (opts.labelled && !existsSync(opts.labelled))
      throw new AppError("NOT_FOUND", `--labelled: no such file: ${resolvePath(opts.labelled)}`);
    const r = runFiveSystems({
      dir,
      workDir,
      budget: opts.budget,
      queryBudget: opts.queryBudget,
      ...(opts.labelled ? { labelled: resolvePath(opts.labelled) } : {}),
      ...(opts.only ? { files: opts.only } : {}),
      onFile: (f) => line.update(`${f}…`),
    });
    line.done();
    if (opts.out) {
      const out = resolvePath(opts.out);
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, "compress-systems.json"), `${JSON.stringify(r, null, 2)}\n`);
      writeFileSync(join(out, "compress-systems.svg"), fiveSystemsSvg(r));
      process.stderr.write(`wrote ${join(out, "compress-systems.json")} and ${join(out, "compress-systems.svg")}\n`);
    }
    return { data: r, text: renderFiveSystems(r) };
  });
}

export interface SummaryEvalFlags {
  transcripts: string;
  budget?: number;
  labelled?: string;
  gold?: string;
  keepRecent?: number;
  only?: string[];
}

/** Per-section precision and recall of the summary against each transcript's own structure, or the labelled set. */
export function evalSummaryCommand(opts: SummaryEvalFlags): Promise<EvalOutput> {
  if (opts.budget !== undefined && (!Number.isInteger(opts.budget) || opts.budget < 200 || opts.budget > 50_000))
    throw new AppError("BAD_INPUT", `--budget must be a whole number of tokens from 200 to 50000 (got ${opts.budget})`);
  const dir = resolvePath(opts.transcripts);
  if (!existsSync(dir)) throw new AppError("NOT_FOUND", `no such folder: ${dir}`);
  return inWorkDir("memcards-summary-", (workDir) => {
    const line = createProgressLine(true);
    const onFile = (f: string) => line.update(`${f}…`);
    const budget = opts.budget !== undefined ? { budget: opts.budget } : {};
    if (opts.gold) {
      const gold = resolvePath(opts.gold);
      if (!existsSync(gold)) throw new AppError("NOT_FOUND", `no such folder: ${gold}`);
      const keep = opts.keepRecent !== undefined ? { keepRecent: opts.keepRecent } : {};
      const only = opts.only ? { files: opts.only } : {};
      const r = runGoldEval({ dir, gold, workDir, ...budget, ...keep, ...only, onFile });
      line.done();
      return { data: r, text: renderGoldEval(r) };
    }
    if (opts.labelled) {
      const r = runLabelled({ dir, labelled: resolvePath(opts.labelled), workDir, ...budget, onFile });
      line.done();
      return { data: r, text: renderLabelled(r) };
    }
    const r = runSummaryEval({ dir, workDir, ...budget, ...(opts.only ? { files: opts.only } : {}), onFile });
    line.done();
    return { data: r, text: renderSummaryEval(r) };
  });
}

export interface TaskEvalFlags {
  tasks: string;
  repos?: string;
  cache: string;
  limit?: string;
  only?: string;
  out?: string;
  keepStores?: boolean;
  rungs?: string[];
  latencyRepo?: string;
  calibrate?: boolean;
  dump?: string;
}

const onTask = (i: number, n: number, id: string, note: string) => process.stderr.write(`[${i}/${n}] ${id}: ${note}\n`);

function tasksOf(opts: TaskEvalFlags) {
  let tasks = loadTasks(opts.tasks);
  if (opts.only) tasks = tasks.filter((t) => t.id.includes(opts.only!));
  if (opts.limit) tasks = tasks.slice(0, Number(opts.limit));
  return tasks;
}

export async function evalLocalize(opts: TaskEvalFlags, config: Config, logger: Logger): Promise<EvalOutput> {
  const report = await runLocalize({
    tasks: tasksOf(opts),
    ...(opts.repos ? { reposDir: resolvePath(opts.repos) } : {}),
    cacheDir: resolvePath(opts.cache),
    keepStores: opts.keepStores ?? false,
    ...(opts.rungs ? { rungs: opts.rungs.map((r) => Rung.parse(r)) } : {}),
    ...(opts.dump ? { dumpFile: resolvePath(opts.dump) } : {}),
    config,
    logger,
    onTask,
  });
  const text = renderLocalize(report);
  writeReport(opts.out, "report", report, text);
  return { data: report, text };
}

/** `eval fit-weights`: the fusion fitted on development dumps, cross-validated, applied to held-back dumps. */
export function evalFitWeights(opts: { dump: string[]; heldOut?: string[] }): EvalOutput {
  const dev = opts.dump.flatMap((f) => loadDump(resolvePath(f)));
  const held = (opts.heldOut ?? []).flatMap((f) => loadDump(resolvePath(f)));
  const report = fitReport(dev, held);
  return { data: report, text: renderFitReport(report) };
}

/** `eval fit-symbols`: the symbol ranking's constants fitted on dumped symbol features, cross-validated by repository. */
export function evalFitSymbols(opts: { dump: string[] }): EvalOutput {
  const report = fitSymbolReport(opts.dump.flatMap((f) => loadSymbolDump(resolvePath(f))));
  return { data: report, text: renderSymbolFit(report) };
}

export async function evalCards(opts: TaskEvalFlags, config: Config, logger: Logger): Promise<EvalOutput> {
  if (opts.calibrate) {
    const { rows, errors } = await calibrationRows({
      tasks: tasksOf({ ...opts, only: undefined }),
      ...(opts.repos ? { reposDir: resolvePath(opts.repos) } : {}),
      cacheDir: resolvePath(opts.cache),
      keepStores: opts.keepStores ?? false,
      config,
      logger,
      onRepo: onTask,
    });
    const report = calibrate(rows, errors);
    const text = renderCalibration(report);
    writeReport(opts.out, "calibration", { ...report, table: rows }, text);
    return { data: report, text };
  }
  const report = await runCardsEval({
    tasks: tasksOf({ ...opts, only: undefined }),
    ...(opts.repos ? { reposDir: resolvePath(opts.repos) } : {}),
    cacheDir: resolvePath(opts.cache),
    keepStores: opts.keepStores ?? false,
    ...(opts.latencyRepo ? { latencyRepo: resolvePath(opts.latencyRepo) } : {}),
    config,
    logger,
    onTask,
  });
  const text = renderCardsEval(report);
  writeReport(opts.out, "cards", report, text);
  return { data: report, text };
}

export async function evalCardsSession(
  opts: { repo: string; out?: string },
  config: Config,
  logger: Logger,
): Promise<EvalOutput> {
  const report = await runSessionEval({ repo: resolvePath(opts.repo), config, logger });
  const text = renderSessionEval(report);
  writeReport(opts.out, "cards-session", report, text);
  return { data: report, text };
}

export async function evalToolSize(config: Config, version: string): Promise<EvalOutput> {
  const s = await measureToolSize(config, version);
  return { data: s, text: renderToolSize(s) };
}

export function evalRecall(opts: { locomo: string }): Promise<EvalOutput> {
  return inWorkDir("memcards-recall-", (workDir) => {
    const line = createProgressLine(true);
    const r = runRecallEval({
      file: resolvePath(opts.locomo),
      workDir,
      onConversation: (i, n) => line.update(`conversation ${i}/${n}…`),
    });
    line.done();
    return { data: r, text: renderRecallEval(r) };
  });
}

/** `eval crosssession`: earlier sessions of each multi-session project distilled, questions asked as a later session would. */
export function evalCrossSession(opts: { dir: string; only?: string[]; misses?: boolean }): Promise<EvalOutput> {
  const dir = resolvePath(opts.dir);
  if (!existsSync(dir)) throw new AppError("NOT_FOUND", `no such folder: ${dir}`);
  return inWorkDir("memcards-crosssession-", (workDir) => {
    const line = createProgressLine(true);
    const r = runCrossSession({
      dir,
      workDir,
      ...(opts.only ? { only: opts.only } : {}),
      misses: opts.misses ?? false,
      onProject: (p) => line.update(`${p}…`),
    });
    line.done();
    return { data: r, text: renderCrossSession(r) };
  });
}

/** `cli` is the entry each hook registration names (dist/cli.js). */
export function evalHooks(opts: { transcript: string; runs: number }, cli: string): Promise<EvalOutput> {
  return inWorkDir("memcards-hooks-", (workDir) => {
    const b = benchHooks({ cli, workDir, transcript: resolvePath(opts.transcript), runs: opts.runs });
    return { data: b, text: renderHookBench(b) };
  });
}

/** `eval perf`: every figure of the speed table beside its floor, on a private copy of `repo`. */
export function evalPerf(
  opts: {
    repo: string;
    tasks: number;
    runs: number;
    units: number[];
    only?: PerfGroup[];
    hooksBefore?: string;
    memoryTranscripts?: string;
  },
  cli: string,
  config: Config,
  logger: Logger,
): Promise<EvalOutput> {
  return inWorkDir("memcards-perf-", async (workDir) => {
    const line = createProgressLine(true);
    const r = await benchPerf({
      repo: resolvePath(opts.repo),
      workDir,
      cli,
      config,
      logger,
      tasks: opts.tasks,
      runs: opts.runs,
      units: opts.units,
      only: opts.only,
      ...(opts.hooksBefore ? { beforeCli: resolvePath(opts.hooksBefore) } : {}),
      ...(opts.memoryTranscripts ? { memoryTranscripts: resolvePath(opts.memoryTranscripts) } : {}),
      onStep: (s) => line.update(`${s}…`),
    });
    line.done();
    return { data: r, text: renderPerf(r) };
  });
}

/** The leakage audit over the package at `root`: problems as text, or an empty list. */
export function evalAudit(root: string): { ok: boolean; text: string } {
  const problems = auditRankingCode({ root });
  if (problems.length) return { ok: false, text: formatAuditProblems(problems) };
  return {
    ok: true,
    text: `leakage audit: ${RANKING_DIRS.join(", ")} never reference gold files, dev data or evaluation code`,
  };
}
