// Turning scanned files into graph nodes (read, parse, tokenize): in this thread, or in a worker thread so that
// parsing the next batch overlaps with writing the current one.
import { Worker } from "node:worker_threads";

import type { LanguageId } from "../repo/languages.js";
import { createParser, type RepoParser } from "../repo/parse.js";
import { rereadScanned, type ScannedFile } from "../repo/scan.js";
import type { ImportRef } from "../repo/symbols.js";
import type { NodeInput } from "../storage/graph/nodes.js";
import { redact } from "../text/redact.js";
import { siblingWorkerFile, workerExecArgv } from "../worker-file.js";
import { fileNodes } from "./file-nodes.js";

/** What is needed of a scanned file to prepare it (content is read when absent). */
export type PrepareInput = Pick<ScannedFile, "path" | "absPath" | "language" | "hash" | "content">;

export interface PreparedFile {
  path: string;
  parser: string | null;
  imports: ImportRef[];
  nodes: NodeInput[];
  symbols: number;
  fallback: boolean;
  /** Over the per-file parse budget: indexed lexically. */
  overBudget: boolean;
}

export interface Preparer {
  preload(languages: readonly LanguageId[]): Promise<void>;
  prepare(files: readonly PrepareInput[]): Promise<PreparedFile[]>;
  dispose(): Promise<void>;
}

function readContent(f: PrepareInput): string | undefined {
  if (f.content !== undefined) return f.content;
  // Only the bytes the scan checked: a file gone or replaced since the scan is not read.
  return rereadScanned(f.absPath, f.hash);
}

/**
 * Prepares files with a parser in this thread. Content is redacted before anything is derived from it (symbols,
 * summaries, search tokens, vector text): a `.env` or `settings.py` is indexed without its secrets. Redaction keeps
 * line counts, so line numbers stay those of the file on disk. A file changed since the scan is left out.
 */
export async function prepareFiles(parser: RepoParser, files: readonly PrepareInput[]): Promise<PreparedFile[]> {
  const out: PreparedFile[] = [];
  for (const f of files) {
    const read = readContent(f);
    // Saved again (or gone) since the scan: left out, so the index keeps what it held and the next run (which sees
    // a new stamp) indexes what is there; indexed empty, the file's symbols would lose their ids.
    if (read === undefined) continue;
    const content = redact(read);
    const parsed = f.language ? await parser.parseFile(f.path, content, f.language) : undefined;
    out.push({
      path: f.path,
      parser: parsed?.parser ?? null,
      imports: parsed?.imports ?? [],
      nodes: fileNodes(f, content, parsed),
      symbols: parsed?.symbols.length ?? 0,
      fallback: parsed?.parser === "regex" && !!parsed.fallbackReason && !parsed.overBudget,
      overBudget: !!parsed?.overBudget,
    });
  }
  return out;
}

/** A preparer in this thread (small changes; the watcher's long-lived parser). */
export function localPreparer(parser?: RepoParser): Preparer {
  const p = parser ?? createParser();
  return {
    preload: (langs) => p.preload(langs),
    prepare: (files) => prepareFiles(p, files),
    dispose: async () => {
      if (!parser) p.dispose();
    },
  };
}

type Reply = { id: number; ok: true; result: PreparedFile[] } | { id: number; ok: false; message: string };

/** A preparer in a worker thread with its own parser. */
export function workerPreparer(): Preparer {
  const worker = new Worker(siblingWorkerFile(import.meta.url, "prepare-worker"), { execArgv: workerExecArgv() });
  let next = 0;
  const pending = new Map<number, { resolve: (r: PreparedFile[]) => void; reject: (e: Error) => void }>();
  worker.on("message", (msg: Reply) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new Error(msg.message));
  });
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on("error", failAll);
  worker.on("exit", (code) => failAll(new Error(`parse worker exited with code ${code}`)));
  const call = <T>(msg: Record<string, unknown>) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (r: PreparedFile[]) => void, reject });
      worker.postMessage({ ...msg, id });
    });
  return {
    preload: (languages) => call<void>({ type: "preload", languages }),
    // Content is re-read in the worker rather than copied across threads.
    prepare: (files) =>
      call<PreparedFile[]>({
        type: "prepare",
        files: files.map((f) => ({ path: f.path, absPath: f.absPath, language: f.language, hash: f.hash })),
      }),
    dispose: async () => {
      await worker.terminate();
    },
  };
}
