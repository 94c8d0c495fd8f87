// `memcards serve`: the MCP server over stdio or Streamable HTTP.
import { join } from "node:path";

import type { Command } from "commander";

import { type CliContext, configFrom, loggerFor } from "./shared.js";

interface ServeFlags {
  http?: boolean;
  port?: string;
  host?: string;
  token?: string;
  idleTimeout?: string;
  maxSessions?: string;
}

export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command("serve")
    .description("run the MCP server (stdio by default; --http for Streamable HTTP on 127.0.0.1)")
    .option("--http", "serve Streamable HTTP instead of stdio")
    .option("--port <n>", "HTTP port (default 7331; 0 picks a free one)")
    .option("--host <host>", "HTTP bind address (default 127.0.0.1)")
    .option("--token <token>", "require Authorization: Bearer <token> over HTTP")
    .option("--idle-timeout <seconds>", "close an HTTP session after this long without a request (default 1800)")
    .option("--max-sessions <n>", "open HTTP sessions at most (default 256)")
    .action(async (opts: ServeFlags, cmd: Command) => {
      const { port, host, token, idleTimeout, maxSessions } = opts;
      const config = configFrom(cmd, { port, host, token, idleTimeout, maxSessions });
      // The MCP SDK loads only for the server: every other command (and each hook) starts faster without it.
      const { serve } = await import("../serve.js");
      await serve({
        config,
        logger: loggerFor(config),
        version: ctx.version,
        cwd: process.cwd(),
        http: opts.http ?? false,
        exampleConfigPath: join(ctx.packageRoot, "mcp.json.example"),
        cli: ctx.entry,
      });
      process.exit(0);
    });
}
