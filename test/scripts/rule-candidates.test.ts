// `scripts/rule-candidates.mjs` (run on the built product): the sentences a person typed are listed whatever their
// script, and the mechanical test leaves out what is plainly not their words.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { repoRoot } from "../helpers/cli.js";
import { claudeCodeSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";

const script = join(repoRoot, "scripts", "rule-candidates.mjs");

describe("rule-candidates", () => {
  it("lists sentences typed in Russian or Chinese, and leaves out a table of numbers", () => {
    const dir = tmpDir("memcards-rule-candidates-");
    const transcripts = join(dir, "transcripts");
    const out = join(dir, "out");
    const said = [
      "Никогда не меняй файлы миграций.",
      "不要修改数据库迁移文件。",
      "Add a column for the invoice total.",
    ];
    const table = "12.5 | 13.0 | 14.2 | 99.1";
    mkdirSync(transcripts);
    writeFileSync(
      join(transcripts, "session.jsonl"),
      claudeCodeSession([{ user: [...said, table].join("\n") }, { assistant: "Понял." }]),
    );
    writeFileSync(join(dir, "split.json"), JSON.stringify({ validation: [] }));
    const res = spawnSync(process.execPath, [script, transcripts, join(dir, "split.json"), out], { encoding: "utf8" });
    expect(res.status, res.stderr).toBe(0);
    const listed = readFileSync(join(out, "candidates.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { sentence: string }).sentence);
    expect(listed).toEqual(said);
  });

  it("redacts a secret in a sentence and its context", () => {
    const dir = tmpDir("memcards-rule-candidates-");
    const transcripts = join(dir, "transcripts");
    const out = join(dir, "out");
    const token = ["ghp", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"].join("_");
    mkdirSync(transcripts);
    writeFileSync(
      join(transcripts, "session.jsonl"),
      claudeCodeSession([{ user: `Use the token ${token} for the staging API.` }, { assistant: "Using it." }]),
    );
    writeFileSync(join(dir, "split.json"), JSON.stringify({ validation: [] }));
    const res = spawnSync(process.execPath, [script, transcripts, join(dir, "split.json"), out], { encoding: "utf8" });
    expect(res.status, res.stderr).toBe(0);
    const listed = readFileSync(join(out, "candidates.jsonl"), "utf8");
    expect(listed).not.toContain(token);
    expect((JSON.parse(listed.trim()) as { sentence: string }).sentence).toBe(
      "Use the token [redacted github token] for the staging API.",
    );
  });
});
