// Registers every tool, resource and prompt on a server.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import type { ToolDeps } from "./context.js";
import { registerPrompts } from "./prompts.js";
import { registerCardResource } from "./resources/card.js";
import { registerGraphStats } from "./resources/graph-stats.js";
import { registerProjectBrief } from "./resources/project-brief.js";
import { registerSessionSummary } from "./resources/session-summary.js";
import type { Tool } from "./tool.js";
import { buildContextGraphTool } from "./tools/build-context-graph.js";
import { compressContextTool } from "./tools/compress-context.js";
import { forgetTool } from "./tools/forget.js";
import { getMemoryCardsTool } from "./tools/get-memory-cards.js";
import { getSummaryTool } from "./tools/get-summary.js";
import { graphNeighborsTool } from "./tools/graph-neighbors.js";
import { recallTool } from "./tools/recall.js";
import { recordMemoryTool } from "./tools/record-memory.js";
import { recordOutcomeTool } from "./tools/record-outcome.js";
import { searchMemoryTool } from "./tools/search-memory.js";
import { statusTool } from "./tools/status.js";

/** Every tool, in the order tools/list shows them. */
export const TOOLS: readonly Tool[] = [
  statusTool,
  buildContextGraphTool,
  graphNeighborsTool,
  compressContextTool,
  getSummaryTool,
  getMemoryCardsTool,
  recordOutcomeTool,
  recordMemoryTool,
  searchMemoryTool,
  recallTool,
  forgetTool,
];

/** Wires all MCP capabilities to their domain functions. */
export function registerAll(server: McpServer, deps: ToolDeps): void {
  for (const tool of TOOLS) tool.register(server, deps);
  registerGraphStats(server, deps);
  registerSessionSummary(server, deps);
  registerCardResource(server, deps);
  registerProjectBrief(server, deps);
  registerPrompts(server);
}
