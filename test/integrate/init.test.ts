// memcards init: each client's documented file and key, other entries kept, hooks merged, removal undone.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

import { describe, expect, it } from "vitest";

import { claudeDesktopConfig } from "../../src/integrate/clients.js";
import { applyChange, planHooks, planRegistration } from "../../src/integrate/init.js";
import { cliPath, runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

const read = (p: string) =>
  JSON.parse(readFileSync(p, "utf8")) as Record<string, Record<string, Record<string, unknown>>>;

describe("client registration", () => {
  it("writes each client's file with its own key and shape, keeping other servers", () => {
    const root = tmpDir();
    const home = tmpDir();
    mkdirSync(join(root, ".vscode"));
    writeFileSync(
      join(root, ".vscode", "mcp.json"),
      JSON.stringify({ servers: { other: { type: "stdio", command: "x" } }, inputs: [] }),
    );
    writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: { github: { command: "gh-mcp" } } }));
    const env = { platform: "linux" as const, home };
    for (const client of ["claude-code", "cursor", "vscode", "claude-desktop"] as const) {
      applyChange(planRegistration(client, { root, cli: "/opt/memcards/dist/cli.js", env }));
    }
    const cc = read(join(root, ".mcp.json"));
    expect(cc.mcpServers!.github).toEqual({ command: "gh-mcp" });
    expect(cc.mcpServers!.memcards).toEqual({
      type: "stdio",
      command: process.execPath,
      args: ["/opt/memcards/dist/cli.js", "serve"],
    });
    expect(read(join(root, ".cursor", "mcp.json")).mcpServers!.memcards!.args).toEqual([
      "/opt/memcards/dist/cli.js",
      "serve",
    ]);
    const vs = read(join(root, ".vscode", "mcp.json"));
    expect(vs.servers!.other).toEqual({ type: "stdio", command: "x" });
    expect(vs.servers!.memcards!.type).toBe("stdio");
    expect(vs.inputs).toEqual([]);
    // Claude Desktop starts servers with cwd / and sends no roots: the root is passed explicitly.
    const desktop = read(claudeDesktopConfig(env));
    expect(desktop.mcpServers!.memcards!.args).toEqual(["/opt/memcards/dist/cli.js", "serve", "--root", root]);
    expect(claudeDesktopConfig({ platform: "darwin", home: "/Users/a" })).toBe(
      "/Users/a/Library/Application Support/Claude/claude_desktop_config.json",
    );
    expect(
      claudeDesktopConfig({ platform: "win32", home: "C:\\Users\\a", appData: "C:\\Users\\a\\AppData\\Roaming" }),
    ).toMatch(/Claude[\\/]claude_desktop_config\.json$/);

    // Running again changes nothing; removal keeps the others.
    expect(planRegistration("claude-code", { root, cli: "/opt/memcards/dist/cli.js", env }).changed).toBe(false);
    applyChange(planRegistration("claude-code", { root, cli: "/opt/memcards/dist/cli.js", remove: true, env }));
    expect(read(join(root, ".mcp.json"))).toEqual({ mcpServers: { github: { command: "gh-mcp" } } });
  });

  it("refuses to overwrite a file that is not JSON", () => {
    const root = tmpDir();
    writeFileSync(join(root, ".mcp.json"), "{ not json");
    expect(() => planRegistration("claude-code", { root, cli: "/x/cli.js" })).toThrow(/not valid JSON/);
  });

  it("adds the Claude Code hooks beside the user's own, and removes only its own", () => {
    const root = tmpDir();
    mkdirSync(join(root, ".claude"));
    const mine = { matcher: "Bash", hooks: [{ type: "command", command: "echo mine" }] };
    writeFileSync(
      join(root, ".claude", "settings.json"),
      JSON.stringify({ permissions: { allow: ["Bash(ls)"] }, hooks: { PostToolUse: [mine] } }),
    );
    applyChange(planHooks({ root, cli: "/opt/memcards/dist/cli.js" }));
    applyChange(planHooks({ root, cli: "/opt/memcards/dist/cli.js" })); // idempotent
    const s = read(join(root, ".claude", "settings.json")) as unknown as {
      permissions: unknown;
      hooks: Record<string, { matcher?: string; hooks: { type: string; command: string; timeout: number }[] }[]>;
    };
    expect(s.permissions).toEqual({ allow: ["Bash(ls)"] });
    expect(Object.keys(s.hooks).sort()).toEqual(["PostToolUse", "PreCompact", "SessionEnd", "SessionStart"]);
    expect(s.hooks.PostToolUse).toHaveLength(2);
    expect(s.hooks.PostToolUse![0]).toEqual(mine);
    expect(s.hooks.PostToolUse![1]!.matcher).toBe("Edit|MultiEdit|Write|NotebookEdit");
    expect(s.hooks.PreCompact![0]!.hooks[0]!.command).toBe(
      `"${process.execPath}" "/opt/memcards/dist/hook.js" PreCompact`,
    );
    expect(s.hooks.SessionStart![0]!.matcher).toBe("startup|resume|clear|compact");
    applyChange(planHooks({ root, cli: "/opt/memcards/dist/cli.js", remove: true }));
    expect(read(join(root, ".claude", "settings.json"))).toEqual({
      permissions: { allow: ["Bash(ls)"] },
      hooks: { PostToolUse: [mine] },
    });
  });

  it("replaces the hook commands an older version wrote (`dist/cli.js hook`) with the hook entry's", () => {
    const root = tmpDir();
    mkdirSync(join(root, ".claude"));
    const old = (event: string) => ({
      hooks: [{ type: "command", command: `"${process.execPath}" "/opt/memcards/dist/cli.js" hook ${event}` }],
    });
    // Another tool's hook entry of the same file name is not memcards'.
    const other = {
      hooks: [{ type: "command", command: `"${process.execPath}" "/opt/other/dist/hook.js" PreCompact` }],
    };
    writeFileSync(
      join(root, ".claude", "settings.json"),
      JSON.stringify({
        hooks: { PreCompact: [old("PreCompact"), other], UserPromptSubmit: [old("UserPromptSubmit")] },
      }),
    );
    applyChange(planHooks({ root, cli: "/opt/memcards/dist/cli.js", cards: true }));
    const s = read(join(root, ".claude", "settings.json")) as unknown as {
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    const commands = Object.values(s.hooks).flatMap((g) => g.flatMap((x) => x.hooks.map((h) => h.command)));
    expect(commands).toHaveLength(7);
    expect(commands.filter((c) => /^"[^"]+" "\/opt\/memcards\/dist\/hook\.js" [A-Za-z]+$/.test(c))).toHaveLength(6);
    applyChange(planHooks({ root, cli: "/opt/memcards/dist/cli.js", remove: true }));
    expect(read(join(root, ".claude", "settings.json"))).toEqual({ hooks: { PreCompact: [other] } });
  });

  it("replaces an older version's hook commands wherever memcards is installed, the word memcards in its path or not", () => {
    const root = tmpDir();
    mkdirSync(join(root, ".claude"));
    const cli = "/home/dev/src/mc/dist/cli.js";
    const older = `"${process.execPath}" "${cli}" hook PostToolUse`;
    // Another tool's `hook` command of another entry stays.
    const other = `"${process.execPath}" "/home/dev/src/lint/dist/cli.js" hook PostToolUse`;
    writeFileSync(
      join(root, ".claude", "settings.json"),
      JSON.stringify({
        hooks: {
          PostToolUse: [
            { matcher: "Edit", hooks: [{ type: "command", command: older }] },
            { hooks: [{ type: "command", command: other }] },
          ],
        },
      }),
    );
    const commands = () =>
      (
        read(join(root, ".claude", "settings.json")) as unknown as {
          hooks?: Record<string, { hooks: { command: string }[] }[]>;
        }
      ).hooks?.PostToolUse?.flatMap((g) => g.hooks.map((h) => h.command)) ?? [];
    applyChange(planHooks({ root, cli }));
    expect(commands()).toEqual([other, `"${process.execPath}" "/home/dev/src/mc/dist/hook.js" PostToolUse`]);
    applyChange(planHooks({ root, cli }));
    expect(commands()).toHaveLength(2);
    applyChange(planHooks({ root, cli, remove: true }));
    expect(commands()).toEqual([other]);
  });

  it("keeps another tool's prompt hook (no command) beside the commands it adds and removes", () => {
    const root = tmpDir();
    mkdirSync(join(root, ".claude"));
    const prompt = { hooks: [{ type: "prompt", prompt: "Does this prompt ask for secrets?" }] };
    writeFileSync(join(root, ".claude", "settings.json"), JSON.stringify({ hooks: { UserPromptSubmit: [prompt] } }));
    const cli = "/opt/memcards/dist/cli.js";
    applyChange(planHooks({ root, cli, cards: true }));
    const s = read(join(root, ".claude", "settings.json")) as unknown as { hooks: Record<string, unknown[]> };
    expect(s.hooks.UserPromptSubmit).toHaveLength(2);
    expect(s.hooks.UserPromptSubmit![0]).toEqual(prompt);
    applyChange(planHooks({ root, cli, remove: true }));
    expect(read(join(root, ".claude", "settings.json"))).toEqual({ hooks: { UserPromptSubmit: [prompt] } });
  });

  it("memcards init --print shows the change and writes nothing; --yes writes", () => {
    const root = tmpDir();
    const printed = runCli(["init", "cursor", "--print", "--root", root]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain(`create: ${join(root, ".cursor", "mcp.json")}`);
    expect(printed.stdout).toContain(cliPath);
    const yes = runCli(["init", "--yes", "--hooks", "--root", root]);
    expect(yes.code).toBe(0);
    expect(read(join(root, ".mcp.json")).mcpServers!.memcards).toBeDefined();
    expect(readFileSync(join(root, ".claude", "settings.json"), "utf8")).toContain(
      `${JSON.stringify(join(dirname(cliPath), "hook.js")).slice(0, -1)}\\" SessionStart`,
    );
    const bad = runCli(["init", "zed", "--root", root]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/unknown client zed/);
  });
});
