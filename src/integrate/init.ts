// `memcards init`: adds (or removes) memcards in a client's MCP configuration and, for Claude Code, its hooks,
// keeping every other entry of the file as it was.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";

import { AppError } from "../errors.js";
import { createNewFile } from "../project/files.js";
import { type ClientId, CLIENTS } from "./clients.js";

export const SERVER_NAME = "memcards";

export interface FileChange {
  path: string;
  before: string | undefined;
  after: string;
  changed: boolean;
}

function readJson(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  const text = readFileSync(path, "utf8");
  if (!text.trim()) return {};
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch (err) {
    throw new AppError(
      "BAD_INPUT",
      `${path} is not valid JSON (${(err as Error).message}); fix or move it, then run init again`,
      { cause: err },
    );
  }
  throw new AppError("BAD_INPUT", `${path} does not hold a JSON object; fix or move it, then run init again`);
}

const show = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

function change(path: string, next: Record<string, unknown>): FileChange {
  const before = existsSync(path) ? readFileSync(path, "utf8") : undefined;
  const after = show(next);
  return { path, before, after, changed: before !== after };
}

/** The registration change for a client (nothing is written). */
export function planRegistration(
  client: ClientId,
  opts: { root: string; cli: string; remove?: boolean; env?: Parameters<(typeof CLIENTS)[ClientId]["path"]>[1] },
): FileChange {
  const spec = CLIENTS[client];
  const path = spec.path(opts.root, opts.env);
  const doc = readJson(path);
  const servers = { ...((doc[spec.key] as Record<string, unknown> | undefined) ?? {}) };
  if (opts.remove) delete servers[SERVER_NAME];
  else servers[SERVER_NAME] = spec.entry(opts.cli, opts.root);
  return change(path, { ...doc, [spec.key]: servers });
}

/** Claude Code hook events memcards handles, with the matchers it registers. */
export const HOOK_EVENTS = [
  { event: "PreCompact", matcher: "manual|auto", timeout: 120 },
  { event: "SessionStart", matcher: "startup|resume|clear|compact", timeout: 15 },
  { event: "SessionEnd", matcher: "", timeout: 15 },
  { event: "PostToolUse", matcher: "Edit|MultiEdit|Write|NotebookEdit", timeout: 15 },
] as const;

interface HookGroup {
  matcher?: string;
  /** `command` is absent from other kinds of hook (`"type": "prompt"`). */
  hooks: { type: string; command?: string; timeout?: number }[];
}

/**
 * memcards' hook commands: those older versions wrote (`"<node>" "<cli>" hook <event>`, found by `cli`'s exact path
 * too, whether or not the word memcards is in it), and this version's (dist/hook.js beside `cli`, by its exact path:
 * another tool's `dist/hook.js` or `dist/cli.js hook` is not ours). A hook without a command (a prompt hook) is not.
 */
const isOurs = (cmd: unknown, cli: string) =>
  typeof cmd === "string" &&
  (/\bmemcards\b.*\bhook\b/.test(cmd) ||
    cmd.includes("dist/cli.js hook") ||
    cmd.includes(`"${cli}" hook `) ||
    cmd.includes(`"${hookEntryOf(cli)}" `));

/**
 * The entry a hook command runs: dist/hook.js beside the CLI entry, which reaches the resident worker loading nothing
 * else. Settings that older versions wrote (`dist/cli.js hook <event>`) keep working: that path runs the same code.
 */
export function hookEntryOf(cli: string): string {
  return join(dirname(cli), "hook.js");
}

/** Optional hooks that inject cards before a prompt or an edit (off unless asked for). */
export const CARD_HOOK_EVENTS = [
  { event: "UserPromptSubmit", matcher: "", timeout: 15 },
  { event: "PreToolUse", matcher: "Edit|MultiEdit|Write", timeout: 15 },
] as const;

/** The hooks change for `.claude/settings.json`: memcards' commands added (or removed), others kept. */
export function planHooks(opts: { root: string; cli: string; remove?: boolean; cards?: boolean }): FileChange {
  const path = `${opts.root}/.claude/settings.json`;
  const doc = readJson(path);
  const hooks = { ...((doc.hooks as Record<string, HookGroup[]> | undefined) ?? {}) };
  for (const h of [...HOOK_EVENTS, ...CARD_HOOK_EVENTS]) {
    const wanted = !opts.remove && (HOOK_EVENTS.some((x) => x.event === h.event) || opts.cards === true);
    const groups = (hooks[h.event] ?? [])
      .map((g) => ({ ...g, hooks: g.hooks.filter((x) => !isOurs(x.command, opts.cli)) }))
      .filter((g) => g.hooks.length > 0);
    if (wanted) {
      const command = `"${process.execPath}" "${hookEntryOf(opts.cli)}" ${h.event}`;
      groups.push({
        ...(h.matcher ? { matcher: h.matcher } : {}),
        hooks: [{ type: "command", command, timeout: h.timeout }],
      });
    }
    if (groups.length > 0) hooks[h.event] = groups;
    else delete hooks[h.event];
  }
  const next: Record<string, unknown> = { ...doc };
  if (Object.keys(hooks).length > 0) next.hooks = hooks;
  else delete next.hooks;
  return change(path, next);
}

/**
 * Claude Code's approval of the project's `.mcp.json` server, as a person gives it at the trust prompt: memcards in
 * `enabledMcpjsonServers` of `.claude/settings.local.json` (this machine only, never committed).
 */
export function planApproval(opts: { root: string; remove?: boolean }): FileChange {
  const path = `${opts.root}/.claude/settings.local.json`;
  const doc = readJson(path);
  const listed = Array.isArray(doc.enabledMcpjsonServers) ? (doc.enabledMcpjsonServers as unknown[]) : [];
  const others = listed.filter((s) => s !== SERVER_NAME);
  const next: Record<string, unknown> = { ...doc };
  if (opts.remove) {
    if (others.length > 0) next.enabledMcpjsonServers = others;
    else delete next.enabledMcpjsonServers;
  } else next.enabledMcpjsonServers = [...others, SERVER_NAME];
  return change(path, next);
}

/** Whether this machine's Claude Code settings approve memcards (so `--remove` takes the approval out too). */
export function approvalListed(root: string): boolean {
  const doc = readJson(`${root}/.claude/settings.local.json`);
  return Array.isArray(doc.enabledMcpjsonServers) && doc.enabledMcpjsonServers.includes(SERVER_NAME);
}

/** How a person approves the project server in Claude Code, said after `init` registers it there. */
export const CLAUDE_CODE_APPROVAL =
  "Claude Code lists a project's .mcp.json server as pending until it is approved: accept memcards when " +
  "Claude Code asks at its next start (`claude mcp list` shows the state), or run `memcards init --approve` " +
  "to approve it for this machine in .claude/settings.local.json.";

/** Writes a planned change atomically (temp file, then rename). */
export function applyChange(c: FileChange): void {
  if (!c.changed) return;
  mkdirSync(dirname(c.path), { recursive: true });
  const tmp = `${c.path}.memcards-tmp`;
  // The temporary file is new, never a link someone left there (a rename replaces a link, it never follows it).
  rmSync(tmp, { force: true });
  if (!createNewFile(tmp, c.after))
    throw new AppError("UNSAFE_FILE", `cannot create ${tmp}: something is in the way; remove it and run again`);
  renameSync(tmp, c.path);
}
