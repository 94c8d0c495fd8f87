// What every Claude Code hook handler shares: the hook's JSON on stdin (HookInput), the events memcards handles, the
// call a handler receives once the common steps are done, and what it returns (stdout for the model, a log line).
import { z } from "zod";

import type { App } from "../../app.js";
import type { ReadScope } from "../../project/confine.js";
import type { Ranker } from "../../retrieval/rank.js";

/** Cards injected by the optional prompt and pre-edit hooks stay small. */
export const CARD_HOOK_BUDGET = 400;

/** Claude Code replaces larger SessionStart output with a short preview. */
export const MAX_HOOK_OUTPUT = 9500;

export const HookInput = z
  .object({
    session_id: z.string().optional(),
    transcript_path: z.string().optional(),
    cwd: z.string().optional(),
    hook_event_name: z.string().optional(),
    source: z.string().optional(),
    trigger: z.string().optional(),
    tool_name: z.string().optional(),
    tool_input: z.record(z.string(), z.unknown()).optional(),
    prompt: z.string().optional(),
  })
  .passthrough();
export type HookInput = z.infer<typeof HookInput>;

/** The events memcards handles; each has its handler in the registry (hooks/registry.ts). */
export const HookEvent = z.enum([
  "PreCompact",
  "SessionStart",
  "SessionEnd",
  "PostToolUse",
  "UserPromptSubmit",
  "PreToolUse",
]);
export type HookEvent = z.infer<typeof HookEvent>;

export interface HookContext {
  app: App;
  /** The CLI entry (dist/cli.js) for detached follow-up work. */
  cli: string;
  /** Starts a detached process; tests pass a recorder. */
  spawnDetached?: (args: string[]) => void;
  /** The home folder whose transcript folders hooks may read (default: the user's). */
  home?: string;
  /** A ranker kept across calls (the resident worker's); card hooks make their own without it. */
  ranker?: () => Ranker;
}

/** One hook call as a handler receives it: the common steps (read scope, transcript check, session) are done. */
export interface HookCall {
  event: HookEvent;
  input: HookInput;
  app: App;
  sessionId: string | undefined;
  /** What the hook may read: inside the project and the agents' transcript folders, like the MCP tools. */
  scope: ReadScope;
  /** The transcript's real path, when the input names one inside the scope. */
  transcript: string | undefined;
  /** Why the transcript path was refused: not recorded, and fatal only to the hooks that read the transcript. */
  refused: unknown;
  /** Starts a detached `memcards` process with these arguments. */
  spawn: (args: string[]) => void;
  /** A ranker kept across calls, when the caller keeps one. */
  ranker: (() => Ranker) | undefined;
}

export interface HookResult {
  stdout: string;
  log: string;
}

export type HookHandler = (call: HookCall) => Promise<HookResult>;
