// PostToolUse after an edit: re-indexes the project in a detached process, one run at a time.
import { lstatSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";

import { checkStoreFiles, createNewFile } from "../../project/files.js";
import type { HookCall, HookResult } from "./input.js";

/**
 * Takes the re-index lock: false while a lock younger than a minute is held. A stale lock is removed (a link is
 * removed, never followed) and the new one created only where nothing is; a lock that is a link, or another
 * user's, is UNSAFE_FILE.
 */
function takeLock(lock: string): boolean {
  let st;
  try {
    st = lstatSync(lock);
  } catch {
    st = undefined;
  }
  if (st) {
    checkStoreFiles(lock, dirname(lock), false);
    if (Date.now() - st.mtimeMs < 60_000) return false;
    unlinkSync(lock);
  }
  return createNewFile(lock, String(Date.now()));
}

export async function postToolUse(call: HookCall): Promise<HookResult> {
  const { app } = call;
  const file = call.input.tool_input?.file_path ?? call.input.tool_input?.notebook_path;
  if (typeof file !== "string") return { stdout: "", log: "no file in tool_input" };
  // One re-index at a time: a lock younger than a minute means one is running and will see this change.
  const lock = join(dirname(app.dbPath), "reindex.lock");
  if (!takeLock(lock)) return { stdout: "", log: `re-index already queued (${file})` };
  call.spawn(["index", app.location.root, "--lexical-only", "--log-level", "silent", "--release-lock", lock]);
  return { stdout: "", log: `queued re-index for ${file}` };
}
