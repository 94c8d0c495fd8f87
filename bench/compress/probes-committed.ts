// `memcards eval compress`: compresses real transcripts and scores the summaries with the probes committed
// beside them (exact strings a good summary must keep), against a sliding window of the same size.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { z } from "zod";

import { compressContext } from "../../src/session/compress.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { countTokens } from "../../src/text/tokens.js";
import { checkProbes } from "../../src/transcript/compression/probes.js";
import type { Probe } from "../../src/transcript/schema.js";
import { compressForEval } from "./run.js";
import { slidingWindow } from "./systems.js";

const ProbeFile = z.record(
  z.string(),
  z.object({ format: z.string().optional(), probes: z.array(z.object({ type: z.string(), expect: z.string() })) }),
);

export interface CompressEvalRow {
  file: string;
  format: string;
  turns: number;
  summarized: number;
  skipped: number;
  tokens_before: number;
  tokens_after: number;
  ratio: number;
  /** Committed probes against the summary before re-insertion, overall and per type. */
  probes: { score: number; total: number; by_type: Record<string, string> } | null;
  /** The same probes against the continuation context: summary (before re-insertion) + kept recent messages. */
  context: { score: number; tokens: number } | null;
  /** The same probes against a window of the transcript's last turns as large as that context. */
  window: { score: number } | null;
  /** Committed probes against the summary built in two compressions (first half, then the rest). */
  halves: { score: number } | null;
  /** The summary's own probes (generated from the turns): before and after re-insertion, per type before. */
  own: { before: number; after: number; total: number; by_type: Record<string, string> };
  ms: number;
}

function asProbes(list: { type: string; expect: string }[]): Probe[] {
  return list.map((p) => ({ type: p.type as Probe["type"], expect: [p.expect], turn: "", fact: p.expect }));
}

function byType(r: ReturnType<typeof checkProbes>): Record<string, string> {
  return Object.fromEntries(Object.entries(r.by_type).map(([k, v]) => [k, `${v.passed}/${v.total}`]));
}

/** Evaluates every transcript in `dir` (or the named files), each in a fresh store under `workDir`. */
export function evalCompress(opts: {
  dir: string;
  workDir: string;
  files?: string[];
  onFile?: (f: string) => void;
}): CompressEvalRow[] {
  const probesPath = join(opts.dir, "probes.json");
  const committed = existsSync(probesPath) ? ProbeFile.parse(JSON.parse(readFileSync(probesPath, "utf8"))) : {};
  const files = (opts.files ?? readdirSync(opts.dir).sort()).filter((f) => !f.endsWith(".json") && !f.startsWith("."));
  const rows: CompressEvalRow[] = [];
  files.forEach((file, i) => {
    opts.onFile?.(file);
    const path = join(opts.dir, file);
    const db = openDatabase(join(opts.workDir, `c${i}.db`));
    const db2 = openDatabase(join(opts.workDir, `h${i}.db`));
    try {
      const project = upsertProject(db, `eval:${file}`, opts.workDir);
      const r = compressForEval({ db, projectId: project.id, root: opts.workDir }, { transcriptPath: path });
      const ext = committed[file] ? asProbes(committed[file].probes) : undefined;
      const extReport = ext ? checkProbes(ext, r.draft) : undefined;
      const contextTokens = countTokens(r.draft_context);
      const context = ext ? { score: checkProbes(ext, r.draft_context).score, tokens: contextTokens } : null;
      const window = ext ? checkProbes(ext, slidingWindow(r.all_turns, contextTokens)) : undefined;
      // Incremental: the first half, then the rest, merged.
      let halves: { score: number } | null = null;
      if (ext) {
        const p2 = upsertProject(db2, `eval:${file}`, opts.workDir);
        const half = Math.floor(r.stats.turns_total / 2);
        compressContext({ db: db2, projectId: p2.id, root: opts.workDir, limitTurns: half }, { transcriptPath: path });
        const second = compressForEval({ db: db2, projectId: p2.id, root: opts.workDir }, { transcriptPath: path });
        halves = { score: checkProbes(ext, second.draft).score };
      }
      rows.push({
        file,
        format: r.source.format,
        turns: r.stats.turns_total,
        summarized: r.stats.turns_summarized,
        skipped: r.stats.skipped,
        tokens_before: r.stats.tokens_before,
        tokens_after: r.stats.tokens_after,
        ratio: r.stats.ratio,
        probes: extReport ? { score: extReport.score, total: extReport.total, by_type: byType(extReport) } : null,
        context,
        window: window ? { score: window.score } : null,
        halves,
        own: {
          before: r.probes.before.score,
          after: r.probes.after.score,
          total: r.probes.before.total,
          by_type: byType(r.probes.before),
        },
        ms: r.stats.ms,
      });
    } finally {
      db.close();
      db2.close();
    }
  });
  return rows;
}

const f2 = (x: number) => x.toFixed(2);

export function renderCompressEval(rows: CompressEvalRow[]): string {
  const head =
    "| transcript | format | turns (summarized, skipped) | tokens before → after | ratio | probes: summary | by type | probes: summary + recent (tokens) | window of that size | two halves | own probes before → after | ms |\n|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|";
  const body = rows.map((r) =>
    [
      r.file,
      r.format,
      `${r.turns} (${r.summarized}, ${r.skipped})`,
      `${r.tokens_before} → ${r.tokens_after}`,
      r.ratio.toFixed(1),
      r.probes ? `${f2(r.probes.score)} (${r.probes.total})` : "—",
      r.probes
        ? Object.entries(r.probes.by_type)
            .map(([k, v]) => `${k} ${v}`)
            .join(", ")
        : Object.entries(r.own.by_type)
            .map(([k, v]) => `${k} ${v}`)
            .join(", "),
      r.context ? `${f2(r.context.score)} (${r.context.tokens})` : "—",
      r.window ? f2(r.window.score) : "—",
      r.halves ? f2(r.halves.score) : "—",
      `${f2(r.own.before)} → ${f2(r.own.after)} (${r.own.total})`,
      r.ms,
    ].join(" | "),
  );
  const withProbes = rows.filter((r) => r.probes);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const foot = withProbes.length
    ? `\nMean over the ${withProbes.length} transcripts with committed probes: summary ${f2(mean(withProbes.map((r) => r.probes!.score)))}, summary + recent ${f2(mean(withProbes.map((r) => r.context!.score)))}, window ${f2(mean(withProbes.map((r) => r.window!.score)))}, two halves ${f2(mean(withProbes.map((r) => r.halves!.score)))}, ratio ${mean(withProbes.map((r) => r.ratio)).toFixed(1)}.`
    : "";
  return `${head}\n${body.map((b) => `| ${b} |`).join("\n")}\n${foot}`;
}
