// The ways memcards is distributed besides npm, each checked by its own validator: server.json for the MCP registry
// (against the registry's schema), the Claude Desktop bundle manifest (`mcpb validate`), and the Claude Code plugin
// and its marketplace (`claude plugin validate`, then a local marketplace install with the pinned CLI).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { describe, expect, it } from "vitest";

import { HOOK_EVENTS } from "../../src/integrate/init.js";
import { announceSkip, CLAUDE_BIN, claudeEnv, probeClaudeCode } from "../helpers/claude-code.js";
import { repoRoot } from "../helpers/cli.js";
import { textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

const json = (rel: string) => JSON.parse(readFileSync(join(repoRoot, rel), "utf8")) as Record<string, unknown>;
const pkg = json("package.json") as { name: string; version: string; mcpName: string };
/** The pinned bundle tool's CLI (its package exports no subpaths). */
const MCPB = join(repoRoot, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");

describe("server.json for the MCP registry", () => {
  const schema = JSON.parse(
    readFileSync(join(repoRoot, "test", "fixtures", "schemas", "server.schema.2025-12-11.json"), "utf8"),
  ) as Record<string, unknown>;
  const validate = new AjvJsonSchemaValidator().getValidator(schema);
  const server = json("server.json") as {
    $schema: string;
    name: string;
    version: string;
    packages: { registryType: string; identifier: string; version: string }[];
  };

  it("validates against the registry's schema, which rejects a broken copy", () => {
    const r = validate(server);
    expect(r.errorMessage).toBeUndefined();
    expect(r.valid).toBe(true);
    expect(server.$schema).toBe(schema.$id);
    const broken = structuredClone(server) as Record<string, unknown>;
    broken.description = "x".repeat(101);
    expect(validate(broken).valid).toBe(false);
  });

  it("names the npm package as package.json does (mcpName, name, version)", () => {
    expect(pkg.mcpName).toBe(server.name);
    expect(server.version).toBe(pkg.version);
    expect(server.packages).toEqual([
      expect.objectContaining({ registryType: "npm", identifier: pkg.name, version: pkg.version }),
    ]);
  });
});

describe("the Claude Desktop bundle (mcpb/manifest.json)", () => {
  const manifest = json("mcpb/manifest.json") as {
    version: string;
    server: { mcp_config: { command: string; args: string[] } };
    user_config: Record<string, { type: string; required?: boolean }>;
  };
  const mcpbValidate = (file: string) =>
    spawnSync(process.execPath, [MCPB, "validate", file], { encoding: "utf8", timeout: 60_000 });

  it("passes `mcpb validate`, which rejects a manifest without a server", () => {
    const ok = mcpbValidate(join(repoRoot, "mcpb", "manifest.json"));
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/validation passes/i);
    const dir = tmpDir();
    const { server: _server, ...broken } = manifest;
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(broken));
    expect(mcpbValidate(join(dir, "manifest.json")).status).not.toBe(0);
    expect(manifest.version).toBe(pkg.version);
  });

  it("packs with `mcpb pack`; unpacked, it serves the project folder the user picks, as Claude Desktop runs it", async () => {
    expect(manifest.user_config.project_root).toMatchObject({ type: "directory", required: true });
    // The bundle's layout as `npm run bundle` stages it (its node_modules is linked here, not installed).
    const work = realpathSync(tmpDir("memcards-mcpb-"));
    const stage = join(work, "stage");
    mkdirSync(stage);
    cpSync(join(repoRoot, "dist"), join(stage, "dist"), { recursive: true });
    cpSync(join(repoRoot, "package.json"), join(stage, "package.json"));
    cpSync(join(repoRoot, "mcpb", "manifest.json"), join(stage, "manifest.json"));
    const mcpb = (args: string[]) =>
      spawnSync(process.execPath, [MCPB, ...args], { cwd: work, encoding: "utf8", timeout: 60_000 });
    const packed = mcpb(["pack", stage, join(work, "memcards.mcpb")]);
    expect(packed.status, packed.stdout + packed.stderr).toBe(0);
    const unpacked = mcpb(["unpack", join(work, "memcards.mcpb"), join(work, "bundle")]);
    expect(unpacked.status, unpacked.stdout + unpacked.stderr).toBe(0);
    const bundle = join(work, "bundle");
    // The migrations the bundled entry reads, beside its chunks.
    expect(existsSync(join(bundle, "dist", "chunks", "migrations", "0001_base.sql"))).toBe(true);
    expect(existsSync(join(bundle, "dist", "chunks", "team", "migrations", "0001_team.sql"))).toBe(true);
    symlinkSync(join(repoRoot, "node_modules"), join(bundle, "node_modules"), "junction");

    const project = realpathSync(tmpDir());
    const home = tmpDir();
    // Claude Desktop substitutes ${__dirname} (the unpacked bundle) and ${user_config.*}.
    const args = manifest.server.mcp_config.args.map((a) =>
      a.replace("${__dirname}", bundle).replace("${user_config.project_root}", project),
    );
    expect(args[0]).toBe(join(bundle, "dist", "cli.js"));
    expect(manifest.server.mcp_config.command).toBe("node");
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        (e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("MEMCARDS_"),
      ),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...args, "--embedder", "offline"],
      env: { ...env, HOME: home, MEMCARDS_HOME: join(home, ".memcards") },
      stderr: "pipe",
    });
    const client = new Client({ name: "desktop-bundle-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const status = await client.callTool({ name: "status", arguments: {} });
      expect(textOf(status)).toContain(project);
    } finally {
      await client.close();
    }
  });
});

const probe = probeClaudeCode();
announceSkip("Claude Code plugin validation and install", probe);

describe("the Claude Code plugin (plugin/) and its marketplace (.claude-plugin/)", () => {
  const plugin = json("plugin/.claude-plugin/plugin.json") as { name: string; version: string };
  const mcp = json("plugin/.mcp.json") as { mcpServers: { memcards: { command: string; args: string[] } } };
  const hooks = json("plugin/hooks/hooks.json") as {
    hooks: Record<string, { matcher?: string; hooks: { command: string; timeout: number }[] }[]>;
  };
  const market = json(".claude-plugin/marketplace.json") as { plugins: { name: string; source: string }[] };

  it("runs the published version, with the hooks `memcards init --hooks` writes", () => {
    expect(plugin.version).toBe(pkg.version);
    expect(mcp.mcpServers.memcards.args).toEqual(["-y", `memcards@${pkg.version}`, "serve"]);
    expect(Object.keys(hooks.hooks).sort()).toEqual(HOOK_EVENTS.map((h) => h.event).sort());
    for (const h of HOOK_EVENTS) {
      const [group] = hooks.hooks[h.event]!;
      expect(group!.matcher ?? "").toBe(h.matcher);
      expect(group!.hooks).toEqual([
        { type: "command", command: `npx -y memcards@${pkg.version} hook ${h.event}`, timeout: h.timeout },
      ]);
    }
    expect(market.plugins).toEqual([expect.objectContaining({ name: plugin.name, source: "./plugin" })]);
  });

  it.skipIf(!probe.ok)("passes `claude plugin validate` and installs from the local marketplace", () => {
    const home = realpathSync(tmpDir("memcards-plugin-home-"));
    mkdirSync(join(home, ".claude"), { recursive: true });
    const env = claudeEnv(home, "http://127.0.0.1:9");
    const claude = (args: string[]) =>
      spawnSync(CLAUDE_BIN, args, { cwd: home, env, encoding: "utf8", timeout: 60_000 });
    for (const dir of ["plugin", "."]) {
      const v = claude(["plugin", "validate", join(repoRoot, dir)]);
      expect(v.status, v.stdout + v.stderr).toBe(0);
      expect(v.stdout).toMatch(/✔ Validation passed/);
      expect(v.stdout).not.toMatch(/error/i);
    }
    expect(claude(["plugin", "marketplace", "add", repoRoot]).status).toBe(0);
    const install = claude(["plugin", "install", "memcards@memcards"]);
    expect(install.status, install.stdout + install.stderr).toBe(0);
    const list = claude(["plugin", "list"]);
    expect(list.stdout).toMatch(/memcards@memcards[\s\S]*enabled/);
    expect(list.stdout).toContain(`Version: ${pkg.version}`);
    const details = claude(["plugin", "details", "memcards@memcards"]);
    expect(details.stdout).toMatch(/Hooks \(4\) +PreCompact, SessionStart, SessionEnd, PostToolUse/);
    expect(details.stdout).toMatch(/MCP servers \(1\) +memcards/);
  });
});
