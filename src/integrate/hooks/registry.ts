// The hook registry: every Claude Code hook event memcards handles, mapped to its handler (one file per event,
// loaded only when that event runs) and to whether the resident worker answers it. The hook process and the worker
// both dispatch through it (runHook). It loads nothing of memcards itself, so the hook side of the worker
// (worker-client.ts, which runs before anything else loads) reads it too.
import type { HookEvent, HookHandler } from "./input.js";

export interface HookEntry {
  /**
   * Answered by the resident worker: every event whose work is short. PreCompact runs directly: it compresses the
   * whole transcript (seconds on a long session, its hook allows 120 s), which would hold up the worker's one-at-a-time
   * queue and outlast the wait of the hooks behind it.
   */
  worker: boolean;
  /** The event's handler, loaded on first use (by the worker, for the events it answers, when it starts). */
  load: () => Promise<HookHandler>;
}

export const HOOKS: Readonly<Record<HookEvent, HookEntry>> = {
  PreCompact: { worker: false, load: async () => (await import("./pre-compact.js")).preCompact },
  SessionStart: { worker: true, load: async () => (await import("./session-start.js")).sessionStart },
  SessionEnd: { worker: true, load: async () => (await import("./session-end.js")).sessionEnd },
  PostToolUse: { worker: true, load: async () => (await import("./post-tool-use.js")).postToolUse },
  UserPromptSubmit: { worker: true, load: async () => (await import("./user-prompt-submit.js")).userPromptSubmit },
  PreToolUse: { worker: true, load: async () => (await import("./pre-tool-use.js")).preToolUse },
};
