// The evaluation code loads only for `memcards eval`: not statically from the entry, not for hooks or status.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";

import { RUNGS } from "../../bench/localize/ladder.js";
import { cliPath, repoRoot, runCli } from "../helpers/cli.js";
import { loadedSources, sourcesOf } from "../helpers/loaded.js";
import { tmpDir } from "../helpers/tmp.js";

const STATIC = [
  /^\s*import\s[^;]*?from\s*["']([^"']+)["']/gm,
  /^\s*import\s*["']([^"']+)["']/gm,
  /^\s*export\s[^;]*?from\s*["']([^"']+)["']/gm,
];

/** Every built file reachable from `entry` through static imports (dynamic import() is not followed). */
function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const re of STATIC)
      for (const m of text.matchAll(re)) {
        const spec = m[1]!;
        if (!spec.startsWith(".")) continue;
        const target = resolve(dirname(file), spec);
        if (existsSync(target)) todo.push(target);
      }
  }
  return seen;
}

/** The module URLs a CLI run resolves, recorded by a resolve hook registered before the entry runs. */
function loadedBy(args: string[], env: NodeJS.ProcessEnv = {}): string[] {
  const dir = tmpDir();
  const trace = join(dir, "trace.txt");
  writeFileSync(trace, "");
  writeFileSync(
    join(dir, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";\nexport async function resolve(s, c, next) {\n  const r = await next(s, c);\n  appendFileSync(${JSON.stringify(trace)}, r.url + "\\n");\n  return r;\n}\n`,
  );
  writeFileSync(
    join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`,
  );
  const res = spawnSync(
    process.execPath,
    ["--import", pathToFileURL(join(dir, "register.mjs")).href, cliPath, ...args],
    {
      cwd: dir,
      env: { ...process.env, HOME: dir, MEMCARDS_HOME: join(dir, ".memcards"), ...env },
      input: "",
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  expect(res.status, res.stderr).toBe(0);
  return readFileSync(trace, "utf8").split("\n").filter(Boolean);
}

describe("the evaluation code is loaded only by eval commands", () => {
  it("no static import from dist/cli.js reaches bench code", () => {
    // The entry loads the command tree (src/cli/main.ts's chunk) with import(): follow both.
    const chunks = readdirSync(join(repoRoot, "dist", "chunks"))
      .filter((f) => f.endsWith(".js"))
      .map((f) => join(repoRoot, "dist", "chunks", f));
    const main = chunks.find((f) => sourcesOf(f).includes("src/cli/main.ts"));
    expect(main).toBeDefined();
    const sources = [...staticGraph(cliPath), ...staticGraph(main!)].flatMap((f) => sourcesOf(f));
    expect(sources).toContain("src/cli/entry.ts");
    expect(sources).toContain("src/cli/eval.ts");
    expect(sources.filter((f) => f.startsWith("bench/"))).toEqual([]);
  });

  it("hook SessionStart and status resolve no bench module; eval audit does", () => {
    for (const args of [
      ["hook", "SessionStart"],
      ["--root", tmpDir(), "status"],
    ]) {
      const sources = loadedSources(loadedBy(args));
      // A hook takes the short path: not the command tree, not the team store's driver, not the MCP SDK.
      const hook = args[0] === "hook";
      expect(sources.includes("src/cli/main.ts"), args.join(" ")).toBe(!hook);
      if (hook) expect(sources.filter((u) => /^node_modules\/(pg|@modelcontextprotocol)\//.test(u))).toEqual([]);
      expect(
        sources.filter((u) => u.startsWith("bench/")),
        args.join(" "),
      ).toEqual([]);
    }
    expect(loadedSources(loadedBy(["eval", "audit"]))).toContain("bench/commands.ts");
  });
});

describe("--version", () => {
  it("loads neither the command tree, the team store's driver nor the MCP SDK", () => {
    const sources = loadedSources(loadedBy(["--version"]));
    expect(sources).toContain("src/cli/entry.ts");
    expect(sources.filter((u) => /^node_modules\/(pg|@modelcontextprotocol|commander|zod)\//.test(u))).toEqual([]);
    expect(sources).not.toContain("src/cli/main.ts");
  });
});

describe("a no-change index", () => {
  it("loads neither the team store's driver, the MCP SDK nor bench code, and rewrites no part of the graph", () => {
    const home = tmpDir();
    const proj = tmpDir();
    mkdirSync(join(proj, "pkg"));
    writeFileSync(join(proj, "pkg", "a.py"), "def alpha(x):\n    return beta(x)\n");
    writeFileSync(join(proj, "pkg", "b.py"), "from pkg.a import alpha\n\ndef beta(x):\n    return alpha(x) + 1\n");
    spawnSync("git", ["init", "-q", proj]);
    const env = { HOME: home, MEMCARDS_HOME: join(home, ".memcards"), MEMCARDS_EMBEDDER: "offline" };
    const first = runCli(["index", proj, "--json"], { env });
    expect(first.code, first.stderr).toBe(0);
    const dbPath = join(proj, ".memcards", "memcards.db");
    const snapshot = () => {
      const db = new Database(dbPath, { readonly: true });
      try {
        return {
          build: db.prepare("SELECT value FROM meta WHERE key = 'graph.build'").get(),
          files: db.prepare("SELECT * FROM files ORDER BY id").all(),
          nodes: db.prepare("SELECT count(*) AS n, max(id) AS top FROM nodes").get(),
          edges: db.prepare("SELECT count(*) AS n FROM edges").get(),
          terms: db.prepare("SELECT * FROM file_terms ORDER BY id").all(),
          vectors: db.prepare("SELECT count(*) AS n, max(id) AS top FROM vector_items").get(),
        };
      } finally {
        db.close();
      }
    };
    const before = snapshot();
    const sources = loadedSources(loadedBy(["index", proj, "--json"], env));
    expect(sources).toContain("src/graph/index-repository.ts");
    expect(sources.filter((u) => /^node_modules\/(pg|@modelcontextprotocol)\//.test(u))).toEqual([]);
    expect(sources.filter((u) => u.startsWith("bench/"))).toEqual([]);
    // Other commands' code loads only when they run: cards, compression, transcripts, the team store, hooks.
    expect(sources.filter((u) => /^src\/(cards|session|transcript|team)\/|\/hook-command\.ts$/.test(u))).toEqual([]);
    expect(snapshot()).toEqual(before);
    // A change is still picked up: a new build, the file re-read.
    writeFileSync(join(proj, "pkg", "a.py"), "def alpha(x):\n    return 2 * x\n");
    const again = runCli(["index", proj, "--json"], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).files.parsed).toBe(1);
    expect(snapshot().build).not.toEqual(before.build);
  });
});

describe("eval flags", () => {
  it("lists the ladder's rungs in eval localize --help", () => {
    const help = runCli(["eval", "localize", "--help"]).stdout.replace(/\s+/g, " ");
    expect(help).toContain(RUNGS.join(", "));
  });

  it("names the missing dataset flag instead of reaching for a default", () => {
    for (const [cmd, flag] of [
      ["bench", "--source <file>"],
      ["hooks", "--transcript <file>"],
      ["segment", "--set <file>"],
      ["perf", "--repo <dir>"],
    ] as const) {
      const r = runCli(["eval", cmd]);
      expect(r.code, cmd).toBe(1);
      expect(r.stderr, cmd).toContain(`required option '${flag}' not specified`);
    }
    const c = runCli(["eval", "compress"]);
    expect(c.code).toBe(1);
    expect(c.stderr).toMatch(/^memcards: BAD_INPUT: pass --transcripts <dir> .* or --dir <dir>/m);
  });
});
