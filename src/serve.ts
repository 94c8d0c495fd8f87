// `memcards serve`: the MCP server on stdio (default) or Streamable HTTP, with a clean shutdown.
import { existsSync } from "node:fs";

import type { AppCache } from "./app-cache.js";
import type { Config } from "./config.js";
import { MAX_MESSAGE_BYTES } from "./limits.js";
import type { Logger } from "./log.js";
import { resolveProjectRoot } from "./project/root.js";
import { createServer } from "./server.js";
import { boundedStdioTransport } from "./transport/stdio.js";

export interface ServeOptions {
  config: Config;
  logger: Logger;
  version: string;
  cwd: string;
  http?: boolean;
  /** Path of the registration example shown to a user who started the server by hand. */
  exampleConfigPath: string;
  /** The CLI entry (dist/cli.js): with it, a server for a project with a store starts the resident hook worker. */
  cli?: string;
}

/** Serves until stdin closes (stdio), or until SIGTERM/SIGINT. Resolves when shut down. */
export async function serve(opts: ServeOptions): Promise<void> {
  // The app code (store, embedder, ranker) loads on the first call or the warm-up, never before tools are listed.
  // A failed load is tried again on the next call rather than kept, as a tool's own code is.
  let cache: Promise<AppCache> | undefined;
  const apps = (): Promise<AppCache> => {
    if (cache) return cache;
    const loading = import("./app-cache.js").then(({ createAppCache }) => createAppCache(opts.config, opts.logger));
    cache = loading;
    loading.catch(() => {
      if (cache === loading) cache = undefined;
    });
    return loading;
  };
  const newServer = () => createServer({ ...opts, apps });
  let stopping: Promise<void> | undefined;
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  let closeTransport: () => Promise<void> = async () => undefined;

  const stop = async (why: string) => {
    opts.logger.info(`shutting down (${why})`);
    await closeTransport().catch(() => undefined);
    // Only apps that were opened are closed; app code that never loaded has nothing to close.
    const opened = await cache?.catch(() => undefined);
    await opened?.closeAll().catch((err: unknown) => opts.logger.error(`close failed: ${(err as Error).message}`));
    done();
  };
  // Closing the transport calls back into shutdown; `stopping` is set before any close runs (the stop starts
  // on the next tick), so that call joins this one instead of ending the process before background work is done.
  const shutdown = (why: string) => (stopping ??= Promise.resolve().then(() => stop(why)));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));

  if (opts.http) {
    // The HTTP stack loads only for --http: a stdio server starts without it.
    const { serveHttp } = await import("./transport/http.js");
    const handle = await serveHttp({ ...opts.config.http, logger: opts.logger, newServer });
    closeTransport = () => handle.close();
    opts.logger.info(`serving MCP over Streamable HTTP at ${handle.url}`);
    if (opts.config.http.token) opts.logger.info("clients must send Authorization: Bearer <token>");
  } else {
    const server = newServer();
    const transport = boundedStdioTransport({ maxBytes: MAX_MESSAGE_BYTES, logger: opts.logger });
    closeTransport = () => server.close();
    // A transport that closes for any other reason ends the process, loudly, rather than leaving it deaf.
    server.server.onclose = () => void shutdown("transport closed");
    // The SDK's stdio transport does not end the process when the client goes away: do it here.
    process.stdin.once("end", () => void shutdown("stdin closed"));
    process.stdin.once("close", () => void shutdown("stdin closed"));
    // Once the client is connected, load what the first get_memory_cards needs, so that call is not the slow one. A
    // timer, not an unref'd immediate: that one would wait in the event loop's poll until the client's next message.
    server.server.oninitialized = () => void setTimeout(() => void warmUp(opts, apps), 0).unref();
    await server.connect(transport);
    if (process.stdin.isTTY) await printBanner(opts, apps);
  }
  await finished;
}

/**
 * Opens the project's store and builds the ranker's indexes (graph universe, whole-file BM25, tokenizer) ahead of
 * the first call. Only for a project that already has a store: starting a server never creates one.
 */
async function warmUp(opts: ServeOptions, apps: () => Promise<AppCache>): Promise<void> {
  try {
    const location = resolveProjectRoot({ explicit: opts.config.root, cwd: opts.cwd, userDir: opts.config.userDir });
    if (!existsSync(opts.config.db ?? location.defaultDbPath)) return;
    if (opts.cli && process.env.MEMCARDS_HOOK_WORKER !== "0") {
      // Claude Code runs a hook on every prompt and edit: a worker started now answers them without a cold start.
      const { ensureWorker, workerPlace } = await import("./integrate/worker-client.js");
      await ensureWorker(workerPlace(process.env, opts.cli), opts.cli, process.env);
    }
    const app = (await apps()).forLocation(location);
    // The cards path: its code, the ranker's in-memory state (the vectors' copy), then one whole call that records
    // nothing (the tokenizer's tables, the stored term counts, the prepared statements, code compiled on first use).
    await import("./mcp/tools/get-memory-cards.run.js");
    const { warmCards } = await import("./cards/service.js");
    app.ranker.warm();
    await app.ranker.warmed();
    await warmCards({ ...app.scope, ranker: app.ranker });
    opts.logger.debug("warmed up the ranker");
  } catch (err) {
    opts.logger.debug(`warm-up skipped: ${(err as Error).message}`);
  }
}

/** Tells a person who ran `memcards serve` in a terminal what it is and how to register it. */
async function printBanner(opts: ServeOptions, apps: () => Promise<AppCache>): Promise<void> {
  const log = (s: string) => process.stderr.write(s + "\n");
  log(`memcards ${opts.version}: MCP server on stdio, waiting for a client (Ctrl-C to stop).`);
  log(
    `Register it with your agent: see ${opts.exampleConfigPath} (or run: claude mcp add memcards -- ${process.execPath} ${process.argv[1] ?? "dist/cli.js"} serve).`,
  );
  try {
    const location = resolveProjectRoot({ explicit: opts.config.root, cwd: opts.cwd, userDir: opts.config.userDir });
    const app = (await apps()).forLocation(location);
    log(
      `project root: ${location.root} (from ${location.source}; a client's MCP roots take precedence when it sends them)`,
    );
    log(`database:     ${app.dbPath}`);
    log(`embedder:     ${app.embedding.embedder.id} (${app.embedding.embedder.mode})`);
  } catch (err) {
    log(`project: not resolved yet (${(err as Error).message})`);
  }
}
