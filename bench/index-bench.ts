// `memcards eval index`: times the graph build against two floors measured in the same run on the same files:
// a raw read of every file (I/O floor) and a parse with symbol/import extraction and nothing stored (compute floor).
import { appendFileSync, cpSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { z } from "zod";

import { createApp } from "../src/app.js";
import type { Config } from "../src/config.js";
import { buildGraph } from "../src/graph/build-graph.js";
import type { Logger } from "../src/log.js";
import { resolveProjectRoot } from "../src/project/root.js";
import type { LanguageId } from "../src/repo/languages.js";
import { createParser } from "../src/repo/parse.js";
import { scanRepo } from "../src/repo/scan.js";

export const IndexBench = z.object({
  repo: z.string(),
  files: z.number(),
  bytes: z.number(),
  symbols: z.number(),
  ms: z.object({
    read: z.number(),
    parse: z.number(),
    lexical: z.number(),
    full: z.number(),
    noChange: z.number(),
    watchFirst: z.number().nullable(),
    watch: z.number().nullable(),
  }),
  ratios: z.object({
    lexicalToParse: z.number(),
    fullToParse: z.number(),
    fullToRead: z.number(),
    noChangeToRead: z.number(),
  }),
  filesPerSecond: z.number(),
  peakRssMb: z.number(),
  embedder: z.string(),
  counts: z.object({ nodes: z.record(z.string(), z.number()), edges: z.record(z.string(), z.number()) }),
});
export type IndexBench = z.infer<typeof IndexBench>;

const now = () => performance.now();
const round = (x: number) => Math.round(x * 10) / 10;

/**
 * Runs the benchmark on a private copy of the repository's indexable files (the watcher step edits a file),
 * with a fresh database in `workDir`.
 */
export async function benchIndex(opts: {
  repo: string;
  workDir: string;
  config: Config;
  logger: Logger;
  onStep?: (step: string) => void;
}): Promise<IndexBench> {
  const { logger } = opts;
  const step = (s: string) => opts.onStep?.(s);
  step("scan");
  const scan = scanRepo(opts.repo);
  const copy = join(opts.workDir, "tree");
  for (const f of scan.files) {
    mkdirSync(join(copy, f.path, ".."), { recursive: true });
    cpSync(f.absPath, join(copy, f.path));
  }

  step("read floor");
  const files = scanRepo(copy, { useGit: false }).files;
  let t = now();
  let bytes = 0;
  const contents: string[] = [];
  for (const f of files) {
    const text = readFileSync(f.absPath, "utf8");
    bytes += text.length;
    contents.push(text);
  }
  const readMs = now() - t;

  step("parse floor");
  const parser = createParser();
  let symbols = 0;
  t = now();
  await parser.preload([...new Set(files.map((f) => f.language).filter((l): l is LanguageId => !!l))]);
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    if (!f.language) continue;
    const parsed = await parser.parseFile(f.path, contents[i]!, f.language);
    symbols += parsed.symbols.length;
  }
  const parseMs = now() - t;
  parser.dispose();
  contents.length = 0;

  step("full index");
  const config: Config = { ...opts.config, root: copy, db: join(opts.workDir, "bench.db") };
  const location = resolveProjectRoot({ explicit: copy, cwd: copy, userDir: config.userDir });
  const app = createApp(config, location, logger);
  try {
    t = now();
    let lexicalMs = 0;
    const full = await buildGraph(app.scope, app, {
      onProgress: (p) => {
        if (p.phase === "done") lexicalMs = now() - t;
      },
    });
    const fullMs = now() - t;

    step("no-change re-run");
    t = now();
    await buildGraph(app.scope, app);
    const noChangeMs = now() - t;

    step("watcher");
    const target = files.find((f) => f.language === "python") ?? files.find((f) => f.language) ?? files[0];
    let watchFirst: number | null = null;
    let watch: number | null = null;
    if (target) {
      let resolveIndexed: (() => void) | undefined;
      const w = app.graph.watch({ debounceMs: 50, onIndexed: () => resolveIndexed?.() });
      await w.ready;
      const change = async (n: number) => {
        const done = new Promise<void>((r) => (resolveIndexed = r));
        const start = now();
        appendFileSync(join(copy, target.path), `\n# memcards bench edit ${n}\n`);
        const timeout = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 30_000));
        const res = await Promise.race([done, timeout]);
        return res === "timeout" ? null : now() - start;
      };
      if (w.active) {
        watchFirst = await change(1);
        await new Promise((r) => setTimeout(r, 300));
        watch = await change(2);
      }
      await w.close();
    }
    return {
      repo: opts.repo,
      files: files.length,
      bytes,
      symbols,
      ms: {
        read: round(readMs),
        parse: round(parseMs),
        lexical: round(lexicalMs),
        full: round(fullMs),
        noChange: round(noChangeMs),
        watchFirst: watchFirst === null ? null : round(watchFirst),
        watch: watch === null ? null : round(watch),
      },
      ratios: {
        lexicalToParse: round(lexicalMs / parseMs),
        fullToParse: round(fullMs / parseMs),
        fullToRead: round(fullMs / readMs),
        noChangeToRead: round(noChangeMs / readMs),
      },
      filesPerSecond: Math.round(files.length / (fullMs / 1000)),
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      embedder: app.embedding.embedder.id,
      counts: full.counts,
    };
  } finally {
    await app.close();
  }
}

export function renderIndexBench(b: IndexBench): string {
  const s = (ms: number | null) => (ms === null ? "n/a" : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms} ms`);
  return [
    `repository: ${b.repo} — ${b.files} files, ${(b.bytes / 1e6).toFixed(1)} MB, ${b.symbols} symbols; embedder ${b.embedder}`,
    `read floor (I/O):              ${s(b.ms.read)}`,
    `parse floor (tree-sitter):     ${s(b.ms.parse)}`,
    `lexical index usable:          ${s(b.ms.lexical)}  (${b.ratios.lexicalToParse}x parse floor)`,
    `full index (with vectors):     ${s(b.ms.full)}  (${b.ratios.fullToParse}x parse floor, ${b.ratios.fullToRead}x read floor), ${b.filesPerSecond} files/s`,
    `no-change re-run:              ${s(b.ms.noChange)}  (${b.ratios.noChangeToRead}x read floor)`,
    `watcher, one-file change:      ${s(b.ms.watch)}  (first change after start: ${s(b.ms.watchFirst)})`,
    `peak RSS:                      ${b.peakRssMb} MB`,
  ].join("\n");
}
