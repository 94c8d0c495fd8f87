// The named-constants rule (scripts/named-constants.mjs, run by scripts/folder-cycles.mjs) on small temporary trees:
// an inline weight in a ranking or scoring file fails, named and documented constants pass, and so do the structural
// numbers the rule allows.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

import { describe, expect, it } from "vitest";

import { repoRoot } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

const checker = join(repoRoot, "scripts", "folder-cycles.mjs");

/** A src/ tree from { "path/under/src.ts": source text }. */
function tree(files: Record<string, string>): string {
  const src = join(tmpDir("memcards-consts-"), "src");
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(src, file)), { recursive: true });
    writeFileSync(join(src, file), text);
  }
  return src;
}

function check(src: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [checker, "--src", src], { encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe("named constants in ranking and scoring", () => {
  it("fails on a new inline weight, naming the file, the line and the number", () => {
    const r = check(
      tree({
        "scoring/utility.ts": `/** Hand-set. */\nconst BASE = 0.6;\n\nexport function score(x: number): number {\n  return BASE + x * 0.37;\n}\n`,
      }),
    );
    expect(r.status).toBe(1);
    expect(r.out).toContain("unnamed constant: scoring/utility.ts:5 0.37 inline in a function");
    expect(r.out).not.toContain("0.6");
  });

  it("fails on a default parameter, a const without a doc comment and a module-level let", () => {
    const r = check(
      tree({
        "retrieval/fuse.ts":
          "export function rrf(ranks: number[], k = 60): number {\n  return ranks.reduce((s, r) => s + 1 / (k + r), 0);\n}\n" +
          "const DAMP = 0.3;\nexport let decay = 0.5;\nexport const use = DAMP * decay;\n",
      }),
    );
    expect(r.status).toBe(1);
    expect(r.out).toContain("retrieval/fuse.ts:1 60 inline in a function");
    expect(r.out).toContain("retrieval/fuse.ts:4 0.3 in a const with no doc comment");
    expect(r.out).toContain("retrieval/fuse.ts:5 0.5 outside a module-level const");
  });

  it("passes documented constants, 0, 1 and 2, indexes, the rounding idiom and literal types", () => {
    const r = check(
      tree({
        "scoring/pack.ts":
          "/** Hand-set: a fifth of the budget. */\nexport const PACK = { reserve: 0.2, rows: [3, 4.5], floor: -7.1 } as const;\n" +
          "type Pair = [1 | 3, number];\n" +
          "export function f(m: string[], x: number, p: Pair): number {\n" +
          "  const half = x / 2;\n" +
          "  const n = Number(m[3]) + p[1] - 1;\n" +
          "  return Math.round((half * PACK.reserve + n) * 1000) / 1000 + (x > 0 ? 1 : 0);\n}\n",
      }),
    );
    expect(r.out).toContain("every number is named in 1 ranking and scoring file(s)");
    expect(r.status).toBe(0);
  });

  it("does not accept a rounding whose two factors differ", () => {
    const r = check(
      tree({ "scoring/pack.ts": "export const r = (x: number): number => Math.round(x * 1000) / 100;\n" }),
    );
    expect(r.status).toBe(1);
    expect(r.out).toContain("scoring/pack.ts:1 1000 inline in a function");
    expect(r.out).toContain("scoring/pack.ts:1 100 inline in a function");
  });

  it("takes the rounding idiom for output only: a step that is no power of ten quantizes a score and is named", () => {
    const r = check(
      tree({
        "scoring/pack.ts":
          "export const ok = (x: number): number => Math.round(x * 100) / 100;\n" +
          "export const thirds = (x: number): number => Math.round(x * 3) / 3;\n",
      }),
    );
    expect(r.status).toBe(1);
    expect(r.out).toContain("scoring/pack.ts:2 3 inline in a function");
    expect(r.out).not.toContain("scoring/pack.ts:1");
  });

  it("does not take an empty doc comment for one that says where the values came from", () => {
    const r = check(
      tree({
        "scoring/utility.ts":
          "/** */\nconst BASE = 0.6;\n/**\n *\n */\nconst MIX = 0.4;\nexport const score = (x: number): number => BASE + MIX * x;\n",
      }),
    );
    expect(r.status).toBe(1);
    expect(r.out).toContain("scoring/utility.ts:2 0.6 in a const with no doc comment");
    expect(r.out).toContain("scoring/utility.ts:6 0.4 in a const with no doc comment");
  });

  it("holds the search terms the ranker's queries are built from to the rule too", () => {
    const r = check(
      tree({
        "text/search-terms.ts":
          "export function queryTerms(text: string, maxTerms = 64): string[] {\n  return text.split(/\\s+/).slice(0, maxTerms);\n}\n",
      }),
    );
    expect(r.status).toBe(1);
    expect(r.out).toContain("unnamed constant: text/search-terms.ts:1 64 inline in a function");
  });

  it("follows a listed file moved to another folder, and leaves unlisted files alone", () => {
    const r = check(
      tree({
        "text/query.ts": "export const weight = (n: number): number => n * 0.45;\n",
        "text/other.ts": "export const weight = (n: number): number => n * 0.45;\n",
      }),
    );
    expect(r.status).toBe(1);
    expect(r.out).toContain("unnamed constant: text/query.ts:1 0.45");
    expect(r.out).not.toContain("text/other.ts");
  });
});
