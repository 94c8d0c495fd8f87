// The MCP Inspector's CLI mode against `memcards serve` over stdio: lists everything, calls every tool.
import { spawnSync } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { cliPath } from "../helpers/cli.js";
import { enginePackage, engineReady } from "../helpers/engines.js";
import { inClaudeProjects, tmpDir } from "../helpers/tmp.js";
import { POLYGLOT } from "../repo/fixture.js";
import { fixture } from "../transcript/data.js";

const pkg = enginePackage("@modelcontextprotocol/inspector");
const ready = engineReady(
  "test/e2e/inspector.test.ts",
  "the MCP Inspector",
  "missing" in pkg ? pkg.missing : undefined,
);
const inspector = "dir" in pkg ? join(pkg.dir, "cli", "build", "cli.js") : "";

function inspect(root: string, home: string, args: string[]): Record<string, unknown> {
  const r = run(root, home, args);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

function run(root: string, home: string, args: string[]) {
  return spawnSync(
    process.execPath,
    [inspector, "--cli", process.execPath, cliPath, "serve", "--root", root, "--embedder", "offline", ...args],
    {
      encoding: "utf8",
      env: { ...process.env, HOME: home, MEMCARDS_HOME: home },
      timeout: 120_000,
    },
  );
}

const call = (root: string, home: string, tool: string, args: Record<string, string> = {}) =>
  inspect(root, home, [
    "--method",
    "tools/call",
    "--tool-name",
    tool,
    ...Object.entries(args).flatMap(([k, v]) => ["--tool-arg", `${k}=${v}`]),
  ]) as {
    content: { text: string }[];
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
  };

// Each step starts the server afresh through the Inspector (about 2 s a call): steps are tests of their own, on
// one project, so none comes near its time limit on a loaded machine.
describe.skipIf(!ready)("MCP Inspector CLI against memcards serve", () => {
  const root = join(tmpDir(), "repo");
  cpSync(POLYGLOT, root, { recursive: true });
  const home = tmpDir();
  let first = "";

  it("lists tools, resources, templates and prompts", () => {
    const tools = (inspect(root, home, ["--method", "tools/list"]).tools as { name: string }[])
      .map((t) => t.name)
      .sort();
    expect(tools).toEqual([
      "build_context_graph",
      "compress_context",
      "forget",
      "get_memory_cards",
      "get_summary",
      "graph_neighbors",
      "recall",
      "record_memory",
      "record_outcome",
      "search_memory",
      "status",
    ]);
    const prompts = (inspect(root, home, ["--method", "prompts/list"]).prompts as { name: string }[])
      .map((p) => p.name)
      .sort();
    expect(prompts).toEqual(["before-edit", "compact"]);
    const resources = (inspect(root, home, ["--method", "resources/list"]).resources as { uri: string }[]).map(
      (r) => r.uri,
    );
    expect(resources).toEqual(expect.arrayContaining(["memcards://graph/stats", "memcards://project/brief"]));
    const templates = (
      inspect(root, home, ["--method", "resources/templates/list"]).resourceTemplates as { uriTemplate: string }[]
    )
      .map((t) => t.uriTemplate)
      .sort();
    expect(templates).toEqual(["memcards://cards/{id}", "memcards://sessions/{id}/summary"]);
  });

  it("indexes the project and answers graph_neighbors", () => {
    expect(call(root, home, "status").content[0]!.text).toContain(root);
    expect(call(root, home, "build_context_graph").content[0]!.text).toMatch(/Indexed .* 48 files/);
    expect(call(root, home, "graph_neighbors", { ref: "pyproj/shapes/geometry.py" }).content[0]!.text).toContain(
      "test_covers",
    );
  });

  it("compresses a transcript and returns its summary", () => {
    const compressed = call(root, home, "compress_context", {
      transcript_path: inClaudeProjects(home, fixture("claude-code.jsonl")),
      keep_recent: "2",
    });
    expect(compressed.isError).toBeFalsy();
    expect(compressed.content[0]!.text).toMatch(/^## Session Intent/);
    expect(call(root, home, "get_summary").content[0]!.text).toMatch(/^# Session /);
  });

  it("serves cards and records an outcome", () => {
    const cards = call(root, home, "get_memory_cards", {
      task: "Circle.area in pyproj/shapes/geometry.py is wrong",
      budget_tokens: "600",
    });
    first = (cards.structuredContent!.cards as { id: string }[])[0]!.id;
    expect(call(root, home, "record_outcome", { helped: JSON.stringify([first]) }).content[0]!.text).toBe(
      "Recorded 1 outcome.",
    );
  });

  it("records, searches, recalls and forgets memory; a served card reads back until forgotten", () => {
    expect(
      call(root, home, "record_memory", { category: "preference", text: "Prefer small pull requests" }).content[0]!
        .text,
    ).toMatch(/^stored \(#\d+\)\.$/);
    expect(call(root, home, "search_memory", { query: "pull requests" }).content[0]!.text).toContain(
      "Prefer small pull requests",
    );
    expect(call(root, home, "recall").content[0]!.text).toContain("## Preferences");
    const card = inspect(root, home, ["--method", "resources/read", "--uri", `memcards://cards/${first}`]);
    expect(JSON.stringify(card)).toContain(first);
    expect(call(root, home, "forget", { all: "true" }).content[0]!.text).toMatch(/^Forgot \d+ memory unit/);
    const gone = run(root, home, ["--method", "resources/read", "--uri", `memcards://cards/${first}`]);
    expect(gone.status).not.toBe(0);
    expect(gone.stdout + gone.stderr).toContain(first);
  });
});
