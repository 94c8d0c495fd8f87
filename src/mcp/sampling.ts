// The client's model through MCP sampling, where the client offers it (VS Code does; Claude Code and Claude
// Desktop do not): the judge route of get_memory_cards and the model route of compress_context.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/** One text question to the client's model; resolves to its text answer ("" when it answers otherwise). */
export type ClientModel = (
  prompt: string,
  opts: { maxTokens: number; timeoutMs: number; signal?: AbortSignal },
) => Promise<string>;

/** The connected client's model, or undefined when the client offers no sampling. */
export function clientModel(server: McpServer): ClientModel | undefined {
  if (!server.server.getClientCapabilities()?.sampling) return undefined;
  return async (prompt, { maxTokens, timeoutMs, signal }) => {
    const r = await server.server.createMessage(
      { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens },
      { timeout: timeoutMs, ...(signal ? { signal } : {}) },
    );
    return r.content.type === "text" ? r.content.text : "";
  };
}
