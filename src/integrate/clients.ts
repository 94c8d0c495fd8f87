// Where each MCP client keeps its server registrations, and the entry memcards adds there.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";

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

/** Where a client was found, or why it counts as absent. */
export interface Detection {
  id: ClientId;
  title: string;
  present: boolean;
  /** The first sign found (a command on PATH, a settings folder), when present. */
  evidence?: string;
}

export interface DetectEnv {
  root: string;
  home?: string;
  platform?: NodeJS.Platform;
  /** The PATH to search for the clients' commands (default: the process's). */
  path?: string;
  appData?: string;
  localAppData?: string;
  exists?: (path: string) => boolean;
}

/** Which of the four clients are installed or configured here: a command on PATH, or its settings folder. */
export function detectClients(env: DetectEnv): Detection[] {
  const platform = env.platform ?? process.platform;
  const home = env.home ?? homedir();
  const exists = env.exists ?? existsSync;
  const dirs = (env.path ?? process.env.PATH ?? "").split(platform === "win32" ? ";" : delimiter).filter(Boolean);
  const exts = platform === "win32" ? [".cmd", ".exe", ""] : [""];
  const onPath = (cmd: string) => {
    for (const d of dirs) for (const x of exts) if (exists(join(d, cmd + x))) return `${cmd} on PATH (${d})`;
    return undefined;
  };
  const dir = (path: string) => (exists(path) ? path : undefined);
  const local = env.localAppData ?? join(home, "AppData", "Local");
  const signs: Record<ClientId, () => string | undefined> = {
    "claude-code": () => onPath("claude") ?? dir(join(home, ".claude")) ?? dir(join(env.root, ".claude")),
    "claude-desktop": () =>
      dir(dirname(claudeDesktopConfig({ platform, home, ...(env.appData ? { appData: env.appData } : {}) }))) ??
      (platform === "darwin" ? dir("/Applications/Claude.app") : undefined) ??
      (platform === "win32" ? dir(join(local, "AnthropicClaude")) : undefined),
    cursor: () => onPath("cursor") ?? dir(join(home, ".cursor")) ?? dir(join(env.root, ".cursor")),
    vscode: () =>
      onPath("code") ??
      dir(join(home, ".vscode")) ??
      dir(join(env.root, ".vscode")) ??
      (platform === "darwin" ? dir("/Applications/Visual Studio Code.app") : undefined),
  };
  return ClientId.options.map((id) => {
    const evidence = signs[id]();
    return { id, title: CLIENTS[id].title, present: evidence !== undefined, ...(evidence ? { evidence } : {}) };
  });
}
