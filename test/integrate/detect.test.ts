// Which MCP clients `memcards init` finds (a command on PATH, a settings folder), and `init --all` registering
// memcards with each of them.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { detectClients } from "../../src/integrate/clients.js";
import { runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

const present = (ds: ReturnType<typeof detectClients>) => ds.filter((d) => d.present).map((d) => d.id);

describe("detectClients", () => {
  it("finds nothing in an empty home, project and PATH", () => {
    const ds = detectClients({ root: tmpDir(), home: tmpDir(), path: tmpDir(), platform: "linux" });
    expect(ds.map((d) => d.id)).toEqual(["claude-code", "claude-desktop", "cursor", "vscode"]);
    expect(present(ds)).toEqual([]);
  });

  it("finds each client by its command on PATH or its settings folder, and says which", () => {
    const home = tmpDir();
    const root = tmpDir();
    const bin = tmpDir();
    writeFileSync(join(bin, "claude"), "#!/bin/sh\n");
    mkdirSync(join(home, ".config", "Claude"), { recursive: true });
    mkdirSync(join(root, ".vscode"));
    const ds = detectClients({ root, home, path: bin, platform: "linux" });
    expect(present(ds)).toEqual(["claude-code", "claude-desktop", "vscode"]);
    expect(ds[0]!.evidence).toBe(`claude on PATH (${bin})`);
    expect(ds[1]!.evidence).toBe(join(home, ".config", "Claude"));
    expect(ds[3]!.evidence).toBe(join(root, ".vscode"));
    mkdirSync(join(home, ".cursor"));
    expect(present(detectClients({ root, home, path: "", platform: "linux" }))).toEqual([
      "claude-desktop",
      "cursor",
      "vscode",
    ]);
  });

  it("uses each platform's places: Windows commands with .cmd, Claude Desktop under APPDATA", () => {
    const home = tmpDir();
    const bin = tmpDir();
    const appData = tmpDir();
    writeFileSync(join(bin, "code.cmd"), "");
    mkdirSync(join(appData, "Claude"));
    const ds = detectClients({ root: tmpDir(), home, path: bin, platform: "win32", appData });
    expect(present(ds)).toEqual(["claude-desktop", "vscode"]);
  });
});

describe("memcards init without a client, and --all", () => {
  /** A HOME with Claude Code's and Cursor's folders, and a PATH with none of the clients' commands. */
  function machine() {
    const home = tmpDir();
    mkdirSync(join(home, ".claude"));
    mkdirSync(join(home, ".cursor"));
    return { home, env: { HOME: home, USERPROFILE: home, PATH: tmpDir() } };
  }

  it("names what it found and offers the others; --all registers with every one found", () => {
    const { home, env } = machine();
    const root = tmpDir();
    const one = runCli(["init", "--print", "--root", root], { env });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain(`found: Claude Code (${join(home, ".claude")}); Cursor (${join(home, ".cursor")})`);
    expect(one.stdout).toContain("also found Cursor: memcards init cursor (or memcards init --all)");
    expect(one.stdout).toContain(`create: ${join(root, ".mcp.json")}`);
    expect(one.stdout).not.toContain(join(root, ".cursor", "mcp.json"));

    const all = runCli(["init", "--all", "--yes", "--hooks", "--root", root], { env });
    expect(all.code, all.stderr).toBe(0);
    const read = (p: string) => JSON.parse(readFileSync(p, "utf8")) as { mcpServers: Record<string, unknown> };
    expect(read(join(root, ".mcp.json")).mcpServers.memcards).toBeDefined();
    expect(read(join(root, ".cursor", "mcp.json")).mcpServers.memcards).toBeDefined();
    const settings = JSON.parse(readFileSync(join(root, ".claude", "settings.json"), "utf8")) as {
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    expect(settings.hooks.PreCompact?.[0]?.hooks[0]?.command).toMatch(/hook\.js" PreCompact$/);
    expect(all.stdout).toContain("restart Claude Code, Cursor to pick memcards up");
  });

  it("--all with no client found, or with a client named, is refused with the fix", () => {
    const env = { HOME: tmpDir(), PATH: tmpDir() };
    const none = runCli(["init", "--all", "--root", tmpDir()], { env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no MCP client found here; name one: memcards init claude-code|claude-desktop");
    const both = runCli(["init", "cursor", "--all", "--root", tmpDir()], { env });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain("name one client or pass --all, not both");
  });
});
