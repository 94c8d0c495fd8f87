// memcards inside the real Claude Code (the pinned CLI), with only the model scripted: `memcards init --hooks`
// gives settings Claude Code accepts, the server connects, an Edit re-indexes the file through the PostToolUse
// hook, and get_memory_cards called through MCP names the edited file.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import {
  announceSkip,
  approveProjectServers,
  claudeEnv,
  distilled,
  endedSessions,
  PRINT_FLAGS,
  probeClaudeCode,
  runClaude,
  waitUntil,
} from "../helpers/claude-code.js";
import { runCli } from "../helpers/cli.js";
import { type ScriptedModel, startScriptedModel, textIn } from "../helpers/scripted-model.js";
import { tmpDir } from "../helpers/tmp.js";
import { POLYGLOT } from "../repo/fixture.js";

const probe = probeClaudeCode();
announceSkip("Claude Code end-to-end (init, MCP, PostToolUse)", probe);

/** A name that exists nowhere in the fixture until the scripted Edit writes it. */
const NEW_SYMBOL = "annulus_perimeter";
const EDITED = "pyproj/shapes/geometry.py";
const TASK = `${NEW_SYMBOL} returns the wrong value for thin rings`;

describe.skipIf(!probe.ok)("memcards in Claude Code: init, MCP, the PostToolUse hook", () => {
  let model: ScriptedModel;
  let home: string;
  let root: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    model = await startScriptedModel();
    home = realpathSync(tmpDir("memcards-cc-home-"));
    root = join(realpathSync(tmpDir("memcards-cc-proj-")), "repo");
    cpSync(POLYGLOT, root, { recursive: true });
    execFileSync("git", ["init", "-q", root]);
    env = claudeEnv(home, model.url);
    approveProjectServers(home);
    const idx = runCli(["index", root, "--lexical-only"], { cwd: root, env });
    expect(idx.code, idx.stderr).toBe(0);
  });
  afterAll(async () => {
    await model?.close();
  });

  it("init --hooks writes settings Claude Code accepts, and `claude mcp list` shows memcards connected", async () => {
    const init = runCli(["init", "--hooks", "--yes"], { cwd: root, env });
    expect(init.code, init.stderr).toBe(0);
    const mcp = JSON.parse(readFileSync(join(root, ".mcp.json"), "utf8")) as {
      mcpServers: Record<string, { args: string[] }>;
    };
    expect(mcp.mcpServers.memcards?.args).toContain("serve");
    const settings = JSON.parse(readFileSync(join(root, ".claude", "settings.json"), "utf8")) as {
      hooks: Record<string, unknown>;
    };
    expect(Object.keys(settings.hooks).sort()).toEqual(["PostToolUse", "PreCompact", "SessionEnd", "SessionStart"]);

    const list = await runClaude(["mcp", "list"], { cwd: root, env, timeoutMs: 60_000 });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/memcards: .*serve - ✔ Connected/);
    const get = await runClaude(["mcp", "get", "memcards"], { cwd: root, env, timeoutMs: 60_000 });
    expect(get.stdout).toMatch(/Scope: Project/i);
  }, 180_000);

  it("an Edit re-indexes the file through PostToolUse; get_memory_cards over MCP names the edited file", async () => {
    const file = join(root, EDITED);
    const lock = join(root, ".memcards", "reindex.lock");
    const log = join(root, ".memcards", "hooks.log");
    const hookLog = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
    // Before the edit, the project does not know the new symbol: no card names the file for it.
    const before = runCli(["cards", TASK], { cwd: root, env });
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toMatch(/^### 1\. /);
    expect(before.stdout).not.toContain(EDITED);

    model.push(
      [
        {
          type: "tool_use",
          name: "Edit",
          input: {
            file_path: file,
            old_string: "def distance(a, b):",
            new_string: `def ${NEW_SYMBOL}(inner, outer):\n    return 2 * math.pi * (inner + outer)\n\n\ndef distance(a, b):`,
          },
        },
      ],
      // The model asks for cards only once the re-index the hook queued has finished (it removes its lock).
      async () => {
        const queued = await waitUntil(() => hookLog().includes(`queued re-index for ${file}`), 30_000);
        const done = await waitUntil(() => !existsSync(lock), 60_000);
        expect(queued && done, hookLog()).toBe(true);
        return [{ type: "tool_use", name: "ToolSearch", input: { query: "select:mcp__memcards__get_memory_cards" } }];
      },
      [
        {
          type: "tool_use",
          name: "mcp__memcards__get_memory_cards",
          input: { task: TASK },
        },
      ],
      [{ type: "text", text: "The helper is in place." }],
    );
    const run = await runClaude(
      ["-p", `Add ${NEW_SYMBOL}(inner, outer). Do not change the public API.`, ...PRINT_FLAGS],
      {
        cwd: root,
        env,
        timeoutMs: 120_000,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("The helper is in place.");
    expect(model.pending()).toBe(0);
    expect(readFileSync(file, "utf8")).toContain(`def ${NEW_SYMBOL}(inner, outer):`);

    // What Claude Code sent to the model: the Edit's result, then the MCP tool's cards naming the edited file.
    const main = model.main();
    expect(main).toHaveLength(4);
    const results = (i: number) =>
      (main[i]!.body.messages ?? [])
        .flatMap((m) => (Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : []))
        .filter((b) => b.type === "tool_result")
        .map((b) => textIn(b.content));
    expect(results(1).join("\n")).toMatch(/has been updated successfully/);
    const cards = results(3).at(-1) ?? "";
    // The top card is the new function itself, at the lines the Edit wrote: the index saw the edit.
    const line = readFileSync(file, "utf8").split("\n").indexOf(`def ${NEW_SYMBOL}(inner, outer):`) + 1;
    expect(cards).toContain(`"kind":"symbol","scope":"${EDITED}:${line}-${line + 1}"`);
    expect(cards).toMatch(/"cards":\[\{/);
    // The tools Claude Code listed behind ToolSearch include memcards', and the server's instructions reached
    // the model's context.
    const context = `${textIn(main[0]!.body.system)}\n${textIn(main[0]!.body.messages)}`;
    expect(context).toContain("mcp__memcards__get_memory_cards");
    expect(context).toMatch(/## memcards\nmemcards keeps local, compact context/);

    // The hooks ran under Claude Code: the session start, the re-index, the distillation at the end.
    await waitUntil(() => /SessionEnd .* queued distillation/.test(hookLog()), 15_000);
    expect(hookLog()).toMatch(/SessionStart \S+ no memory yet/);
    expect(hookLog()).toMatch(/SessionEnd \S+ queued distillation of the transcript/);
    expect(hookLog()).not.toMatch(/ error: /);
    // The distillation SessionEnd started stores the session before the project goes away.
    const [ended] = endedSessions(hookLog());
    expect(await distilled(root, env, ended!)).toBe(true);
  }, 180_000);
});
