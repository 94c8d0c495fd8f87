// The floor lint (scripts/folder-cycles.mjs, run by `npm run lint`) on small temporary trees: it passes on imports
// that go down, and fails on an upward import, on two folders of a separate floor importing each other, on a front
// reaching into storage, on a folder with no floor, on a cycle, and on a function over 120 lines; and it passes on the
// real src/.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

import { describe, expect, it } from "vitest";

import { repoRoot } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

const checker = join(repoRoot, "scripts", "folder-cycles.mjs");

/** A src/ tree from { "path/under/src.ts": [imported paths under src, .ts] }. */
function tree(files: Record<string, string[]>): string {
  const src = join(tmpDir("memcards-floors-"), "src");
  for (const [file, targets] of Object.entries(files)) {
    mkdirSync(dirname(join(src, file)), { recursive: true });
    const depth = file.split("/").length - 1;
    const up = depth === 0 ? "./" : "../".repeat(depth);
    const lines = targets.map((t, i) => `import { x${i} } from "${up}${t.replace(/\.ts$/, ".js")}";`);
    writeFileSync(join(src, file), `${lines.join("\n")}\nexport const x = 1;\n`);
  }
  return src;
}

function check(src: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [checker, "--src", src], { encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe("floor lint", () => {
  it("passes a tree whose imports all go down a floor", () => {
    const r = check(
      tree({
        "text/words.ts": [],
        "storage/db.ts": ["text/words.ts"],
        "repo/scan.ts": ["storage/db.ts"],
        "graph/build.ts": ["repo/scan.ts", "storage/db.ts"],
        "cards/service.ts": ["graph/build.ts"],
        "cli/main.ts": ["cards/service.ts", "errors.ts"],
        "errors.ts": [],
      }),
    );
    expect(r.out).toContain("floors hold");
    expect(r.status).toBe(0);
  });

  it("fails on an upward import and names the file and both floors", () => {
    const r = check(
      tree({ "text/words.ts": [], "storage/db.ts": ["repo/scan.ts"], "repo/scan.ts": ["text/words.ts"] }),
    );
    expect(r.status).toBe(1);
    expect(r.out).toContain("upward: storage (engines) imports repo (models)");
    expect(r.out).toContain("storage/db.ts -> repo/scan.ts");
  });

  it("fails when two domain folders import each other's files, even one way", () => {
    const r = check(tree({ "memory/a.ts": ["team/b.ts"], "team/b.ts": [] }));
    expect(r.status).toBe(1);
    expect(r.out).toContain("same floor: memory and team are both domain");
  });

  it("fails when a front reaches into storage, and counts a dynamic import", () => {
    const src = tree({ "storage/db.ts": [], "ui/page.ts": [] });
    writeFileSync(join(src, "ui", "page.ts"), 'export const load = () => import("../storage/db.js");\n');
    const r = check(src);
    expect(r.status).toBe(1);
    expect(r.out).toContain("ui (fronts) reaches into storage");
  });

  it("fails on a folder that has no floor", () => {
    const r = check(tree({ "gadgets/a.ts": [] }));
    expect(r.status).toBe(1);
    expect(r.out).toContain("src/gadgets/ has no floor");
  });

  it("fails on a cycle between two fronts", () => {
    const r = check(tree({ "cli/a.ts": ["ui/b.ts"], "ui/b.ts": ["cli/a.ts"] }));
    expect(r.status).toBe(1);
    expect(r.out).toContain("cycle among: cli, ui");
  });

  it("fails on a function over 120 lines, named by file and name, and passes one of 120", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  total += ${i};`).join("\n");
    const src = tree({ "text/long.ts": [] });
    // Four lines around the body (signature, `let`, `return`, closing brace): 120 lines in all, then 121.
    writeFileSync(
      join(src, "text", "long.ts"),
      `export function fits(): number {\n  let total = 0;\n${body(116)}\n  return total;\n}\n` +
        `export const tooLong = (): number => {\n  let total = 0;\n${body(117)}\n  return total;\n};\n`,
    );
    const r = check(src);
    expect(r.status).toBe(1);
    expect(r.out).toContain("long function: text/long.ts:tooLong spans 121 lines");
    expect(r.out).not.toContain("text/long.ts:fits");
  });

  it("names a long class constructor and a long arrow held by a class field, not by the line they start on", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `    this.total += ${i};`).join("\n");
    const src = tree({ "text/long.ts": [] });
    writeFileSync(
      join(src, "text", "long.ts"),
      `export class Tally {\n  total = 0;\n  constructor() {\n${body(121)}\n  }\n` +
        `  recount = (): void => {\n${body(121)}\n  };\n}\n`,
    );
    const r = check(src);
    expect(r.status).toBe(1);
    expect(r.out).toContain("long function: text/long.ts:constructor spans 123 lines");
    expect(r.out).toContain("long function: text/long.ts:recount spans 123 lines");
    expect(r.out).not.toContain("anonymous");
  });

  it("passes on the repository's own src/", () => {
    const r = check(join(repoRoot, "src"));
    expect(r.out).toContain("floors hold");
    expect(r.status).toBe(0);
  });
});
