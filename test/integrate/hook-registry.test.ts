// The hook registry: every event a Claude Code hook configuration registers (the one `memcards init --hooks
// --card-hooks` writes, and the plugin's) has a handler, and `memcards hook <event>` reaches it through the registry.
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { hookCommand } from "../../src/integrate/hook-command.js";
import { HookEvent } from "../../src/integrate/hooks/input.js";
import { HOOKS } from "../../src/integrate/hooks/registry.js";
import { planHooks } from "../../src/integrate/init.js";
import { WORKER_EVENTS } from "../../src/integrate/worker-client.js";
import { openDatabase } from "../../src/storage/db.js";
import { cliPath, repoRoot } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

type HookConfig = { hooks: Record<string, { hooks: { command: string }[] }[]> };

/** The events a hook configuration registers, each with the event its command runs. */
function registered(config: HookConfig): { event: string; runs: string }[] {
  return Object.entries(config.hooks).flatMap(([event, groups]) =>
    groups.flatMap((g) =>
      g.hooks.map((h) => ({ event, runs: /(?: hook|dist\/hook\.js") (\S+)$/.exec(h.command)?.[1] ?? "" })),
    ),
  );
}

const installed = (): HookConfig =>
  JSON.parse(planHooks({ root: tmpDir(), cli: cliPath, cards: true }).after) as HookConfig;
const plugin = (): HookConfig =>
  JSON.parse(readFileSync(join(repoRoot, "plugin", "hooks", "hooks.json"), "utf8")) as HookConfig;

describe("the hook registry", () => {
  it("has a handler for every event the installed hooks and the plugin register", async () => {
    const events = [...registered(installed()), ...registered(plugin())];
    // init --hooks --card-hooks registers six events; the plugin four of them.
    expect(new Set(events.map((e) => e.event)).size).toBe(6);
    for (const { event, runs } of events) {
      expect(runs, `the ${event} hook runs \`memcards hook ${event}\``).toBe(event);
      expect(HookEvent.safeParse(event).success, `${event} is a HookEvent`).toBe(true);
      expect(Object.keys(HOOKS), `${event} has a handler in the registry`).toContain(event);
      expect(typeof (await HOOKS[event as HookEvent].load())).toBe("function");
    }
  });

  it("names each event once, as the event list does, and marks what the worker answers", async () => {
    expect(Object.keys(HOOKS).sort()).toEqual([...HookEvent.options].sort());
    for (const [event, entry] of Object.entries(HOOKS)) expect(WORKER_EVENTS.has(event)).toBe(entry.worker);
    // Compaction runs in the hook's own process: its work would hold up the worker's queue.
    expect([...WORKER_EVENTS].sort()).toEqual([
      "PostToolUse",
      "PreToolUse",
      "SessionEnd",
      "SessionStart",
      "UserPromptSubmit",
    ]);
    // The handlers are distinct functions: no event falls through to another's.
    const handlers = await Promise.all(Object.values(HOOKS).map((h) => h.load()));
    expect(new Set(handlers).size).toBe(handlers.length);
  });

  it("runs every installed event through its handler: each logs its own outcome, none an error", async () => {
    const root = tmpDir();
    openDatabase(join(root, ".memcards", "memcards.db")).close();
    const home = tmpDir();
    const env = { HOME: home, MEMCARDS_HOME: join(home, ".memcards") };
    const expected: Record<HookEvent, RegExp> = {
      PreCompact: /^no transcript_path$/,
      SessionStart: /^no memory yet$/,
      SessionEnd: /^no transcript_path$/,
      PostToolUse: /^no file in tool_input$/,
      UserPromptSubmit: /^no task or no graph$/,
      PreToolUse: /^no task or no graph$/,
    };
    const events = [...new Set(registered(installed()).map((e) => e.event))];
    for (const event of events) {
      const stdout = await hookCommand(event, JSON.stringify({ cwd: root, session_id: "s1" }), {
        flags: {},
        env,
        cwd: root,
        cli: cliPath,
      });
      expect(stdout).toBe("");
    }
    const log = readFileSync(join(root, ".memcards", "hooks.log"), "utf8")
      .trim()
      .split("\n");
    expect(log).toHaveLength(events.length);
    events.forEach((event, i) => {
      const [, ev, session, outcome] = /^\S+ (\S+) (\S+) (.*)$/.exec(log[i]!) ?? [];
      expect(ev).toBe(event);
      expect(session).toBe("s1");
      expect(outcome, event).toMatch(expected[event as HookEvent]);
    });
  });
});
