// A no-change index decides that nothing changed from the files' stamps alone: the built CLI loads no parser (neither
// the tree-sitter runtime nor the parse and write path) and no embedder model code for it, where a run with a changed
// file loads the parser to parse it.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { describe, expect, it } from "vitest";

import { cliPath } from "../helpers/cli.js";
import { loadedSources } from "../helpers/loaded.js";
import { tmpDir } from "../helpers/tmp.js";

/** The module URLs one run of the built CLI resolves (a resolve hook registered before the entry runs), and its output. */
function traced(args: string[], env: NodeJS.ProcessEnv): { urls: string[]; stdout: string } {
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
    { cwd: dir, env: { ...process.env, ...env }, input: "", encoding: "utf8", timeout: 120_000 },
  );
  expect(res.status, res.stderr).toBe(0);
  return { urls: readFileSync(trace, "utf8").split("\n").filter(Boolean), stdout: res.stdout };
}

/** What of the parse path a run loaded: the parser module, the tree-sitter runtime, the writers of changed files. */
const parsePath = (sources: readonly string[]) =>
  sources.filter((s) =>
    /^src\/repo\/parse\.ts$|^src\/graph\/index-changes\.ts$|^node_modules\/web-tree-sitter\//.test(s),
  );

describe("a no-change index", () => {
  it("loads no parser; a run with a changed file does", () => {
    const home = tmpDir();
    const proj = tmpDir();
    mkdirSync(join(proj, "pkg"));
    writeFileSync(join(proj, "pkg", "a.py"), "def alpha(x):\n    return beta(x)\n");
    writeFileSync(join(proj, "pkg", "b.ts"), "export function beta(x: number): number {\n  return x + 1;\n}\n");
    spawnSync("git", ["init", "-q", proj]);
    const env = { HOME: home, MEMCARDS_HOME: join(home, ".memcards"), MEMCARDS_EMBEDDER: "offline" };
    const first = traced(["index", proj, "--json"], env);
    expect(JSON.parse(first.stdout).files.parsed).toBe(2);
    expect(parsePath(loadedSources(first.urls))).not.toEqual([]);

    const again = traced(["index", proj, "--json"], env);
    expect(JSON.parse(again.stdout).files).toMatchObject({ parsed: 0, unchanged: 2 });
    expect(parsePath(loadedSources(again.urls))).toEqual([]);

    writeFileSync(join(proj, "pkg", "a.py"), "def alpha(x):\n    return 2 * x\n");
    const changed = traced(["index", proj, "--json"], env);
    expect(JSON.parse(changed.stdout).files.parsed).toBe(1);
    expect(parsePath(loadedSources(changed.urls))).toContain("src/repo/parse.ts");
  });
});
