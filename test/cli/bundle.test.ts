// The bundled entry on its own: dist/cli.js, dist/hook.js and dist/chunks/ copied to a folder outside the repository
// (with package.json and a node_modules for the packages kept external, without the tokenizer's package, whose tables
// the bundle carries in a compact form) print the version, index a project, run a hook and serve MCP over stdio (a
// build in the graph worker, cards, a compression distilled in the distill worker), loading nothing from the
// checkout but node_modules.
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { beforeAll, describe, expect, it } from "vitest";

import { repoRoot } from "../helpers/cli.js";
import { claudeCodeSession, longSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";

/** A copy of the bundle in a fresh folder: what an install holds, without dist/src or dist/bench. */
function copyBundle(): string {
  const pkg = join(realpathSync(tmpDir("memcards-bundle-")), "memcards");
  mkdirSync(join(pkg, "dist"), { recursive: true });
  for (const f of ["cli.js", "cli.js.map", "hook.js", "chunks"])
    cpSync(join(repoRoot, "dist", f), join(pkg, "dist", f), { recursive: true });
  cpSync(join(repoRoot, "package.json"), join(pkg, "package.json"));
  // Every package but gpt-tokenizer: the bundle counts tokens with the compact tables it carries (dist/chunks/).
  const modules = join(pkg, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(repoRoot, "node_modules")))
    if (name !== "gpt-tokenizer") symlinkSync(join(repoRoot, "node_modules", name), join(modules, name));
  return pkg;
}

describe("the bundle's worker-thread and process entries", () => {
  it("include every module the code starts by name", () => {
    const names = new Set<string>();
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith(".ts"))
          for (const m of readFileSync(p, "utf8").matchAll(/siblingWorkerFile\(import\.meta\.url, "([^"]+)"\)/g))
            names.add(m[1]!);
      }
    };
    walk(join(repoRoot, "src"));
    walk(join(repoRoot, "bench"));
    expect(names.size).toBeGreaterThanOrEqual(4);
    for (const name of names) expect(existsSync(join(repoRoot, "dist", "chunks", `${name}.js`)), name).toBe(true);
  });
});

describe("the bundled entry copied outside the repository", () => {
  let pkg: string;
  let cli: string;
  let home: string;
  let proj: string;
  let trace: string;
  let register: string;

  beforeAll(() => {
    pkg = copyBundle();
    cli = join(pkg, "dist", "cli.js");
    home = tmpDir();
    proj = tmpDir();
    mkdirSync(join(proj, "pkg"));
    writeFileSync(join(proj, "pkg", "a.py"), "def alpha(x):\n    return beta(x)\n");
    writeFileSync(join(proj, "pkg", "b.py"), "from pkg.a import alpha\n\ndef beta(x):\n    return alpha(x) + 1\n");
    writeFileSync(join(proj, "main.ts"), "export function gamma(n: number): number {\n  return n * 2;\n}\n");
    spawnSync("git", ["init", "-q", proj]);
    // Every module URL the runs resolve, recorded by a resolve hook registered before the entry runs.
    const dir = tmpDir();
    trace = join(dir, "trace.txt");
    writeFileSync(trace, "");
    writeFileSync(
      join(dir, "hooks.mjs"),
      `import { appendFileSync } from "node:fs";\nexport async function resolve(s, c, next) {\n  const r = await next(s, c);\n  appendFileSync(${JSON.stringify(trace)}, r.url + "\\n");\n  return r;\n}\n`,
    );
    register = join(dir, "register.mjs");
    writeFileSync(
      register,
      `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`,
    );
  });

  const env = () => ({
    ...process.env,
    HOME: home,
    MEMCARDS_HOME: join(home, ".memcards"),
    MEMCARDS_EMBEDDER: "offline",
    MEMCARDS_HOOK_WORKER: "0",
  });
  const run = (args: string[], input = "", entry = cli) =>
    spawnSync(process.execPath, ["--import", pathToFileURL(register).href, entry, ...args], {
      cwd: proj,
      env: env(),
      input,
      encoding: "utf8",
      timeout: 120_000,
    });

  it("prints the version of the package.json beside it", () => {
    const r = run(["--version"]);
    expect(r.status, r.stderr).toBe(0);
    const { version } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { version: string };
    expect(r.stdout.trim()).toBe(version);
  });

  it("indexes a project with the migrations of the copy, then answers a hook from it", () => {
    const first = run(["index", proj, "--json"]);
    expect(first.status, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as { files: { parsed: number } };
    expect(report.files.parsed).toBe(3);
    const again = run(["index", proj, "--json"]);
    expect(again.status, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { files: { parsed: number } }).files.parsed).toBe(0);

    const input = JSON.stringify({
      cwd: proj,
      session_id: "s1",
      hook_event_name: "UserPromptSubmit",
      prompt: "fix gamma in main.ts",
    });
    // The registered hook entry, and the CLI's `hook` that older settings name.
    for (const hook of [
      run(["UserPromptSubmit"], input, join(pkg, "dist", "hook.js")),
      run(["hook", "UserPromptSubmit"], input),
    ]) {
      expect(hook.status, hook.stderr).toBe(0);
      expect(hook.stderr).not.toContain("memcards hook:");
      expect(hook.stdout).toContain("main.ts");
    }
  });

  it("names src/ files in a stack trace asked for with --log-level debug, and prints none otherwise", () => {
    const missing = join(proj, "no-such-folder");
    const debug = run(["--log-level", "debug", "index", missing]);
    expect(debug.status).toBe(1);
    expect(debug.stderr).toContain("NOT_FOUND");
    expect(debug.stderr).toMatch(/\n\s+at .*\/src\/cli\/index-graph\.ts:\d+:\d+/);
    const plain = run(["index", missing]);
    expect(plain.status).toBe(1);
    expect(plain.stderr).not.toMatch(/\n\s+at /);
  });

  it("serves tools over stdio: the graph worker's build, get_memory_cards, compress_context's distill worker", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", pathToFileURL(register).href, cli, "serve", "--root", proj],
      env: env() as Record<string, string>,
      cwd: proj,
      stderr: "ignore",
    });
    const client = new Client({ name: "bundle-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("get_memory_cards");
      writeFileSync(join(proj, "extra.ts"), "export function delta(n: number): number {\n  return n - 1;\n}\n");
      const built = await client.callTool({ name: "build_context_graph", arguments: { wait: true } }, undefined, {
        timeout: 60_000,
      });
      expect(built.isError, JSON.stringify(built.content)).toBeFalsy();
      expect(built.structuredContent).toMatchObject({ state: "done", files: { parsed: 1 } });
      const res = await client.callTool({ name: "get_memory_cards", arguments: { task: "double a number in gamma" } });
      expect(res.isError).toBeFalsy();
      expect(JSON.stringify(res.structuredContent)).toContain("main.ts");
      const transcript = join(proj, "session.jsonl");
      writeFileSync(transcript, claudeCodeSession(longSession(6, 3), { sessionId: "bundle-session" }));
      const compressed = await client.callTool(
        {
          name: "compress_context",
          arguments: { transcript_path: transcript, keep_recent: 0, route: "deterministic" },
        },
        undefined,
        { timeout: 60_000 },
      );
      expect(compressed.isError, JSON.stringify(compressed.content)).toBeFalsy();
      expect((compressed.structuredContent as { memories_queued?: number }).memories_queued).toBeGreaterThan(0);
      // The queued turns are distilled in the worker thread started from the copy's chunks.
      let distillation = { pending: 1, done: 0, failed: 0 };
      while (distillation.pending > 0) {
        const st = await client.callTool({ name: "status", arguments: {} });
        distillation = (st.structuredContent as { distillation: typeof distillation }).distillation;
        if (distillation.pending > 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(distillation.failed).toBe(0);
      expect(distillation.done).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("says to restart when a tool's code was replaced under the running server, instead of an unknown module", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, "serve", "--root", proj],
      env: env() as Record<string, string>,
      cwd: proj,
      stderr: "ignore",
    });
    const client = new Client({ name: "bundle-upgrade-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      await client.listTools();
      // An upgrade or rebuild replaces the chunks with others of new names: the running server's old names are gone.
      const chunks = join(pkg, "dist", "chunks");
      const old = readdirSync(chunks).filter((f) => /^forget\.run-.*\.js$/.test(f));
      expect(old.length).toBe(1);
      for (const f of old) renameSync(join(chunks, f), join(chunks, `${f}.replaced`));
      try {
        const res = await client.callTool({ name: "forget", arguments: { id: 1 } });
        expect(res.isError).toBe(true);
        const text = (res.content as { text: string }[])[0]!.text;
        expect(text).toContain("was updated or rebuilt while this process was running");
        expect(text).toContain("Restart");
      } finally {
        for (const f of old) renameSync(join(chunks, `${f}.replaced`), join(chunks, f));
      }
    } finally {
      await client.close();
    }
  });

  it("eval perf parses the project in its floor with the copy's own parser entry", () => {
    const r = run(["eval", "perf", "--repo", proj, "--only", "reindex", "--runs", "1", "--json"]);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { symbols: number; rows: { measure: string; floorFig: unknown }[] };
    // alpha, beta, gamma at least (later tests add more files): a floor that failed to load parses nothing.
    expect(report.symbols).toBeGreaterThanOrEqual(3);
    expect(report.rows.find((row) => row.measure === "full index")?.floorFig).toBeTruthy();
  });

  it("loaded nothing from the checkout but its node_modules", () => {
    const files = readFileSync(trace, "utf8")
      .split("\n")
      .filter((u) => u.startsWith("file:"));
    expect(files.some((u) => u.includes("/dist/chunks/"))).toBe(true);
    // Worker threads inherit the resolve hook: the graph and distill workers' entries came from the copy.
    for (const entry of ["worker.js", "distill-worker.js"])
      expect(files).toContain(pathToFileURL(join(pkg, "dist", "chunks", entry)).href);
    const outside = files.filter((u) => !u.startsWith(pathToFileURL(pkg).href) && !u.includes("/node_modules/"));
    expect(outside).toEqual([]);
  });
});
