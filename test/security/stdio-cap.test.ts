// Over real stdio (dist/cli.js serve, the SDK's client): a request over the message cap gets a JSON-RPC error
// with its id and the session goes on; an over-large schema-valid-looking call gets a tool error; nothing
// leaves the process deaf or ends it.
import { spawn } from "node:child_process";
import { PassThrough } from "node:stream";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";

import { MAX_MESSAGE_BYTES } from "../../src/limits.js";
import { LineLimit, recoverId } from "../../src/transport/stdio.js";
import { cliPath } from "../helpers/cli.js";
import { textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

function env(extra: Record<string, string>): Record<string, string> {
  const base = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  return { ...base, ...extra };
}

describe("stdio message cap", () => {
  it("answers an oversized request with an error and keeps serving", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, "serve", "--root", tmpDir()],
      env: env({ MEMCARDS_HOME: tmpDir() }),
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: "cap-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      // 11 MB of inline conversation: under the message cap, over the tool's limit.
      const content = "word ".repeat(380_000);
      const messages = Array.from({ length: 6 }, () => ({ role: "user", content }));
      const big = await client.callTool({ name: "compress_context", arguments: { messages } });
      expect(big.isError).toBe(true);
      expect(textOf(big)).toMatch(/at most 1000000 characters/);
      expect(textOf(big).length).toBeLessThan(2000);

      // One line over the message cap: refused with its id, never parsed.
      const pad = "x".repeat(MAX_MESSAGE_BYTES + 1024);
      const refused = client.request(
        { method: "tools/call", params: { name: "status", arguments: { pad } } },
        CallToolResultSchema,
        { timeout: 60_000 },
      );
      await expect(refused).rejects.toThrow(/over the 16777216-byte limit/);

      const after = await client.callTool({ name: "status", arguments: {} });
      expect(after.isError).toBeFalsy();
      expect(textOf(after)).toMatch(/root: /);
      expect(stderr).toMatch(/refused a stdio message/);
      expect(transport.pid).not.toBeNull();
    } finally {
      await client.close();
    }
  }, 120_000);

  it("drops an oversized line without an id, logs it, and reads the next line", async () => {
    const child = spawn(process.execPath, [cliPath, "serve", "--root", tmpDir()], {
      env: env({ MEMCARDS_HOME: tmpDir() }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    };
    child.stdin.write(JSON.stringify(init) + "\n");
    child.stdin.write(`"${"y".repeat(MAX_MESSAGE_BYTES + 10)}"\n`);
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) + "\n");
    const deadline = Date.now() + 30_000;
    while (!/"id":2/.test(stdout) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    child.stdin.end();
    await new Promise((r) => child.once("exit", r));
    const replies = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: number });
    expect(replies.map((r) => r.id)).toEqual([1, 2]);
    expect(stderr).toMatch(/refused a stdio message: message of 16777228 bytes/);
  }, 60_000);
});

describe("line framing", () => {
  it("passes lines under the cap whole, across chunk boundaries, and reports longer ones", async () => {
    const over: { bytes: number; head: string; tail: string }[] = [];
    const limit = new LineLimit(20, (l) => over.push(l));
    const out: string[] = [];
    limit.on("data", (d: Buffer) => out.push(d.toString()));
    const input = new PassThrough();
    input.pipe(limit);
    input.write('{"id":1,"a":');
    input.write('"b"}\n{"jsonrpc":"2.0","method":"x","params":{"p":"0123456789"},"id":"q-7"}\n');
    input.end('{"c":1}\n');
    await new Promise((r) => limit.once("end", r));
    expect(out.join("")).toBe('{"id":1,"a":"b"}\n{"c":1}\n');
    expect(over).toHaveLength(1);
    expect(over[0]!.bytes).toBe(69);
    expect(recoverId(over[0]!.head, over[0]!.tail)).toBe("q-7");
  });

  it("recovers a top-level id from either end of a line, and only a top-level one", () => {
    expect(recoverId('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{', "")).toBe(42);
    expect(recoverId("", '...,"arguments":{"x":"y"}},"jsonrpc":"2.0","id":9}')).toBe(9);
    expect(recoverId('{"method":"a","params":{"id":3,', '..."z":{"id":3}}')).toBeUndefined();
    expect(recoverId("", '..."text":"\\"id\\":5}')).toBeUndefined();
  });
});
