// HTTP request bodies are bounded in memory: each under the 16 MiB cap, all of them together under one budget,
// released when a request ends, is refused or is abandoned, and cut off when they do not arrive in time.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";

import { afterAll, describe, expect, it } from "vitest";

import { createAppCache } from "../../src/app-cache.js";
import { resolveConfig } from "../../src/config.js";
import { MAX_BODY_MEMORY_BYTES } from "../../src/limits.js";
import { silentLogger } from "../../src/log.js";
import { createServer } from "../../src/server.js";
import { serveHttp } from "../../src/transport/http.js";
import { cliPath } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

const MiB = 1024 * 1024;
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/**
 * An upload on a raw socket: headers (a declared length, or chunked), then `send` bytes, then nothing (or, with
 * `finish`, the end of a chunked body).
 */
interface Upload {
  socket: Socket;
  /** Resolves when the bytes were handed to the kernel, or the server answered or closed first. */
  sent: Promise<void>;
  /** What the server answered, once it has (status line and body), or "" when it closed without answering. */
  answer: Promise<string>;
}

function upload(url: string, declared: number | "chunked", send: number, finish = false): Upload {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  socket.on("error", () => undefined);
  let text = "";
  socket.on("data", (c: Buffer) => (text += c.toString("latin1")));
  const answer = new Promise<string>((r) => socket.once("close", () => r(text)));
  const length = declared === "chunked" ? "transfer-encoding: chunked" : `content-length: ${declared}`;
  const head =
    `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${u.port}\r\ncontent-type: application/json\r\n` +
    `accept: application/json, text/event-stream\r\n${length}\r\n\r\n`;
  const body = Buffer.alloc(send, 0x20);
  const framed =
    declared === "chunked"
      ? Buffer.concat([Buffer.from(`${send.toString(16)}\r\n`), body, Buffer.from(finish ? "\r\n0\r\n\r\n" : "")])
      : body;
  const sent = new Promise<void>((resolve) => {
    socket.once("close", () => resolve());
    socket.write(head);
    socket.write(framed, () => resolve());
  });
  return { socket, sent, answer };
}

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m![1]) * 1024;
}

/** The last `http.body` counters the server logged. */
function lastBodyLog(stderr: string): { buffered: number; peak: number } | undefined {
  const lines = [...stderr.matchAll(/memcards debug: http\.body (\{.*\})/g)];
  const last = lines.at(-1);
  return last ? (JSON.parse(last[1]!) as { buffered: number; peak: number }) : undefined;
}

async function until(what: string, check: () => boolean, tries = 600): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
}

describe("HTTP bodies against a spawned server", () => {
  let child: ChildProcess | undefined;
  afterAll(() => void child?.kill("SIGKILL"));

  it("40 unfinished large uploads stay within the memory budget and are released when abandoned", async () => {
    child = spawn(
      process.execPath,
      [cliPath, "serve", "--http", "--port", "0", "--root", tmpDir(), "--embedder", "offline", "--log-level", "debug"],
      { env: { ...process.env, MEMCARDS_HOME: tmpDir() }, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    await until("the server listens", () => /Streamable HTTP at (http:\S+)/.test(stderr));
    const url = /Streamable HTTP at (http:\S+)/.exec(stderr)![1]!;
    const pid = child.pid!;
    const before = rssBytes(pid);

    // Each declares 16 MiB and sends 12 MiB, then stalls: 480 MiB offered, far over the 64 MiB budget.
    const uploads = Array.from({ length: 40 }, () => upload(url, 16 * MiB, 12 * MiB));
    await Promise.all(uploads.map((u) => u.sent));
    await until("every upload was taken in or refused", () => {
      const refused = (stderr.match(/refused a request body/g) ?? []).length;
      return refused > 0 && refused + 5 >= 40;
    });
    const held = rssBytes(pid) - before;
    expect(held).toBeLessThan(MAX_BODY_MEMORY_BYTES + 160 * MiB); // unbounded, it would hold 480 MiB

    // The refused ones were answered 503 (or cut) and closed by the server; at most 5 (5 × 12 MiB) are still held.
    const answers: (string | undefined)[] = uploads.map(() => undefined);
    uploads.forEach((u, i) => void u.answer.then((a) => (answers[i] = a)));
    await until("the refused uploads were closed", () => answers.filter((a) => a !== undefined).length >= 35);
    const closed = answers.filter((a): a is string => a !== undefined);
    for (const a of closed) expect(a === "" || a.startsWith("HTTP/1.1 503")).toBe(true);
    expect(closed.some((a) => a.startsWith("HTTP/1.1 503"))).toBe(true);

    for (const u of uploads) u.socket.destroy();
    await until("every held body was released", () => lastBodyLog(stderr)?.buffered === 0);
    const counters = lastBodyLog(stderr)!;
    expect(counters.peak).toBeGreaterThan(0);
    expect(counters.peak).toBeLessThanOrEqual(MAX_BODY_MEMORY_BYTES);

    // The server still serves.
    const ok = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: INIT,
    });
    expect(ok.status).toBe(200);
    await ok.text();
  }, 120_000);
});

describe("HTTP bodies in process", () => {
  async function start(extra: { bodyBudgetBytes?: number; bodyTimeoutMs?: number }) {
    const config = resolveConfig({ root: tmpDir(), port: 0 }, { MEMCARDS_HOME: tmpDir() });
    const apps = createAppCache(config, silentLogger);
    const handle = await serveHttp({
      host: "127.0.0.1",
      port: 0,
      logger: silentLogger,
      ...extra,
      newServer: () => createServer({ config, apps, logger: silentLogger, version: "test", cwd: "/" }),
    });
    return { handle, close: async () => (await handle.close(), await apps.closeAll()) };
  }

  it("refuses a chunked body that would pass the budget with 503 and releases an abandoned one", async () => {
    const srv = await start({ bodyBudgetBytes: 2 * MiB });
    try {
      const first = upload(srv.handle.url, "chunked", 1.5 * MiB);
      await first.sent;
      await until("the first body is held", () => srv.handle.stats().bufferedBytes === 1.5 * MiB);
      const second = upload(srv.handle.url, "chunked", 1 * MiB);
      expect(await second.answer).toMatch(/^HTTP\/1\.1 503/);
      expect(srv.handle.stats()).toMatchObject({ bufferedBytes: 1.5 * MiB, refusedForBudget: 1 });
      first.socket.destroy();
      await until("the abandoned body is released", () => srv.handle.stats().bufferedBytes === 0);
      expect(srv.handle.stats().peakBufferedBytes).toBeLessThanOrEqual(2 * MiB);
    } finally {
      await srv.close();
    }
  });

  it("answers a chunked body past 16 MiB with 413, holding at most the cap for it", async () => {
    const srv = await start({});
    try {
      const big = upload(srv.handle.url, "chunked", 17 * MiB, true);
      expect(await big.answer).toMatch(/^HTTP\/1\.1 413/);
      const stats = srv.handle.stats();
      expect(stats.bufferedBytes).toBe(0);
      expect(stats.peakBufferedBytes).toBeLessThanOrEqual(16 * MiB);
    } finally {
      await srv.close();
    }
  });

  it("cuts off a body that does not arrive in time with 408 and releases what it held", async () => {
    const srv = await start({ bodyTimeoutMs: 300 });
    try {
      const slow = upload(srv.handle.url, 1 * MiB, 256 * 1024);
      expect(await slow.answer).toMatch(/^HTTP\/1\.1 408/);
      expect(srv.handle.stats()).toMatchObject({ bufferedBytes: 0, timedOut: 1 });
    } finally {
      await srv.close();
    }
  });
});
