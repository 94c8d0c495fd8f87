// Fuzzed tool calls and malformed frames against real server processes over stdio and Streamable HTTP:
// every call gets a protocol reply within 5 s, the process never dies, stdout never carries anything else.
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { spawn } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";

import { cliPath } from "../helpers/cli.js";
import { textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";
import type { JsonSchema } from "./fuzz-input.js";
import { malformedFrames, prng, toolArguments } from "./fuzz-input.js";

const CALLS_PER_TRANSPORT = Number(process.env.FUZZ_CALLS ?? 1100);
// No answer in this long is a hang (a generous bound, so a busy machine is not mistaken for one).
const HANG_MS = 30_000;

function env(extra: Record<string, string>): Record<string, string> {
  const base = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  return { ...base, MEMCARDS_LOG_LEVEL: "error", ...extra };
}

/** A small project to serve: a few source files, a test, a README. */
function project(): string {
  const root = realpathSync(tmpDir());
  mkdirSync(join(root, "src"));
  mkdirSync(join(root, "tests"));
  writeFileSync(join(root, "src", "app.py"), "def parse_config(path):\n    return open(path).read()\n");
  writeFileSync(join(root, "src", "util.ts"), "export function slug(s: string) { return s.toLowerCase(); }\n");
  writeFileSync(
    join(root, "tests", "test_app.py"),
    "from src.app import parse_config\n\ndef test_parse():\n    pass\n",
  );
  writeFileSync(join(root, "README.md"), "# demo\n");
  return root;
}

interface Tally {
  calls: number;
  results: number;
  toolErrors: number;
  protocolErrors: number;
  hangs: string[];
  crashes: string[];
  /** Results outside their tool's output schema, and resource reads ending in Internal Error. */
  broken: string[];
  slowestMs: number;
  slowest: string;
  totalMs: number;
}

/** Calls every tool (and reads resources) with seeded hostile arguments; never throws, counts what happened. */
async function fuzz(client: Client, seed: number, calls: number, alive: () => boolean): Promise<Tally> {
  const r = prng(seed);
  const { tools } = await client.listTools();
  const t: Tally = {
    calls: 0,
    results: 0,
    toolErrors: 0,
    protocolErrors: 0,
    hangs: [],
    crashes: [],
    broken: [],
    slowestMs: 0,
    slowest: "",
    totalMs: 0,
  };
  for (let i = 0; i < calls && alive(); i++) {
    const tool = tools[i % tools.length]!;
    const args = toolArguments(r, tool.inputSchema as JsonSchema);
    const started = Date.now();
    t.calls++;
    try {
      if (i % 25 === 24) {
        const raw = String(args && typeof args === "object" ? Object.values(args)[0] : args).slice(0, 300);
        const id = encodeURIComponent(raw.replace(/[\ud800-\udfff]/g, "?"));
        const uri = [
          `memcards://cards/${id.slice(0, 300)}`,
          `memcards://sessions/${id.slice(0, 300)}/summary`,
          "memcards://graph/stats",
          "memcards://project/brief",
          `memcards://cards/..%2F..%2Fetc%2Fpasswd`,
        ][i % 5]!;
        await client.readResource({ uri }, { timeout: HANG_MS }).catch((err: unknown) => {
          if (err instanceof McpError && err.code === ErrorCode.InternalError) t.broken.push(`${uri}: ${err.message}`);
          throw err;
        });
        t.results++;
      } else {
        const res = await client.callTool({ name: tool.name, arguments: args as Record<string, unknown> }, undefined, {
          timeout: HANG_MS,
        });
        t.results++;
        if (res.isError) t.toolErrors++;
        // The client checked structuredContent against the listed output schema; the server checks it too.
        if (res.isError && /output schema|Output validation/.test(textOf(res)))
          t.broken.push(`${tool.name}: ${textOf(res)}`);
      }
    } catch (err) {
      const code = err instanceof McpError ? err.code : undefined;
      // -32001 is the SDK's request timeout: a hang. A closed connection is a crash.
      if (code === -32001) t.hangs.push(`${tool.name} seed=${seed} i=${i}`);
      else if (/Structured content/.test((err as Error).message))
        t.broken.push(`${tool.name}: ${(err as Error).message}`);
      else if (code === undefined || code === -32000) t.crashes.push(`${tool.name} i=${i}: ${(err as Error).message}`);
      else t.protocolErrors++;
    }
    const ms = Date.now() - started;
    if (ms > t.slowestMs) {
      t.slowestMs = ms;
      t.slowest = `${tool.name} i=${i} ${JSON.stringify(args).slice(0, 200)}`;
    }
    t.totalMs += ms;
  }
  return t;
}

function expectClean(t: Tally, calls: number, transportErrors: string[]): void {
  process.stderr.write(
    `fuzz: ${JSON.stringify({ ...t, hangs: t.hangs.slice(0, 5), crashes: t.crashes.slice(0, 5), broken: t.broken.slice(0, 5) })}\n`,
  );
  expect(t.crashes).toEqual([]);
  expect(t.broken).toEqual([]);
  expect(t.hangs).toEqual([]);
  expect(transportErrors).toEqual([]);
  expect(t.calls).toBe(calls);
  expect(t.results + t.protocolErrors).toBe(calls);
  // The inputs are hostile: most are refused, but some must get through to the tools.
  expect(t.toolErrors).toBeGreaterThan(0);
  expect(t.results - t.toolErrors).toBeGreaterThan(calls / 20);
}

const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
});

describe("fuzzed calls over stdio", () => {
  it(`answers ${CALLS_PER_TRANSPORT} hostile calls across every tool without a crash, hang or stray output`, async () => {
    const root = project();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, "serve", "--root", root, "--embedder", "offline"],
      env: env({ MEMCARDS_HOME: tmpDir() }),
      stderr: "pipe",
    });
    const transportErrors: string[] = [];
    let closed = false;
    const client = new Client({ name: "fuzz-stdio", version: "1" });
    client.onerror = (e) => transportErrors.push(e.message);
    client.onclose = () => (closed = true);
    await client.connect(transport);
    try {
      const t = await fuzz(client, 0x5eed, CALLS_PER_TRANSPORT, () => !closed);
      expectClean(t, CALLS_PER_TRANSPORT, transportErrors);
      expect(closed).toBe(false);
    } finally {
      await client.close();
    }
  }, 600_000);

  it("answers malformed frames with JSON-RPC errors only, and keeps serving", async () => {
    const child = spawn(process.execPath, [cliPath, "serve", "--root", project(), "--embedder", "offline"], {
      env: env({ MEMCARDS_HOME: tmpDir() }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    children.push(child);
    let buf = "";
    const lines: string[] = [];
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString("utf8");
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    });
    const waitFor = async (pred: () => boolean, ms: number) => {
      const until = Date.now() + ms;
      while (!pred() && Date.now() < until) await new Promise((res) => setTimeout(res, 20));
      return pred();
    };
    const send = (s: string) => child.stdin.write(s + "\n");
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
    );
    expect(await waitFor(() => lines.some((l) => l.includes('"id":"init"')), 20_000)).toBe(true);
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const frames = malformedFrames(prng(0xbad), 300);
    for (const f of frames) send(f);
    send(
      JSON.stringify({ jsonrpc: "2.0", id: "after", method: "tools/call", params: { name: "status", arguments: {} } }),
    );
    expect(await waitFor(() => lines.some((l) => l.includes('"id":"after"')), 30_000)).toBe(true);
    expect(child.exitCode).toBeNull();
    // Every line on stdout is one JSON-RPC message.
    for (const l of lines) {
      const msg = JSON.parse(l) as { jsonrpc?: string };
      expect(msg.jsonrpc).toBe("2.0");
    }
    const after = JSON.parse(lines.find((l) => l.includes('"id":"after"'))!) as { result?: { isError?: boolean } };
    expect(after.result?.isError).toBeFalsy();
    child.stdin.end();
  }, 120_000);
});

describe("fuzzed calls over Streamable HTTP", () => {
  it(`answers ${CALLS_PER_TRANSPORT} hostile calls across every tool, and raw bad requests with 4xx`, async () => {
    const child = spawn(
      process.execPath,
      [cliPath, "serve", "--http", "--port", "0", "--root", project(), "--embedder", "offline"],
      { env: env({ MEMCARDS_HOME: tmpDir(), MEMCARDS_LOG_LEVEL: "info" }), stdio: ["pipe", "pipe", "pipe"] },
    );
    children.push(child);
    let stderr = "";
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL on stderr: ${stderr}`)), 30_000);
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        const m = /Streamable HTTP at (http:\/\/\S+)/.exec(stderr);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    const transportErrors: string[] = [];
    let closed = false;
    const client = new Client({ name: "fuzz-http", version: "1" });
    client.onerror = (e) => transportErrors.push(e.message);
    client.onclose = () => (closed = true);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)) as Transport);
    try {
      const t = await fuzz(client, 0xcafe, CALLS_PER_TRANSPORT, () => !closed && child.exitCode === null);
      expectClean(t, CALLS_PER_TRANSPORT, transportErrors);

      // Raw requests a broken client or a hostile page might send: refused with 4xx, never a 5xx or a hang.
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      const bad: [string, RequestInit][] = [
        ["bad json", { method: "POST", headers, body: "{" }],
        ["no session", { method: "POST", headers, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' }],
        [
          "unknown session",
          {
            method: "POST",
            headers: { ...headers, "mcp-session-id": "nope" },
            body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
          },
        ],
        ["huge body", { method: "POST", headers, body: "x".repeat(17 * 1024 * 1024) }],
        ["foreign origin", { method: "POST", headers: { ...headers, origin: "http://evil.example" }, body: "{}" }],
        ["wrong method", { method: "PUT", headers, body: "{}" }],
      ];
      for (const [what, init] of bad) {
        const res = await fetch(url, { ...init, signal: AbortSignal.timeout(HANG_MS) }).catch((e: Error) => e);
        if (res instanceof Error) throw new Error(`${what}: ${res.message}`);
        expect({ what, status: res.status >= 400 && res.status < 500 }).toEqual({ what, status: true });
        await res.text();
      }
      // Still serving.
      const status = await client.callTool({ name: "status", arguments: {} }, undefined, { timeout: HANG_MS });
      expect(status.isError).toBeFalsy();
      expect(child.exitCode).toBeNull();
    } finally {
      await client.close();
    }
  }, 600_000);
});
