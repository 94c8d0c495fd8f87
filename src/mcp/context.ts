// Per-connection project context: resolves the root once, using the client's MCP roots when it offers them.
import { fileURLToPath } from "node:url";

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import type { App } from "../app.js";
import type { AppCache } from "../app-cache.js";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import { resolveProjectRoot } from "../project/root.js";
import { rootRefusal } from "../project/store.js";
import { type ClientModel, clientModel } from "./sampling.js";

export interface ToolDeps {
  /** The app for this connection's project, opened on first use. */
  app(): Promise<App>;
  /** The client's MCP roots as local paths (empty when it offers none), asked for even under --root. */
  roots(): Promise<string[]>;
  /** The client's model, when the client offers sampling. */
  clientModel(): ClientModel | undefined;
  logger: Logger;
  version: string;
}

const ROOTS_TIMEOUT_MS = 3000;

/** Builds the dependencies tools receive, bound to one server (one client connection). */
export function createToolDeps(
  server: McpServer,
  opts: { config: Config; apps: AppCache | (() => Promise<AppCache>); logger: Logger; version: string; cwd: string },
): ToolDeps {
  let pending: Promise<App> | undefined;
  let urisPending: Promise<string[]> | undefined;
  // Asked once per connection: they choose the project (without --root) and widen what may be read.
  const clientRoots = (): Promise<string[]> =>
    (urisPending ??= (async () => {
      if (!server.server.getClientCapabilities()?.roots) return [];
      try {
        const res = await server.server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS });
        return res.roots.map((r) => r.uri);
      } catch (err) {
        opts.logger.warn(`client roots unavailable: ${(err as Error).message}`);
        return [];
      }
    })());
  return {
    logger: opts.logger,
    version: opts.version,
    clientModel: () => clientModel(server),
    async roots() {
      const uris = await clientRoots();
      return uris.flatMap((u) => {
        if (!u.startsWith("file://")) return [];
        try {
          // `file:///` or a system folder never widens what may be read.
          const path = fileURLToPath(u);
          return rootRefusal(path) ? [] : [path];
        } catch {
          return [];
        }
      });
    },
    app() {
      pending ??= (async () => {
        const location = resolveProjectRoot({
          explicit: opts.config.root,
          mcpRoots: opts.config.root ? [] : await clientRoots(),
          cwd: opts.cwd,
          userDir: opts.config.userDir,
        });
        const apps = typeof opts.apps === "function" ? await opts.apps() : opts.apps;
        return apps.forLocation(location);
      })();
      // A failed resolution is retried on the next call rather than cached forever.
      pending.catch(() => (pending = undefined));
      return pending;
    },
  };
}
