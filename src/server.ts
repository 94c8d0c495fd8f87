// createServer: an McpServer with memcards' tools, no side effects at import time.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import type { AppCache } from "./app-cache.js";
import type { Config } from "./config.js";
import type { Logger } from "./log.js";
import { createToolDeps } from "./mcp/context.js";
import { registerAll } from "./mcp/register.js";

/** What the model is told about when to use which tool. */
export const SERVER_INSTRUCTIONS = `memcards keeps local, compact context for this repository.
- Call build_context_graph once per session (incremental; watch:true keeps it fresh), then graph_neighbors to see a file's or symbol's imports, tests and governing rules.
- Before an edit, call get_memory_cards with the task (and the files you will touch): it returns the file and symbol to edit, the covering test, the governing rule and the session's constraints as short cards. Afterwards report what helped with record_outcome.
- When the conversation grows long, call compress_context with this session's transcript_path: continue from the summary it returns.
- Call status when unsure whether memcards is set up here: it shows the project root, database and embedder.`;

export interface ServerDeps {
  config: Config;
  /** The open apps, or a loader of them (`serve` loads the app code on the first call, not at start-up). */
  apps: AppCache | (() => Promise<AppCache>);
  logger: Logger;
  version: string;
  /** Working directory used for git-based root resolution. */
  cwd: string;
}

/** Creates a server for one client connection. */
export function createServer(deps: ServerDeps): McpServer {
  const server = new McpServer(
    { name: "memcards", version: deps.version },
    { instructions: SERVER_INSTRUCTIONS, capabilities: { logging: {} } },
  );
  registerAll(server, createToolDeps(server, deps));
  return server;
}
