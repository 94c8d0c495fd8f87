// Claude Code hooks: `memcards hook <event>` reads the hook's JSON on stdin. It never blocks or fails the agent:
// heavy work goes to a detached process, and any error exits 0 with nothing printed, logged to .memcards/hooks.log.
// runHook does the steps every event shares, then dispatches to the event's handler through the registry.
import { spawn } from "node:child_process";

import { allowedPath } from "../../project/confine.js";
import { recordSession } from "../../session/sessions.js";
import { redact } from "../../text/redact.js";
import type { HookCall, HookContext, HookEvent, HookInput, HookResult } from "./input.js";
import { HOOKS } from "./registry.js";

function detached(cli: string): (args: string[]) => void {
  return (args) => {
    const child = spawn(process.execPath, [cli, ...args], { detached: true, stdio: "ignore" });
    child.unref();
  };
}

/** The steps every hook shares: what it may read, the transcript path checked, the session recorded. */
function prepare(event: HookEvent, input: HookInput, ctx: HookContext): HookCall {
  const { app } = ctx;
  const sessionId = input.session_id;
  // A hook reads only inside the project and the agents' transcript folders, like the MCP tools.
  const scope = { root: app.location.root, roots: [], home: ctx.home };
  let transcript: string | undefined;
  let refused: unknown;
  try {
    if (input.transcript_path) transcript = allowedPath(input.transcript_path, scope).path;
  } catch (err) {
    refused = err; // not recorded; fatal only to the hooks that read the transcript
  }
  if (sessionId)
    recordSession(app.scope, sessionId, {
      client: "claude-code",
      ...(transcript ? { transcriptPath: transcript } : {}),
    });
  return {
    event,
    input,
    app,
    sessionId,
    scope,
    transcript,
    refused,
    spawn: ctx.spawnDetached ?? detached(ctx.cli),
    ranker: ctx.ranker,
  };
}

/** Runs one hook; what it prints for the model is redacted on the way out. */
export async function runHook(event: HookEvent, input: HookInput, ctx: HookContext): Promise<HookResult> {
  const call = prepare(event, input, ctx);
  const handle = await HOOKS[event].load();
  const r = await handle(call);
  return r.stdout ? { ...r, stdout: redact(r.stdout) } : r;
}
