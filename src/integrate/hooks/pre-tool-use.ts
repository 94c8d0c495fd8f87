// PreToolUse before an edit (optional): the top cards for the file about to be edited.
import { relative } from "node:path";

import { injectCards } from "./cards.js";
import type { HookCall, HookResult } from "./input.js";

export function preToolUse(call: HookCall): Promise<HookResult> {
  const file = call.input.tool_input?.file_path;
  return injectCards(call, typeof file === "string" ? `edit ${file}` : "", () =>
    relative(call.app.location.root, String(file)),
  );
}
