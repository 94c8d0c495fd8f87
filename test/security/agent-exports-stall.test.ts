// Hostile Cline, Blackbox AI and Antigravity exports shaped to make a backtracking pattern or a rescan quadratic:
// runs of blank lines and spaces inside results, titles and code actions, and many opening tags before one closing
// tag. Each 200 KB input is parsed to the end and read right (a quadratic pass would not return within the test's
// hang guard; speed belongs in benchmarks).
import { describe, expect, it } from "vitest";

import { parseAntigravity } from "../../src/transcript/formats/antigravity.js";
import { parseBlackbox, parseCline } from "../../src/transcript/formats/cline.js";

const N = 200_000;
const TASK = "**User:**\n\n<task>\nfix it\n</task>\n\n---\n\n";

/** A Cline export whose one tool result is `output`. */
function clineResult(tool: string, output: string): string {
  return `${TASK}**Assistant:**\n\n<${tool}>\n<path>a.txt</path>\n</${tool}>\n\n---\n\n**User:**\n\n[${tool} for 'a.txt'] Result:\n${output}\n`;
}

describe("agent exports that would stall a parser", () => {
  it("reads a result of blank lines and of indented lines to the end", () => {
    for (const run of ["\n", "\n ", "\n\t "]) {
      const t = parseCline(clineResult("read_file", `start${run.repeat(N / run.length)}end`));
      expect(t.turns.flatMap((x) => x.tool_results).map((r) => r.is_error)).toEqual([false]);
    }
  });

  it("reads an editor's diagnostics followed by blank lines to the end", () => {
    const output = `The content was successfully saved to a.txt.\n\nNew problems detected after saving the file:${"\n".repeat(N)}x`;
    const t = parseCline(clineResult("write_to_file", output));
    expect(t.turns.flatMap((x) => x.tool_results).map((r) => r.is_error)).toEqual([false]);
  });

  it("reads many opening tags before one closing tag to the end", () => {
    const text = `${TASK}**Assistant:**\n\n${"<foo>x\n".repeat(N / 7)}</foo>\n`;
    const t = parseCline(text);
    expect(t.turns.flatMap((x) => x.tool_calls)).toEqual([]);
    expect(t.turns.find((x) => x.role === "assistant")?.text).toContain("<foo>x");
  });

  it("reads a working-directory line and a front-matter title of spaces to the end", () => {
    const env = `<environment_details>\n${"# Current Working Directory (".repeat(N / 29)}\n</environment_details>`;
    const cline = parseCline(`**User:**\n\n<task>\nfix it\n</task>\n${env}\n`);
    expect(cline.cwd).toBeUndefined();
    const title = `---\ntitle: "a${" ".repeat(N)}b"\n---\n\n## 💬 User #1\n\n<task>\nhi\n</task>\n`;
    const bb = parseBlackbox(`${title}\n## 🤖 Assistant #2\n\nhello\n`);
    expect(bb.title).toMatch(/^a {200000}b$/);
  });

  it("reads a code action whose changed-file line is a run of spaces to the end", () => {
    const steps = (content: string) =>
      [
        { step_index: 1, source: "USER_EXPLICIT", type: "USER_INPUT", content: "<USER_REQUEST>go</USER_REQUEST>" },
        {
          step_index: 2,
          source: "MODEL",
          type: "PLANNER_RESPONSE",
          content: "ok",
          tool_calls: [{ name: "replace_file_content", args: { TargetFile: '"/p/a.ts"' } }],
        },
        { step_index: 3, source: "MODEL", type: "CODE_ACTION", status: "DONE", content },
      ]
        .map((r) => JSON.stringify(r))
        .join("\n");
    for (const content of [
      `The following changes were made by the replace_file_content tool to: a${" ".repeat(N)}b`,
      `made by the replace_file_content tool to: /p/a.ts. ${"made by the x tool to: a ".repeat(N / 25)}`,
    ]) {
      const t = parseAntigravity(steps(content));
      expect(t.turns.flatMap((x) => x.tool_calls).map((c) => c.name)).toEqual(["edit_file"]);
    }
  });
});
