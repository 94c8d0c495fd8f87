import { spawn } from "node:child_process";
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";

import { cliPath, runCli } from "../helpers/cli.js";
import { textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";
import { copyPolyglot } from "../repo/fixture.js";

function env(extra: Record<string, string>): Record<string, string> {
  const base = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  return { ...base, ...extra };
}

/**
 * `memcards serve` whose app code fails to load `failures` times (a loader hook refuses it, as a broken install would):
 * the app cache module, or the bundle chunk named after it.
 */
async function serveRefusingAppCode(failures: number): Promise<{ client: Client; close(): Promise<string> }> {
  const dir = tmpDir();
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `let n = 0;
export async function resolve(specifier, context, next) {
  if (/(^|\\/)app-cache(-[\\w-]+)?\\.js$/.test(specifier) && n++ < ${failures}) throw new Error("app code unavailable");
  return next(specifier, context);
}
`,
  );
  const register = join(dir, "register.mjs");
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", pathToFileURL(register).href, cliPath, "serve", "--root", realpathSync(tmpDir())],
    env: env({ MEMCARDS_HOME: tmpDir() }),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid!;
  return {
    client,
    async close() {
      await client.close();
      // The server ends on its own once stdin closes; what it wrote to stderr by then is returned.
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          try {
            process.kill(pid, 0);
          } catch {
            clearInterval(poll);
            resolve();
          }
        }, 50);
      });
      return stderr;
    },
  };
}

describe("memcards serve over stdio (a real child process)", () => {
  it("connects, lists tools and calls status", async () => {
    const root = realpathSync(tmpDir());
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, "serve", "--root", root],
      env: env({ MEMCARDS_HOME: tmpDir() }),
      stderr: "pipe",
    });
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe("memcards");
      expect(client.getInstructions()).toMatch(/status/);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("status");
      const res = await client.callTool({ name: "status", arguments: {} });
      expect(textOf(res)).toContain(`root: ${root} (from flag)`);
    } finally {
      await client.close();
    }
  });

  it("warms the cards path once initialized, with no further message from the client", async () => {
    const root = copyPolyglot();
    const home = tmpDir();
    expect(runCli(["index", root], { cwd: root, env: { ...process.env, MEMCARDS_HOME: home } }).code).toBe(0);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, "serve", "--root", root, "--log-level", "debug"],
      env: env({ MEMCARDS_HOME: home, MEMCARDS_HOOK_WORKER: "0" }),
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      // The client is silent after `initialized`: the warm-up must not wait for its next message.
      for (let i = 0; i < 600 && !stderr.includes("warmed up the ranker"); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(stderr).toContain("warmed up the ranker");
    } finally {
      await client.close();
    }
  });

  it("exits with code 0 when stdin closes, leaving stdout to the protocol", async () => {
    const root = tmpDir();
    const child = spawn(process.execPath, [cliPath, "serve", "--root", root], {
      env: env({ MEMCARDS_HOME: tmpDir() }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }) + "\n",
    );
    await new Promise((r) => setTimeout(r, 1500));
    child.stdin.end();
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 15_000))]);
    expect(code).toBe(0);
    // Everything on stdout is JSON-RPC: the initialize response and nothing else.
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: { serverInfo: { name: "memcards" } },
    });
  });

  it("answers again once the app code loads after a failed first load", async () => {
    const server = await serveRefusingAppCode(1);
    const first = await server.client.callTool({ name: "status", arguments: {} });
    expect(first.isError).toBe(true);
    expect(textOf(first)).toContain("app code unavailable");
    const second = await server.client.callTool({ name: "status", arguments: {} });
    expect(second.isError).toBeFalsy();
    expect(textOf(second)).toContain("root:");
    expect(await server.close()).not.toMatch(/^Error: /m);
  });

  it("shuts down cleanly when the app code never loaded", async () => {
    const server = await serveRefusingAppCode(Infinity);
    const r = await server.client.callTool({ name: "status", arguments: {} });
    expect(r.isError).toBe(true);
    expect(await server.close()).not.toMatch(/^Error: /m);
  });

  it("exits on SIGTERM", async () => {
    const child = spawn(process.execPath, [cliPath, "serve", "--root", tmpDir()], {
      env: env({ MEMCARDS_HOME: tmpDir() }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // Signal once the server answers (its handlers are installed by then), however loaded the machine is.
    const answered = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }) + "\n",
    );
    await answered;
    child.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 15_000))]);
    expect(code).toBe(0);
  });
});
