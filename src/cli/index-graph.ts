// `memcards index` (build or refresh the context graph, optionally watching) and `memcards graph neighbors`.
import { rmSync, statSync } from "node:fs";
import { resolve as resolvePath } from "node:path";

import { type Command, Option } from "commander";

import { AppError } from "../errors.js";
import { buildGraph, type GraphBuildOptions } from "../graph/build-graph.js";
import { assertIndexed } from "../graph/index-repository.js";
import { neighborhood } from "../graph/neighborhood.js";
import { renderBuild, renderNeighborhood } from "../graph/render.js";
import { watchUntilSignal } from "../graph/service.js";
import { bar, createProgressLine, type ProgressLine } from "../progress.js";
import { configFrom, openApp, print, withApp } from "./shared.js";

interface IndexFlags {
  json?: boolean;
  lexicalOnly?: boolean;
  watch?: boolean;
  releaseLock?: string;
}

/** One progress line per phase: files parsed with rate, vectors embedded, then the later phases. */
export function indexProgress(line: ProgressLine): NonNullable<GraphBuildOptions["onProgress"]> {
  return (p) => {
    const secs = (p.elapsedMs / 1000).toFixed(1);
    if (p.phase === "parse") {
      const rate = p.elapsedMs > 0 ? Math.round((p.done / p.elapsedMs) * 1000) : 0;
      line.update(
        `${bar(p.done, p.total)} ${p.done}/${p.total} files, ${p.symbols} symbols, ${rate} files/s, ${secs}s`,
        p.phase,
      );
    } else if (p.phase === "embed") line.update(`vectors: ${p.done} embedded, ${secs}s`, p.phase);
    else line.update(`${p.phase}… ${secs}s`, p.phase);
  };
}

/** The [path] argument in the command's own words: it must be an existing folder. */
function checkIndexPath(abs: string): void {
  const st = statSync(abs, { throwIfNoEntry: false });
  if (!st) throw new AppError("NOT_FOUND", `${abs} does not exist: give memcards index an existing project folder.`);
  if (!st.isDirectory())
    throw new AppError("NOT_A_DIRECTORY", `${abs} is a file: give memcards index the project's folder.`);
}

export function registerIndex(program: Command): void {
  program
    .command("index [path]")
    .description("build or refresh the context graph of the project at path (default: the resolved root); incremental")
    .option("--json", "print JSON")
    .option("--lexical-only", "skip vectors (the lexical index and graph only)")
    .option("--watch", "keep the graph fresh as files change, until Ctrl-C")
    .addOption(
      new Option("--release-lock <file>", "remove this lock file when done (used by the PostToolUse hook)").hideHelp(),
    )
    .action(async (path: string | undefined, opts: IndexFlags, cmd: Command) => {
      if (path !== undefined) checkIndexPath(resolvePath(path));
      const app = openApp(configFrom(cmd, path ? { root: resolvePath(path) } : {}), { needsProject: true });
      if (opts.releaseLock) app.onClose(() => rmSync(opts.releaseLock!, { force: true }));
      try {
        const line = createProgressLine(!opts.json || process.stderr.isTTY);
        const result = await buildGraph(app.scope, app, {
          lexicalOnly: opts.lexicalOnly ?? false,
          onProgress: indexProgress(line),
        });
        line.done();
        print(opts.json, result, renderBuild(result));
        if (opts.watch) await watchUntilSignal(app.graph, app.logger, app.location.root);
      } finally {
        await app.close();
      }
    });
}

export function registerGraph(program: Command): void {
  const graph = program.command("graph").description("inspect the context graph");
  graph
    .command("neighbors <ref>")
    .description("a node's one-hop neighborhood: give a repo path, a symbol name (or Parent.name) or a node id")
    .option("--json", "print JSON")
    .action(async (ref: string, opts: { json?: boolean }, cmd: Command) => {
      await withApp(configFrom(cmd), (app) => {
        assertIndexed(app.db);
        const n = neighborhood(app.db, ref);
        print(opts.json, n, renderNeighborhood(n));
      });
    });
}
