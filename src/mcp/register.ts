// Registers every tool, resource and prompt on a server.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import type { ToolDeps } from "./context.js";
import { registerPrompts } from "./prompts.js";
import { registerCompressContext } from "./tools/compress-context.js";
import { registerGetMemoryCards } from "./tools/get-memory-cards.js";
import { registerGetSummary } from "./tools/get-summary.js";
import { registerGraphTools } from "./tools/graph.js";
import { registerMemoryTools } from "./tools/memory.js";
import { registerRecordOutcome } from "./tools/record-outcome.js";
import { registerStatusTool } from "./tools/status.js";

/** Wires all MCP capabilities to their domain functions. */
export function registerAll(server: McpServer, deps: ToolDeps): void {
  registerStatusTool(server, deps);
  registerGraphTools(server, deps);
  registerCompressContext(server, deps);
  registerGetSummary(server, deps);
  registerGetMemoryCards(server, deps);
  registerRecordOutcome(server, deps);
  registerMemoryTools(server, deps);
  registerPrompts(server);
}
