// One committed fixture per format: parsed into turns, then compressed with its key facts kept.
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { compressContext } from "../../src/session/compress.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { fileEvents } from "../../src/transcript/events/ledger.js";
import { parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { tmpDir } from "../helpers/tmp.js";
import { fixture } from "./data.js";

interface Case {
  file: string;
  format: string;
  /** Paths (suffixes) the ledger must hold. */
  files: string[];
  /** Strings the returned context (summary after re-insertion, then recent messages) must hold. */
  keeps: string[];
  check?: (t: ReturnType<typeof parseTranscriptFile>) => void;
  /** Lines the fixture damages on purpose. */
  damaged?: number;
}

const CASES: Case[] = [
  {
    file: "claude-code.jsonl",
    format: "claude-code-jsonl",
    files: ["src/parser/tokenize.ts", "src/lib/parsePortEnv.ts"],
    keeps: ["File has not been read yet", "Cannot read properties of undefined"],
    check: (t) => {
      expect(t.partial_tail).toBe(true);
      expect(t.ignored.duplicate_uuid).toBe(1);
      expect(t.turns.some((x) => x.sidechain)).toBe(true);
      expect(t.turns.some((x) => x.kind === "compact_summary")).toBe(true);
      expect(t.title).toBe("Fix TypeError in tokenizer peekKind lookahead");
    },
  },
  {
    file: "codex-rollout.jsonl",
    format: "codex-rollout-jsonl",
    files: ["src/parser/tokenize.ts", "test/tokenize.test.ts"],
    keeps: ["Cannot read properties of undefined", "public API"],
    check: (t) => {
      // Injected AGENTS.md / environment context is meta; event_msg duplicates are not read twice.
      expect(t.turns.filter((x) => x.role === "user" && x.kind === "meta").length).toBe(2);
      expect(t.ignored.event_msg).toBeGreaterThan(0);
      expect(t.turns.some((x) => x.kind === "compact_summary")).toBe(true);
    },
  },
  {
    file: "codex-rollout-legacy.jsonl",
    format: "codex-rollout-jsonl",
    files: ["src/parser/tokenize.ts"],
    keeps: ["guard peekKind lookahead"],
  },
  {
    file: "specstory-gemini.md",
    format: "specstory-md",
    files: ["src/parser/tokenize.ts", "test/tokenize.test.ts"],
    keeps: ["Cannot read properties of undefined"],
    check: (t) => {
      const names = new Set(t.turns.flatMap((x) => x.tool_calls.map((c) => c.name)));
      expect([...names]).toEqual(expect.arrayContaining(["run_shell_command", "read_file", "replace"]));
      expect(t.turns.flatMap((x) => x.tool_results).filter((r) => r.is_error).length).toBe(1);
    },
  },
  {
    file: "specstory-cursor-old.md",
    format: "specstory-md",
    files: ["politipo/plugins/pandas/types.py"],
    keeps: ["name 'Union' is not defined"],
  },
  {
    file: "specstory-copilot-old.md",
    format: "specstory-md",
    files: ["src/gui/keys.js", "src/sketch.js"],
    keeps: [],
  },
  {
    file: "aider.chat.history.md",
    format: "aider-md",
    files: [".gitignore"],
    keeps: [],
    check: (t) => {
      const commits = t.turns.flatMap((x) => x.tool_calls).filter((c) => c.name === "git_commit");
      expect(commits.length).toBe(2);
    },
  },
  {
    file: "cline-task.md",
    format: "cline-md",
    files: ["src/parser/tokenize.ts", "test/tokenize.test.ts"],
    keeps: ["do not change the public API"],
  },
  { file: "blackbox-chat.md", format: "blackbox-md", files: ["src/parser/tokenize.ts"], keeps: ["public API"] },
  {
    file: "antigravity-steps.jsonl",
    format: "antigravity-jsonl",
    files: ["src/parser/tokenize.ts", "test/tokenize.test.ts"],
    keeps: ["do not change the public API"],
    damaged: 1,
    check: (t) => expect(t.skip_reasons).toEqual({ malformed_json: 1 }),
  },
  {
    file: "replit-agent.jsonl",
    format: "replit-agent-jsonl",
    files: ["src/parser/tokenize.ts", "test/tokenize.test.ts"],
    keeps: ["Cannot read properties of undefined"],
  },
  { file: "messages.json", format: "messages-json", files: [], keeps: [] },
  {
    file: "swe-agent.traj",
    format: "swe-agent-traj",
    files: ["tests/missing_colon.py"],
    keeps: ["missing_colon.py"],
    check: (t) => expect(t.turns.filter((x) => x.role === "tool").length).toBe(5),
  },
];

describe("committed fixtures, one per format", () => {
  for (const c of CASES) {
    it(`${c.file}: parses as ${c.format} and compresses with its facts`, () => {
      const t = parseTranscriptFile(fixture(c.file));
      expect(t.format).toBe(c.format);
      expect(t.skipped - (t.skip_reasons.partial_last_line ?? 0) - (c.damaged ?? 0)).toBe(0);
      const paths = fileEvents(t.turns).map((e) => e.path);
      for (const f of c.files)
        expect(
          paths.some((p) => p.endsWith(f)),
          `${f} in ${paths.join(", ")}`,
        ).toBe(true);
      c.check?.(t);
      const dir = tmpDir();
      const db = openDatabase(join(dir, "m.db"));
      const project = upsertProject(db, "fx", dir);
      const r = compressContext(
        { db, projectId: project.id, root: dir },
        { transcriptPath: fixture(c.file), keepRecent: 2 },
      );
      for (const k of c.keeps) expect(r.markdown, k).toContain(k);
      // Every edited file is in the ledger of the summarized turns or on the page (the recent turns' calls).
      const ledger = Object.keys(r.summary.sections.files);
      for (const f of c.files)
        expect(ledger.some((p) => p.endsWith(f)) || r.markdown.includes(f), `${f} in ${ledger.join(", ")}`).toBe(true);
      expect(r.stats.tokens_total_after).toBeLessThanOrEqual(r.stats.budget.tokens);
      db.close();
    });
  }
});
