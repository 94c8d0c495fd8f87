// `memcards eval bench`: times compress_context on a ~200k-token Claude Code transcript built from a real one
// (records repeated with fresh uuids), against floors measured in the same run on the same text.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { compressContext } from "../src/session/compress.js";
import { openDatabase } from "../src/storage/db.js";
import { upsertProject } from "../src/storage/projects.js";
import { turnTokens } from "../src/transcript/compression/compress.js";
import { parseText, parseTranscriptFile } from "../src/transcript/formats/parse.js";

export interface CompressBench {
  source: string;
  bytes: number;
  tokens: number;
  turns: number;
  ms: { parse: number; tokenize: number; compress: number; recompressNoChange: number };
  ratios: { compressToTokenize: number };
  tokensPerSecond: number;
  summaryTokens: number;
  peakRssMb: number;
  rssGrowthMb: number;
}

/** Conversation tokens of a transcript: every turn's text, tool inputs and outputs. */
function conversationTokens(text: string): number {
  return parseText(text, "claude-code-jsonl").turns.reduce((a, t) => a + turnTokens(t), 0);
}

/** Repeats a Claude Code JSONL session until its conversation holds `targetTokens`, giving each copy new uuids. */
export function inflateClaudeTranscript(text: string, targetTokens: number): { text: string; tokens: number } {
  const base = conversationTokens(text);
  const copies = Math.max(1, Math.ceil(targetTokens / Math.max(1, base)));
  const parts: string[] = [];
  for (let i = 0; i < copies; i++) {
    parts.push(
      text.replace(
        /"(uuid|parentUuid|leafUuid)":"([0-9a-f-]{36})"/g,
        (_m, k: string, u: string) => `"${k}":"${u.slice(0, 30)}${String(i).padStart(6, "0")}"`,
      ),
    );
  }
  const out = parts.map((p) => (p.endsWith("\n") ? p : `${p}\n`)).join("");
  return { text: out, tokens: base * copies };
}

export function benchCompress(opts: { source: string; workDir: string; targetTokens?: number }): CompressBench {
  const raw = readFileSync(opts.source, "utf8");
  const { text } = inflateClaudeTranscript(raw, opts.targetTokens ?? 200_000);
  const path = join(opts.workDir, "session.jsonl");
  writeFileSync(path, text);
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sample = () => (peak = Math.max(peak, process.memoryUsage().rss));

  // Floors: reading the file into turns, and counting every turn's tokens (what any token accounting costs).
  let t = performance.now();
  const parsed = parseTranscriptFile(path);
  const parse = performance.now() - t;
  sample();
  t = performance.now();
  const tokens = parsed.turns.reduce((a, x) => a + turnTokens(x), 0);
  const tokenize = performance.now() - t;
  sample();

  const db = openDatabase(join(opts.workDir, "bench.db"));
  try {
    const project = upsertProject(db, "bench", opts.workDir);
    t = performance.now();
    const r = compressContext({ db, projectId: project.id, root: opts.workDir }, { transcriptPath: path });
    const compress = performance.now() - t;
    sample();
    t = performance.now();
    compressContext({ db, projectId: project.id, root: opts.workDir }, { transcriptPath: path });
    const again = performance.now() - t;
    sample();
    const r1 = (x: number) => Math.round(x * 10) / 10;
    return {
      source: opts.source,
      bytes: Buffer.byteLength(text),
      tokens,
      turns: r.stats.turns_total,
      ms: { parse: r1(parse), tokenize: r1(tokenize), compress: r1(compress), recompressNoChange: r1(again) },
      ratios: { compressToTokenize: r1(compress / Math.max(1, tokenize)) },
      tokensPerSecond: Math.round((tokens / compress) * 1000),
      summaryTokens: r.stats.tokens_after,
      peakRssMb: Math.round(peak / 1048576),
      rssGrowthMb: Math.round((peak - rss0) / 1048576),
    };
  } finally {
    db.close();
  }
}

export function renderCompressBench(b: CompressBench): string {
  return [
    `transcript: ${b.source} inflated to ${(b.bytes / 1048576).toFixed(1)} MB, ${b.tokens} conversation tokens, ${b.turns} turns`,
    `floor, parsing into turns:         ${b.ms.parse} ms`,
    `floor, counting every turn's tokens: ${b.ms.tokenize} ms`,
    `compress_context (parse, summarize, probes, distil, store): ${b.ms.compress} ms  (${b.ratios.compressToTokenize}x tokenize floor), ${b.tokensPerSecond} tokens/s → ${b.summaryTokens}-token summary`,
    `again, nothing new:                ${b.ms.recompressNoChange} ms`,
    `peak RSS ${b.peakRssMb} MB (+${b.rssGrowthMb} MB during the run)`,
  ].join("\n");
}
