// Where each MCP client keeps its server registrations, and the entry memcards adds there.
import { homedir } from "node:os";
import { join } from "node:path";

import { z } from "zod";

export const ClientId = z.enum(["claude-code", "claude-desktop", "cursor", "vscode"]);
export type ClientId = z.infer<typeof ClientId>;

export interface ClientSpec {
  id: ClientId;
  title: string;
  /** The configuration file, for a project root. */
  path(root: string, env?: { platform?: NodeJS.Platform; home?: string; appData?: string }): string;
  /** The key servers live under: `mcpServers` (Claude Code, Claude Desktop, Cursor) or `servers` (VS Code). */
  key: "mcpServers" | "servers";
  /** The server entry: stdio, node running this CLI. */
  entry(cli: string, root: string): Record<string, unknown>;
}

/** Claude Desktop's config file per OS (its documented locations). */
export function claudeDesktopConfig(env: { platform?: NodeJS.Platform; home?: string; appData?: string } = {}): string {
  const platform = env.platform ?? process.platform;
  const home = env.home ?? homedir();
  if (platform === "darwin")
    return join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json");
  if (platform === "win32")
    return join(
      env.appData ?? process.env.APPDATA ?? join(home, "AppData", "Roaming"),
      "Claude",
      "claude_desktop_config.json",
    );
  return join(home, ".config", "Claude", "claude_desktop_config.json");
}

export const CLIENTS: Record<ClientId, ClientSpec> = {
  "claude-code": {
    id: "claude-code",
    title: "Claude Code",
    path: (root) => join(root, ".mcp.json"),
    key: "mcpServers",
    entry: (cli) => ({ type: "stdio", command: process.execPath, args: [cli, "serve"] }),
  },
  "claude-desktop": {
    id: "claude-desktop",
    title: "Claude Desktop",
    path: (_root, env) => claudeDesktopConfig(env),
    key: "mcpServers",
    // Claude Desktop starts servers with cwd / and sends no roots: the project is named explicitly.
    entry: (cli, root) => ({ command: process.execPath, args: [cli, "serve", "--root", root] }),
  },
  cursor: {
    id: "cursor",
    title: "Cursor",
    path: (root) => join(root, ".cursor", "mcp.json"),
    key: "mcpServers",
    entry: (cli) => ({ type: "stdio", command: process.execPath, args: [cli, "serve"] }),
  },
  vscode: {
    id: "vscode",
    title: "VS Code",
    path: (root) => join(root, ".vscode", "mcp.json"),
    key: "servers",
    entry: (cli) => ({ type: "stdio", command: process.execPath, args: [cli, "serve"] }),
  },
};
