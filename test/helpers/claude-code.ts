// Runs the pinned Claude Code CLI (test/engines/node_modules/.bin/claude) against a scripted model, in a temporary HOME, with
// telemetry and updates off and the network limited to the loopback model.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { runCli } from "./cli.js";
import { engineReady, ENGINES_DIR } from "./engines.js";

/** The pinned CLI, as `npm run engines` installs it. */
export const CLAUDE_BIN = join(
  ENGINES_DIR,
  "node_modules",
  ".bin",
  process.platform === "win32" ? "claude.cmd" : "claude",
);

export type ClaudeProbe = { ok: true; version: string } | { ok: false; reason: string };

/** Whether the pinned binary runs here (`claude --version`), and why not when it does not. */
export function probeClaudeCode(): ClaudeProbe {
  if (!existsSync(CLAUDE_BIN))
    return {
      ok: false,
      reason: `${CLAUDE_BIN} is missing (npm run engines installs the pinned @anthropic-ai/claude-code there)`,
    };
  const r = spawnSync(CLAUDE_BIN, ["--version"], {
    encoding: "utf8",
    timeout: 30_000,
    env: { ...cleanEnv(), DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
  });
  const version = /^(\d+\.\d+\.\d+)/.exec(r.stdout ?? "")?.[1];
  if (r.status === 0 && version) return { ok: true, version };
  return {
    ok: false,
    reason: `\`claude --version\` failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr ?? "").trim().slice(0, 200)}`,
  };
}

/** Prints why a Claude Code suite is skipped (never silently); under CI=true a missing binary fails instead. */
export function announceSkip(suite: string, probe: ClaudeProbe): void {
  engineReady(suite, "the Claude Code binary", probe.ok ? undefined : probe.reason);
}

/** The parent's environment without anything that would point Claude Code at a real account or config. */
function cleanEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(ANTHROPIC_|CLAUDE_|CLAUDECODE|MEMCARDS_|AWS_|GOOGLE_|VERTEX)/.test(k)) continue;
    out[k] = v;
  }
  return out;
}

/** The environment for Claude Code (and so for the memcards server and hooks it starts). */
export function claudeEnv(home: string, modelUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...cleanEnv(),
    HOME: home,
    USERPROFILE: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: "sk-ant-scripted-test",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    // How long Claude Code waits for the memcards server to start: generous, so a busy machine is not a failure.
    MCP_TIMEOUT: "120000",
    NO_PROXY: "127.0.0.1,localhost",
    MEMCARDS_EMBEDDER: "offline",
    ...extra,
  };
}

/**
 * The user-level settings a person gives once in the interactive trust prompt: approve the project's
 * `.mcp.json` servers (print mode cannot ask).
 */
export function approveProjectServers(home: string): void {
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), `${JSON.stringify({ enableAllProjectMcpServers: true })}\n`);
}

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `claude ...args` without blocking the event loop (the scripted model answers in this process). */
export function runClaude(
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<ClaudeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE_BIN, args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 90_000);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Options every scripted session passes: print mode, edits and the tools the scripts use allowed. */
export const PRINT_FLAGS = [
  "--permission-mode",
  "acceptEdits",
  "--allowedTools",
  "Edit Write Read Bash ToolSearch mcp__memcards",
];

/**
 * One Claude Code process fed several user messages in turn (stream-json in and out): each is sent once the
 * previous one has its result, as a person typing would. Slash commands such as `/compact` work as typed.
 * Returns the result texts, one per message.
 */
export function claudeConversation(
  messages: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs?: number; extraArgs?: string[] },
): Promise<{ code: number | null; results: string[]; stderr: string }> {
  const args = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    ...PRINT_FLAGS,
    ...(opts.extraArgs ?? []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE_BIN, args, { cwd: opts.cwd, env: opts.env, stdio: ["pipe", "pipe", "pipe"] });
    const results: string[] = [];
    let next = 0;
    let buf = "";
    let stderr = "";
    const send = () => {
      const m = messages[next++];
      if (m === undefined) child.stdin.end();
      else child.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: m } })}\n`);
    };
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString("utf8");
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line.startsWith("{")) continue;
        const ev = JSON.parse(line) as { type?: string; result?: string };
        if (ev.type === "result") {
          results.push(ev.result ?? "");
          send();
        }
      }
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, results, stderr });
    });
    send();
  });
}

/** Polls `check` every 200 ms until it holds or `ms` pass; returns whether it held. */
export async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Waits until the distillation the SessionEnd hook started (detached) for `sessionId` has stored the session's
 * summary, so that nothing still writes into the project when the test removes it. Returns whether it did.
 */
export function distilled(root: string, env: Record<string, string>, sessionId: string, ms = 60_000): Promise<boolean> {
  return waitUntil(() => runCli(["summary", "--session", sessionId], { cwd: root, env }).code === 0, ms);
}

/** The session ids of the SessionEnd lines in a project's hook log, oldest first. */
export function endedSessions(hookLog: string): string[] {
  return [...hookLog.matchAll(/ SessionEnd (\S+) queued distillation/g)].map((m) => m[1]!);
}
