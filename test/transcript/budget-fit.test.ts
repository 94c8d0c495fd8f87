// The summary keeps within its budget, counted on what is rendered, re-inserted facts included; and a session
// smaller than a summary gets a compact one: its lines within the session's size, plus their headings.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { compressContext } from "../../src/session/compress.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { countTokens } from "../../src/text/tokens.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { renderSections, SECTION_TITLES } from "../../src/transcript/rendering/render.js";
import { claudeCodeSession, developmentSession, longSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";

function deps() {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  const project = upsertProject(db, "test", dir);
  return { db, projectId: project.id, root: dir, home: dir };
}

const messages = (texts: ["user" | "assistant", string][]) => texts.map(([role, content]) => ({ role, content }));

describe("the budget", () => {
  const long = parseText(claudeCodeSession(longSession(30, 12)), "claude-code-jsonl");
  const sections = extractSections(long.turns, {});

  it("holds for every budget, headings, omitted-line notes and re-inserted lines counted", () => {
    const extra = { failures: ["- TypeError: Cannot read properties of undefined (reading 'loc') _(re-inserted)_"] };
    for (const budget of [60, 120, 200, 333, 500, 800, 1600]) {
      for (const r of [renderSections(sections, budget), renderSections(sections, budget, extra)]) {
        expect(countTokens(r.markdown)).toBeLessThanOrEqual(budget);
        expect(r.tokens).toBe(countTokens(r.markdown));
      }
    }
    // A budget that holds every heading keeps every section; one that does not leaves out the empty ones.
    const wide = renderSections(sections, 800).markdown;
    for (const title of Object.values(SECTION_TITLES)) expect(wide).toContain(`## ${title}`);
    expect(renderSections(sections, 60).markdown).not.toContain("_None recorded._");
  });

  it("holds for a caller's budget through compress_context on a long and on a short session", () => {
    const dir = tmpDir();
    for (const [name, steps] of [
      ["long", longSession(40, 10)],
      ["short", developmentSession()],
    ] as const) {
      const path = join(dir, `${name}.jsonl`);
      writeFileSync(path, claudeCodeSession(steps));
      for (const budget of [200, 400]) {
        const r = compressContext(deps(), { transcriptPath: path, budgetTokens: budget, keepRecent: 0 });
        expect(countTokens(r.summary.markdown)).toBeLessThanOrEqual(budget);
        expect(r.stats.tokens_after).toBeLessThanOrEqual(budget);
      }
    }
  });
});

describe("a session smaller than its summary", () => {
  it("gets a compact summary about the session's size, and says so", () => {
    const r = compressContext(deps(), {
      messages: messages([
        [
          "user",
          "Rename the config flag --simulate to --dry-run everywhere, including the README and the shell completions. Keep the old flag working as a hidden alias for one release, and never change the exit codes.",
        ],
        [
          "assistant",
          "Renamed it in cli.ts, README.md and completions/memcards.bash; --simulate stays as a hidden alias.",
        ],
      ]),
      keepRecent: 0,
    });
    expect(r.stats.tokens_after).toBeLessThanOrEqual(r.stats.tokens_before + 24);
    expect(r.summary.markdown).not.toContain("_None recorded._");
    expect(r.summary.markdown).toContain("--dry-run");
    expect(r.notes.join(" ")).toMatch(/fewer than a summary's/);
  });

  it("keeps a request shorter than any heading whole rather than dropping it", () => {
    const r = compressContext(deps(), {
      messages: messages([
        ["user", "Rename the flag."],
        ["assistant", "Done."],
      ]),
      keepRecent: 0,
    });
    expect(r.summary.markdown).toContain("Rename the flag.");
    expect(countTokens(r.summary.markdown)).toBeLessThanOrEqual(r.stats.tokens_before + 24);
    expect(r.notes.join(" ")).toMatch(/fewer than a summary's/);
  });

  it("adds no empty summary in front of the messages it keeps verbatim", () => {
    const r = compressContext(deps(), {
      messages: messages([
        ["user", "Rename the config flag to --dry-run."],
        ["assistant", "Renamed it in cli.ts."],
      ]),
    });
    expect(r.summary.markdown).toBe("");
    expect(r.markdown.startsWith("## Recent Messages (verbatim)")).toBe(true);
    expect(countTokens(r.markdown)).toBeLessThan(60);
  });
});
