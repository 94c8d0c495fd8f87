// UserPromptSubmit (optional): the top cards for the prompt.
import { injectCards } from "./cards.js";
import type { HookCall, HookResult } from "./input.js";

export function userPromptSubmit(call: HookCall): Promise<HookResult> {
  return injectCards(call, call.input.prompt ?? "", () => "this prompt");
}
